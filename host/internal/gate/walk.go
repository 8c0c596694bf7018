package gate

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"

	"github.com/ramabana/ramabana-mcp/host/internal/pii"
)

// walker filters every string of a Go value, whatever its type: the
// fields of structs, the elements of slices, the keys and values of maps,
// what interfaces and pointers hold, and the JSON text of a
// json.RawMessage. It copies on write: the value it is given is never
// changed (the SDK may send one notification's params to several sessions,
// and a tool's listing is shared by every session), and what holds no
// finding is returned as it is, unexported fields included.
//
// Some strings are the protocol's, not data, and are left alone: a
// progress notification's token (the client's own, which it matches), a
// pagination cursor (opaque to the client). Only those fields: a
// "progressToken" key in a map (an upstream tool's _meta) is data. Bytes are left alone but for a
// json.RawMessage and a field named Blob (an embedded resource's), which
// is filtered when it reads as text; an image's or audio's data is not
// text.
type walker struct {
	f     pii.Filter
	found int // findings so far
}

var (
	rawMessageType = reflect.TypeFor[json.RawMessage]()
	numberType     = reflect.TypeFor[json.Number]()
)

// skipFields are the struct fields that carry the protocol's strings.
var skipFields = map[string]bool{"ProgressToken": true, "Cursor": true, "NextCursor": true}

// value walks v; changed says whether the returned value is a new one.
func (w *walker) value(v reflect.Value) (out reflect.Value, changed bool) {
	switch v.Kind() {
	case reflect.String:
		return w.str(v)
	case reflect.Pointer:
		if v.IsNil() {
			return v, false
		}
		e, ch := w.value(v.Elem())
		if !ch {
			return v, false
		}
		p := reflect.New(v.Type().Elem())
		p.Elem().Set(e)
		return p, true
	case reflect.Interface:
		if v.IsNil() {
			return v, false
		}
		e, ch := w.value(v.Elem())
		if !ch {
			return v, false
		}
		i := reflect.New(v.Type()).Elem()
		i.Set(e)
		return i, true
	case reflect.Struct:
		return w.structure(v)
	case reflect.Slice:
		if v.IsNil() {
			return v, false
		}
		if v.Type().Elem().Kind() == reflect.Uint8 {
			if v.Type() == rawMessageType {
				return w.rawJSON(v)
			}
			return v, false
		}
		return w.elements(v)
	case reflect.Array:
		return w.elements(v)
	case reflect.Map:
		return w.mapping(v)
	}
	return v, false
}

// str filters a string. A json.Number that holds a finding (a card
// number sent as a number) becomes the string that stands for it.
func (w *walker) str(v reflect.Value) (reflect.Value, bool) {
	s := v.String()
	out, found := filterText(w.f, s)
	if found == 0 {
		return v, false
	}
	w.found += found
	if v.Type() == numberType {
		return reflect.ValueOf(out), true
	}
	n := reflect.New(v.Type()).Elem()
	n.SetString(out)
	return n, true
}

func (w *walker) structure(v reflect.Value) (reflect.Value, bool) {
	t := v.Type()
	var out reflect.Value
	for i := range t.NumField() {
		sf := t.Field(i)
		if !sf.IsExported() || skipFields[sf.Name] {
			continue
		}
		fv := v.Field(i)
		var nv reflect.Value
		var ch bool
		if sf.Name == "Blob" && sf.Type.Kind() == reflect.Slice && sf.Type.Elem().Kind() == reflect.Uint8 {
			nv, ch = w.blob(fv)
		} else {
			nv, ch = w.value(fv)
		}
		if !ch || !nv.Type().AssignableTo(sf.Type) {
			continue
		}
		if !out.IsValid() {
			out = reflect.New(t).Elem()
			out.Set(v)
		}
		out.Field(i).Set(nv)
	}
	if !out.IsValid() {
		return v, false
	}
	return out, true
}

func (w *walker) elements(v reflect.Value) (reflect.Value, bool) {
	var out reflect.Value
	for i := range v.Len() {
		nv, ch := w.value(v.Index(i))
		if !ch || !nv.Type().AssignableTo(v.Type().Elem()) {
			continue
		}
		if !out.IsValid() {
			if v.Kind() == reflect.Array {
				out = reflect.New(v.Type()).Elem()
			} else {
				out = reflect.MakeSlice(v.Type(), v.Len(), v.Len())
			}
			reflect.Copy(out, v)
		}
		out.Index(i).Set(nv)
	}
	if !out.IsValid() {
		return v, false
	}
	return out, true
}

func (w *walker) mapping(v reflect.Value) (reflect.Value, bool) {
	if v.IsNil() {
		return v, false
	}
	t := v.Type()
	type kv struct{ k, v reflect.Value }
	entries := make([]kv, 0, v.Len())
	changed := false
	iter := v.MapRange()
	for iter.Next() {
		k, val := iter.Key(), iter.Value()
		nk, kch := w.value(k)
		if kch && !nk.Type().AssignableTo(t.Key()) {
			nk, kch = k, false
		}
		nv, vch := w.value(val)
		if vch && !nv.Type().AssignableTo(t.Elem()) {
			nv, vch = val, false
		}
		changed = changed || kch || vch
		entries = append(entries, kv{nk, nv})
	}
	if !changed {
		return v, false
	}
	out := reflect.MakeMapWithSize(t, len(entries))
	for _, e := range entries {
		out.SetMapIndex(e.k, e.v)
	}
	return out, true
}

// rawJSON filters the strings of a JSON text. Text without an escape and
// without a finding as it stands holds none once decoded either: the
// common case costs one scan, not a decode.
func (w *walker) rawJSON(v reflect.Value) (reflect.Value, bool) {
	raw := v.Bytes()
	if !bytes.Contains(raw, []byte{'\\'}) && len(w.f.Find(string(raw))) == 0 {
		return v, false
	}
	out, found, ok := w.f.JSON(raw)
	if !ok {
		// Not JSON: filtered as text (the client would read it so).
		s, fs := w.f.Redact(string(raw))
		if len(fs) == 0 {
			return v, false
		}
		w.found += len(fs)
		out, _ = json.Marshal(s)
	} else if found == 0 {
		return v, false
	} else {
		w.found += found
	}
	n := reflect.New(v.Type()).Elem()
	n.SetBytes(out)
	return n, true
}

// blob filters an embedded resource's blob that reads as text.
func (w *walker) blob(v reflect.Value) (reflect.Value, bool) {
	b := v.Bytes()
	if len(b) == 0 || !pii.IsText(b) {
		return v, false
	}
	out, found := w.f.Redact(string(b))
	if len(found) == 0 {
		return v, false
	}
	w.found += len(found)
	n := reflect.New(v.Type()).Elem()
	n.SetBytes([]byte(out))
	return n, true
}

// filterValue returns v (a pointer, as the SDK's params and results are)
// with every string filtered, and how many findings there were; v itself
// is never changed.
func filterValue[T any](f pii.Filter, v T) (T, int) {
	w := &walker{f: f}
	out, changed := w.value(reflect.ValueOf(&v).Elem())
	if !changed {
		return v, 0
	}
	return out.Interface().(T), w.found
}

// filterText filters a text, and how many findings it had. A text that is
// a JSON document with escapes in it (a structured result copied as text,
// Python's json.dumps of a name with an accent) is filtered in its decoded
// strings, as a client that parses it reads them, and stays JSON: the
// escapes "\u0040" and "\u0020" would hide an address or a card number
// from the patterns.
func filterText(f pii.Filter, s string) (string, int) {
	if t := strings.TrimSpace(s); len(t) > 1 && (t[0] == '{' || t[0] == '[') && strings.Contains(t, `\`) && json.Valid([]byte(t)) {
		if out, found, ok := f.JSON([]byte(t)); ok {
			if found == 0 {
				return s, 0
			}
			return string(out), found
		}
	}
	out, found := f.Redact(s)
	return out, len(found)
}

package pii

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/ramabana/ramabana-mcp/sdk"
)

// FilterResult applies the --pii mode to a read tool's result: redact each
// finding in its text (and in an embedded resource's blob that reads as
// text), or withhold the whole result (with a Filter.Vault, placeholders
// in both modes). Structured content with findings is
// redacted in its strings (dropped if it is not JSON) and counts like text
// when refusing. An error result is redacted in both modes.
func FilterResult(mode Mode, tool string, r *sdk.Result) *sdk.Result {
	return Filter{Mode: mode}.Result(tool, r)
}

// Result is FilterResult with f's mode, and names too when f.Names is set.
func (f Filter) Result(tool string, r *sdk.Result) *sdk.Result {
	mode := f.Mode
	if mode == ModeOff || r == nil {
		return r
	}
	if r.IsError {
		mode = ModeRedact // an error is passed on redacted, never withheld
	}
	counts := map[Kind]int{}
	out := *r
	out.Content = make([]sdk.Content, len(r.Content))
	for i, c := range r.Content {
		switch {
		case c.Image != nil:
		case c.Resource != nil:
			res := *c.Resource
			res.URI = f.redact(res.URI, counts) // mailto:, ?email=
			if res.Text != "" {
				res.Text = f.redact(res.Text, counts)
			}
			if len(res.Blob) > 0 && IsText(res.Blob) {
				res.Blob = []byte(f.redact(string(res.Blob), counts))
			}
			c.Resource = &res
		default:
			c.Text = f.redact(c.Text, counts)
		}
		out.Content[i] = c
	}
	if len(r.Structured) > 0 {
		// Redact inside the JSON's strings, so it stays valid for its
		// output schema; count its findings only when no text block
		// already carried the same data.
		seen := counts
		if len(r.Content) > 0 {
			seen = map[Kind]int{}
		}
		if s, ok := f.redactJSON(r.Structured, seen); ok {
			out.Structured = s
		} else if len(f.Find(string(r.Structured))) > 0 {
			out.Structured = nil // not JSON: drop rather than leak
			f.redact(string(r.Structured), seen)
		}
		if len(seen) > 0 && len(counts) == 0 {
			counts = seen
		}
	}
	if len(counts) == 0 {
		return r
	}
	if mode == ModeRefuse && f.Vault == nil {
		msg := fmt.Sprintf("the result of %s contains %s; this server runs with --pii refuse, so it is withheld. Narrow the request to leave that data out.", tool, describeCounts(counts))
		return &sdk.Result{Content: []sdk.Content{{Text: msg}}, IsError: true}
	}
	return &out
}

func (f Filter) redact(text string, counts map[Kind]int) string {
	out, found := f.Redact(text)
	for _, f := range found {
		counts[f.Kind]++
	}
	return out
}

var piiNames = map[Kind][2]string{
	Email:   {"e-mail address", "e-mail addresses"},
	Phone:   {"phone number", "phone numbers"},
	Card:    {"payment card number", "payment card numbers"},
	Secret:  {"secret", "secrets"},
	Name:    {"personal name", "personal names"},
	Literal: {"text shaped like a vault placeholder", "texts shaped like vault placeholders"},
}

func describeCounts(counts map[Kind]int) string {
	var parts []string
	for kind, n := range counts {
		name := piiNames[kind]
		if n == 1 {
			parts = append(parts, "1 "+name[0])
		} else {
			parts = append(parts, fmt.Sprintf("%d %s", n, name[1]))
		}
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}

// IsText says whether b reads as text: valid UTF-8 without NUL bytes. A
// blob that does is searched and redacted like text; one that does not
// (an image, an archive) is left as it is.
func IsText(b []byte) bool {
	return utf8.Valid(b) && bytes.IndexByte(b, 0) < 0
}

// JSON returns doc, a JSON document, with every string value and object
// key redacted, and every number that holds a finding made the string
// that stands for it; found counts the findings. ok is false when doc is
// not JSON.
func (f Filter) JSON(doc []byte) (out []byte, found int, ok bool) {
	counts := map[Kind]int{}
	out, ok = f.redactJSON(doc, counts)
	for _, n := range counts {
		found += n
	}
	return out, found, ok
}

// redactJSON redacts every string value (and object key) in a JSON
// document, and every number that holds a finding (which becomes a
// string); ok is false when it is not JSON.
func (f Filter) redactJSON(doc []byte, counts map[Kind]int) ([]byte, bool) {
	var v any
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return nil, false
	}
	var walk func(any) any
	walk = func(v any) any {
		switch x := v.(type) {
		case string:
			return f.redact(x, counts)
		case json.Number:
			// A card or phone number sent as a JSON number: it becomes
			// the placeholder string.
			if out := f.redact(string(x), counts); out != string(x) {
				return out
			}
		case []any:
			for i := range x {
				x[i] = walk(x[i])
			}
		case map[string]any:
			out := make(map[string]any, len(x))
			for k, val := range x {
				out[f.redact(k, counts)] = walk(val)
			}
			return out
		}
		return v
	}
	b, err := json.Marshal(walk(v))
	if err != nil {
		return nil, false
	}
	return b, true
}

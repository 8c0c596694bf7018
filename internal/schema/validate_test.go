package schema

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// TestNewValidatorCompilesASchemaOnce: the same tool and schema bytes give
// the same validator (a Toolbox, the host's check and its first call all
// compile it); another tool name, or other bytes, another; a failure is
// kept as well.
func TestNewValidatorCompilesASchemaOnce(t *testing.T) {
	raw := json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer","minimum":1}}}`)
	a, err := NewValidator("once_a", raw)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := NewValidator("once_a", append(json.RawMessage(nil), raw...))
	if a != b {
		t.Error("the same name and schema compiled twice")
	}
	if c, _ := NewValidator("once_b", raw); c == a {
		t.Error("another tool got the first tool's validator (its messages name the tool)")
	}
	if err := b.Validate(json.RawMessage(`{"n":0}`)); err == nil || !strings.Contains(err.Error(), "once_a") {
		t.Errorf("kept validator: Validate = %v, want an error naming once_a", err)
	}
	bad := json.RawMessage(`{"type":"array"}`)
	_, err1 := NewValidator("once_bad", bad)
	_, err2 := NewValidator("once_bad", bad)
	if err1 == nil || err2 == nil || err1.Error() != err2.Error() {
		t.Errorf("a bad schema: %v, then %v; want the same error twice", err1, err2)
	}
}

// TestDropNullOptionals: an optional argument sent as null is left out
// (models send null for what they mean to leave out); a required one, or
// one whose schema allows null, stays, to be judged by Validate.
func TestDropNullOptionals(t *testing.T) {
	t.Parallel()
	v, err := NewValidator("t", json.RawMessage(`{"type":"object","required":["need"],"properties":{
		"need":{"type":"string"},"tags":{"type":"array","items":{"type":"string"}},"maybe":{"type":["null","string"]}}}`))
	if err != nil {
		t.Fatal(err)
	}
	for in, want := range map[string]string{
		`{"need":"x","tags":null}`:                `{"need":"x"}`,
		`{"need":null,"tags":null}`:               `{"need":null}`,
		`{"need":"x","maybe":null}`:               `{"need":"x","maybe":null}`,
		`{"need":"x","tags":["a"]}`:               `{"need":"x","tags":["a"]}`,
		`{"need":"x","unknown":null,"tags":null}`: `{"need":"x","unknown":null}`,
		`[null]`: `[null]`,
	} {
		got := v.DropNullOptionals(json.RawMessage(in))
		var a, b any
		_ = json.Unmarshal(got, &a)
		_ = json.Unmarshal([]byte(want), &b)
		if !reflect.DeepEqual(a, b) {
			t.Errorf("DropNullOptionals(%s) = %s, want %s", in, got, want)
		}
	}
	if err := v.Validate(v.DropNullOptionals(json.RawMessage(`{"need":"x","tags":null}`))); err != nil {
		t.Errorf("an optional null, dropped, is still refused: %v", err)
	}
}

package schema

import (
	"encoding/json"
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

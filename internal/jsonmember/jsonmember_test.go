package jsonmember

import (
	"encoding/json"
	"testing"
)

func TestReplaceString(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		in, want string
		ok       bool
	}{
		"replaced":      {`{"cursor":"","x":1}`, `{"cursor":"EMPTY","x":1}`, true},
		"other value":   {`{"cursor":"c1"}`, `{"cursor":"c1"}`, false},
		"not a string":  {`{"cursor":7}`, `{"cursor":7}`, false},
		"absent":        {`{"x":1}`, `{"x":1}`, false},
		"not an object": {`[1]`, `[1]`, false},
		"empty":         {``, ``, false},
	} {
		got, ok := ReplaceString(json.RawMessage(tc.in), "cursor", "", "EMPTY")
		if string(got) != tc.want || ok != tc.ok {
			t.Errorf("%s: ReplaceString(%s) = %s, %v; want %s, %v", name, tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

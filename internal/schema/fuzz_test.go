package schema_test

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"

	"github.com/ramabana/ramabana-mcp/internal/schema"
	"github.com/ramabana/ramabana-mcp/sdk"
)

// fuzzSchemas are fixed tool schemas of the shapes plugins declare, each
// with an independent judge of what it allows.
var fuzzSchemas = []struct {
	schema string
	allows func(args map[string]any) bool
}{
	{ // a path-taking read tool
		schema: `{"type":"object","properties":{"path":{"type":"string"},"offset":{"type":"integer","minimum":1},"limit":{"type":"integer","minimum":1,"maximum":2000}},"required":["path"],"additionalProperties":false}`,
		allows: func(a map[string]any) bool {
			return only(a, "path", "offset", "limit") && isString(a["path"]) &&
				optional(a, "offset", func(v any) bool { return isInt(v, 1, math.Inf(1)) }) &&
				optional(a, "limit", func(v any) bool { return isInt(v, 1, 2000) })
		},
	},
	{ // an enum and a bounded list
		schema: `{"type":"object","properties":{"mode":{"type":"string","enum":["append","replace"]},"paths":{"type":"array","items":{"type":"string"},"maxItems":3}},"required":["mode"],"additionalProperties":false}`,
		allows: func(a map[string]any) bool {
			mode, ok := a["mode"].(string)
			return only(a, "mode", "paths") && ok && (mode == "append" || mode == "replace") &&
				optional(a, "paths", func(v any) bool {
					l, ok := v.([]any)
					if !ok || len(l) > 3 {
						return false
					}
					for _, s := range l {
						if !isString(s) {
							return false
						}
					}
					return true
				})
		},
	},
	{ // a nested object and a map of strings (run_command's env)
		schema: `{"type":"object","properties":{"opts":{"type":"object","properties":{"force":{"type":"boolean"}},"required":["force"],"additionalProperties":false},"env":{"type":"object","additionalProperties":{"type":"string"}}},"additionalProperties":false}`,
		allows: func(a map[string]any) bool {
			return only(a, "opts", "env") &&
				optional(a, "opts", func(v any) bool {
					o, ok := v.(map[string]any)
					_, isBool := o["force"].(bool)
					return ok && only(o, "force") && isBool
				}) &&
				optional(a, "env", func(v any) bool {
					o, ok := v.(map[string]any)
					for _, s := range o {
						if !isString(s) {
							return false
						}
					}
					return ok
				})
		},
	},
}

func only(m map[string]any, keys ...string) bool {
	n := 0
	for _, k := range keys {
		if _, ok := m[k]; ok {
			n++
		}
	}
	return n == len(m)
}

func optional(m map[string]any, key string, ok func(any) bool) bool {
	v, present := m[key]
	return !present || ok(v)
}

func isString(v any) bool { _, ok := v.(string); return ok }

func isInt(v any, lo, hi float64) bool {
	f, ok := v.(float64)
	return ok && f == math.Trunc(f) && f >= lo && f <= hi
}

// FuzzValidateArgs: the argument validation the host runs before every
// call never panics, and never
// accepts arguments a tool's schema forbids (judged independently for a
// few fixed schemas).
func FuzzValidateArgs(f *testing.F) {
	for _, s := range []struct {
		schema uint8
		args   string
	}{
		{0, `{"path":"a.go"}`},
		{0, `{"path":"a.go","limit":2001}`},
		{0, `{"path":"a.go","offset":1.5}`},
		{0, `{"path":7}`},
		{0, `{"path":"a","extra":1}`},
		{0, `{"path":"a","path":5}`},
		{0, `[]`},
		{0, ``},
		{0, `null`},
		{1, `{"mode":"append","paths":["a","b","c","d"]}`},
		{1, `{"mode":"APPEND"}`},
		{2, `{"opts":{"force":true},"env":{"A":"1"}}`},
		{2, `{"opts":{},"env":{"A":1}}`},
		{2, `{"env":{"A":` + string(bytes.Repeat([]byte("["), 2000)) + `}}`},
	} {
		f.Add(s.schema, []byte(s.args))
	}
	inputs := make([]*schema.Validator, len(fuzzSchemas))
	for i, s := range fuzzSchemas {
		v, err := schema.NewValidator("t", json.RawMessage(s.schema))
		if err != nil {
			f.Fatal(err)
		}
		inputs[i] = v
	}
	f.Fuzz(func(t *testing.T, schema uint8, args []byte) {
		i := int(schema) % len(fuzzSchemas)
		if inputs[i].Validate(args) != nil {
			return
		}
		args = sdk.Arguments(args)
		// What a plugin decodes (encoding/json: the last of duplicate
		// members wins) must be what the schema allows.
		var v map[string]any
		if err := json.Unmarshal(args, &v); err != nil || v == nil {
			t.Fatalf("schema %d accepted %q, which is not a JSON object (%v)", i, args, err)
		}
		if !fuzzSchemas[i].allows(v) {
			t.Fatalf("schema %d accepted %q, which it forbids", i, args)
		}
	})
}

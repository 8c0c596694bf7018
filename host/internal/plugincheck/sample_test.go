package plugincheck

import (
	"encoding/json"
	"testing"

	"github.com/ramabana/ramabana-mcp/internal/schema"
)

// The sample of every schema here satisfies it: plugin check calls each
// tool with what its schema accepts.
func TestSampleArgumentsSatisfyTheirSchema(t *testing.T) {
	for _, tc := range []struct{ name, schema, want string }{
		{"empty", `{"type":"object"}`, `{}`},
		{"optional left out", `{"type":"object","properties":{"a":{"type":"string"}}}`, `{}`},
		{"string bounds", `{"type":"object","properties":{"s":{"type":"string","minLength":3}},"required":["s"]}`, `{"s":"aaa"}`},
		{"enum", `{"type":"object","properties":{"m":{"type":"string","enum":["fast","slow"]}},"required":["m"]}`, `{"m":"fast"}`},
		{"default", `{"type":"object","properties":{"n":{"type":"integer","default":7}},"required":["n"]}`, `{"n":7}`},
		{"integer bounds", `{"type":"object","properties":{"n":{"type":"integer","minimum":1,"maximum":9}},"required":["n"]}`, `{"n":1}`},
		{"exclusive", `{"type":"object","properties":{"x":{"type":"number","exclusiveMinimum":0}},"required":["x"]}`, `{"x":1}`},
		{"negative range", `{"type":"object","properties":{"x":{"type":"integer","maximum":-5}},"required":["x"]}`, `{"x":-5}`},
		{"array", `{"type":"object","properties":{"l":{"type":"array","items":{"type":"boolean"},"minItems":2}},"required":["l"]}`, `{"l":[false,false]}`},
		{"nullable", `{"type":"object","properties":{"v":{"type":["null","integer"]}},"required":["v"]}`, `{"v":0}`},
		{"ref", `{"type":"object","$defs":{"p":{"type":"object","properties":{"q":{"type":"string","const":"k"}},"required":["q"]}},"properties":{"p":{"$ref":"#/$defs/p"}},"required":["p"]}`, `{"p":{"q":"k"}}`},
		{"anyOf", `{"type":"object","properties":{"u":{"anyOf":[{"type":"integer","minimum":2},{"type":"string"}]}},"required":["u"]}`, `{"u":2}`},
		{"format", `{"type":"object","properties":{"d":{"type":"string","format":"date"}},"required":["d"]}`, `{"d":"2026-01-01"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := SampleArguments(json.RawMessage(tc.schema))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("sample = %s; want %s", got, tc.want)
			}
			v, err := schema.NewValidator("t", json.RawMessage(tc.schema))
			if err != nil {
				t.Fatal(err)
			}
			if err := v.Validate(got); err != nil {
				t.Errorf("the sample %s does not satisfy its schema: %v", got, err)
			}
		})
	}
}

func TestSampleArgumentsSaysWhatItCannotFollow(t *testing.T) {
	for _, s := range []string{
		`{"type":"object","properties":{"r":{"$ref":"https://example.com/s.json"}},"required":["r"]}`,
		`{"type":"object","properties":{"r":{"$ref":"#"}},"required":["r"]}`,
		`{"type":"object","properties":{"w":{"type":"wobbly"}},"required":["w"]}`,
		`not json`,
	} {
		if got, err := SampleArguments(json.RawMessage(s)); err == nil {
			t.Errorf("SampleArguments(%s) = %s; want an error", s, got)
		}
	}
}

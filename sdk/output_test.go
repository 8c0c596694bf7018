package sdk_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/jsonschema-go/jsonschema"

	"github.com/ramabana/ramabana-mcp/sdk"
)

type counts struct {
	Words  int      `json:"words" jsonschema:"how many words"`
	Unique []string `json:"unique,omitempty"`
}

// typed declares tool "t" whose handler returns out.
func typed[Out any](spec sdk.ToolSpec, out Out) sdk.Tool {
	spec.Name = "t"
	return sdk.TypedTool(spec, func(context.Context, *sdk.Request, struct{}) (Out, error) { return out, nil })
}

// structured is the result a typed output with JSON text becomes.
func structured(text string) *sdk.Result {
	return &sdk.Result{Content: []sdk.Content{{Text: text}}, Structured: json.RawMessage(text)}
}

func TestTypedToolOutput(t *testing.T) {
	t.Parallel()
	// An output schema is the type's as inferred: unlike an input
	// schema (sdk.PlainSchema), a nil slice is sent as null, so it stays
	// null-able.
	inferred, err := jsonschema.For[counts](nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(inferred)
	if err != nil {
		t.Fatal(err)
	}
	countsSchema := string(b)
	tests := map[string]struct {
		tool       sdk.Tool
		wantSchema string
		want       *sdk.Result
	}{
		"struct": {
			tool:       typed(sdk.ToolSpec{}, counts{Words: 2, Unique: []string{"a"}}),
			wantSchema: countsSchema,
			want:       structured(`{"words":2,"unique":["a"]}`),
		},
		"pointer is described by its element": {
			tool:       typed(sdk.ToolSpec{}, &counts{Words: 3}),
			wantSchema: countsSchema,
			want:       structured(`{"words":3}`),
		},
		"nil pointer is the zero object": {
			tool:       typed(sdk.ToolSpec{}, (*counts)(nil)),
			wantSchema: countsSchema,
			want:       structured(`{"words":0}`),
		},
		"map": {
			tool:       typed(sdk.ToolSpec{}, map[string]int{"a": 1}),
			wantSchema: `{"type":"object","additionalProperties":{"type":"integer"}}`,
			want:       structured(`{"a":1}`),
		},
		"nil map is the empty object": {
			tool:       typed(sdk.ToolSpec{}, map[string]int(nil)),
			wantSchema: `{"type":"object","additionalProperties":{"type":"integer"}}`,
			want:       structured(`{}`),
		},
		"the spec's schema wins": {
			tool:       typed(sdk.ToolSpec{OutputSchema: json.RawMessage(`{"type":"object"}`)}, counts{Words: 1}),
			wantSchema: `{"type":"object"}`,
			want:       structured(`{"words":1}`),
		},
		"a *Result is the result": {
			tool: typed(sdk.ToolSpec{}, sdk.TextResult("plain")),
			want: sdk.TextResult("plain"),
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tc.wantSchema, string(tc.tool.Spec.OutputSchema)); diff != "" {
				t.Errorf("output schema (-want +got):\n%s", diff)
			}
			res, err := tc.tool.Handler(context.Background(), &sdk.Request{Call: sdk.Call{Tool: "t"}})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, res); diff != "" {
				t.Errorf("result (-want +got):\n%s", diff)
			}
		})
	}
}

func TestTypedToolRefusesNonObjectOutput(t *testing.T) {
	t.Parallel()
	tests := map[string]func(){
		"int":                       func() { typed(sdk.ToolSpec{}, 1) },
		"string":                    func() { typed(sdk.ToolSpec{}, "") },
		"slice":                     func() { typed(sdk.ToolSpec{}, []counts{}) },
		"any":                       func() { typed[any](sdk.ToolSpec{}, counts{}) },
		"a struct that is a string": func() { typed(sdk.ToolSpec{}, time.Time{}) },
		"no schema at all":          func() { typed(sdk.ToolSpec{}, struct{ C chan int }{}) },
	}
	for name, declare := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			defer func() {
				msg := fmt.Sprint(recover())
				if !strings.HasPrefix(msg, `sdk: tool "t": output`) {
					t.Errorf("panic %q, want one naming tool t and its output", msg)
				}
			}()
			declare()
		})
	}
}

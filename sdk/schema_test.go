package sdk_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/jsonschema-go/jsonschema"

	"github.com/ramabana/ramabana-mcp/sdk"
)

func TestSchemaFor(t *testing.T) {
	t.Parallel()
	type args struct {
		Limit int `json:"limit,omitempty"`
		Depth int `json:"depth,omitempty"`
	}
	tests := map[string]struct {
		fix  func(props map[string]*jsonschema.Schema)
		want string
	}{
		"nil fix is MustSchemaFor": {
			want: string(sdk.MustSchemaFor[args]()),
		},
		"bounded": {
			fix: func(p map[string]*jsonschema.Schema) {
				sdk.IntDefault(p["limit"], 50, 1, 200)
				sdk.IntDefault(p["depth"], 2, 0, 0)
			},
			// The bounds in the keywords, and said in the descriptions too
			// (sdk.SaysBounds) for clients that strip the keywords.
			want: `{"type":"object","properties":{"limit":{"type":"integer","description":"(default 50, 1 to 200)","default":50,"minimum":1,"maximum":200},"depth":{"type":"integer","description":"(default 2, at least 0)","default":2,"minimum":0}},"additionalProperties":false}`,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tc.want, string(sdk.SchemaFor[args](tc.fix))); diff != "" {
				t.Errorf("schema (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSchemaForPanics(t *testing.T) {
	t.Parallel()
	defer func() {
		if recover() == nil {
			t.Error("SchemaFor of a channel did not panic")
		}
	}()
	sdk.SchemaFor[chan int](nil)
}

func TestLazySchemaFor(t *testing.T) {
	t.Parallel()
	type args struct {
		Limit int `json:"limit,omitempty"`
	}
	fixes := 0
	fix := func(p map[string]*jsonschema.Schema) {
		fixes++
		sdk.IntDefault(p["limit"], 50, 1, 200)
	}
	schema := sdk.LazySchemaFor[args](fix)
	if fixes != 0 {
		t.Fatalf("LazySchemaFor inferred the schema before its first call")
	}
	want := string(sdk.SchemaFor[args](fix))
	for range 2 {
		if diff := cmp.Diff(want, string(schema())); diff != "" {
			t.Errorf("schema (-want +got):\n%s", diff)
		}
	}
	if fixes != 2 { // SchemaFor's above, and LazySchemaFor's first call's
		t.Errorf("fix ran %d times, want 2: LazySchemaFor infers the schema once", fixes)
	}
}

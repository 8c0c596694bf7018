package search

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParamsFromSchema(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		schema string
		want   []Param
	}{
		"github create_issue": {
			schema: `{"type":"object","properties":{"owner":{"type":"string","description":"Repository owner"},"repo":{"type":"string","description":"Repository name"},"title":{"type":"string","description":"Issue title"},"labels":{"type":"array","items":{"type":"string"},"description":"Labels to apply"}},"required":["owner","repo","title"]}`,
			want:   []Param{{"labels", "Labels to apply"}, {"owner", "Repository owner"}, {"repo", "Repository name"}, {"title", "Issue title"}},
		},
		"nested object one level": {
			schema: `{"type":"object","properties":{"options":{"type":"object","description":"Options","properties":{"depth":{"type":"integer","description":"How deep"},"deeper":{"type":"object","properties":{"x":{"type":"string"}}}}},"path":{"type":"string","title":"Path"}}}`,
			want:   []Param{{"options", "Options"}, {"options.deeper", ""}, {"options.depth", "How deep"}, {"path", "Path"}},
		},
		"nullable object": {
			schema: `{"type":"object","properties":{"filter":{"type":["object","null"],"properties":{"state":{"description":"open or closed"}}}}}`,
			want:   []Param{{"filter", ""}, {"filter.state", "open or closed"}},
		},
		"boolean property schema": {
			schema: `{"type":"object","properties":{"anything":true}}`,
			want:   []Param{{"anything", ""}},
		},
		"no properties": {schema: `{"type":"object"}`},
		"malformed":     {schema: `{"type":"object","properties":`},
		"not an object": {schema: `[1,2]`},
		"empty":         {schema: ``},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tc.want, ParamsFromSchema(json.RawMessage(tc.schema))); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

package mcpserver

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ramabana/ramabana-mcp/host/internal/catalog"
	"github.com/ramabana/ramabana-mcp/sdk"
)

// TestUpstreamToolKeepsItsTaskMeta: an upstream server's _meta is sent as
// it came; a task key it left out is filled in from the one it sent, and a
// server that sent neither gets completion under both.
func TestUpstreamToolKeepsItsTaskMeta(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		meta map[string]any
		want string
	}{
		"none": {nil, `{"fastmcp":{"tags":["completion"]},"mcp_server":{"task":"completion"}}`},
		"both": {
			map[string]any{"mcp_server": map[string]any{"task": "context", "as_user_message": true}, "fastmcp": map[string]any{"tags": []any{"context", "docs"}}},
			`{"fastmcp":{"tags":["context","docs"]},"mcp_server":{"as_user_message":true,"task":"context"}}`,
		},
		"mcp_server only": {
			map[string]any{"mcp_server": map[string]any{"task": "skill", "mode": "always-on"}},
			`{"fastmcp":{"tags":["skill"]},"mcp_server":{"mode":"always-on","task":"skill"}}`,
		},
		"FastMCP tags only": {
			map[string]any{"fastmcp": map[string]any{"tags": []any{"admin", "evaluation"}}, "vendor": 1},
			`{"fastmcp":{"tags":["admin","evaluation"]},"mcp_server":{"task":"evaluation"},"vendor":1}`,
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			spec := sdk.ToolSpec{Name: "up__tool", InputSchema: json.RawMessage(`{"type":"object"}`)}
			e := catalog.NewUpstreamEntry(spec, "mcp:up", "mcp:up", &catalog.Upstream{Server: "up", Meta: tc.meta}, nil)
			b, err := json.Marshal(mcpTool(e).Meta)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, string(b)); diff != "" {
				t.Errorf("_meta (-want +got):\n%s", diff)
			}
		})
	}
}

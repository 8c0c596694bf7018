package mcpserver

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestCompleteLeavesOutGoneStandIns: a page the SDK listed gets each tool
// in its MCP form; a stand-in whose tool went before the page was
// completed is left out (never listed as a bare object schema); a tool the
// session gave the SDK whole stays.
func TestCompleteLeavesOutGoneStandIns(t *testing.T) {
	full := &mcp.Tool{Name: "view_file", InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)}
	own := &mcp.Tool{Name: "mcp_connect", InputSchema: json.RawMessage(`{"type":"object"}`)}
	tl := &tools{listed: map[string]*mcp.Tool{"view_file": full}, own: map[string]bool{"mcp_connect": true}}
	page := []*mcp.Tool{{Name: "view_file", InputSchema: standInSchema}, {Name: "gone", InputSchema: standInSchema}, own}
	got := tl.completeLocked(page)
	if want := []*mcp.Tool{full, own}; !slices.Equal(got, want) {
		t.Errorf("completed page %v, want %v", got, want)
	}
}

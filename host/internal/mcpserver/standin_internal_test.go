package mcpserver

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ramabana/ramabana-mcp/host/internal/catalog"
	"github.com/ramabana/ramabana-mcp/sdk"
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

// TestStandsIn: which tools the SDK may hold a stand-in of, and which it
// must be given whole to check.
func TestStandsIn(t *testing.T) {
	for _, c := range []struct {
		schema string
		want   bool
	}{
		{`{"type":"object","properties":{"path":{"type":"string","description":"a \u003cpath\u003e \u0026 more"}}}`, true},
		{`{"type":"object","properties":{"p":{"type":"string","x-mcp-header":"P"}}}`, false},
		{`{"type":"object","properties":{"p":{"type":"string","x\u002dmcp-header":"P"}}}`, false},
		{`{"type":"object","properties":{"p":{"type":"string","\u0078-mcp-header":"P"}}}`, false},
		{`{"type":"object","properties":{"p":{"type":"string","description":"C:\\users"}}}`, false}, // not an escape, but taken as one: given whole
		{`{"TYPE":"object"}`, false},
		{`{"type":"string","Type":"object"}`, false},
		{`{"type":"object"}`, true},
	} {
		e := &catalog.Entry{Spec: sdk.ToolSpec{Name: "t", InputSchema: json.RawMessage(c.schema)}}
		if got := standsIn(e); got != c.want {
			t.Errorf("standsIn(%s) = %v, want %v", c.schema, got, c.want)
		}
	}
	up := &catalog.Entry{Spec: sdk.ToolSpec{Name: "t", InputSchema: json.RawMessage(`{"type":"object"}`)}, Upstream: &catalog.Upstream{}}
	if standsIn(up) {
		t.Error("an upstream server's tool stands in")
	}
}

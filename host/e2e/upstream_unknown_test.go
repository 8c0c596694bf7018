package e2e

import (
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A lazy server's tool the client cannot call is refused in words that
// fit the server's mode: mcp_connect where it is offered; under --tools
// search, which offers none, what does reach the server; and, once the
// session connected it, a write tool left out of a read-only server is
// said to be that, with --write to mount it.
func TestLazyUpstreamToolRefusalsSayWhatReachesIt(t *testing.T) {
	t.Parallel()
	cfg := mcpConfig(t, map[string]any{"later": upstreamServer("ok", map[string]any{"lazy": true})})
	refusal := func(t *testing.T, cs *mcp.ClientSession, name string, args any) string {
		t.Helper()
		res, err := call(t, cs, name, args)
		var rpc *jsonrpc.Error
		if !errors.As(err, &rpc) || rpc.Code != jsonrpc.CodeInvalidParams {
			t.Fatalf("%s = %v, %v; want an invalid-params error", name, res, err)
		}
		return rpc.Message
	}

	t.Run("all tools", func(t *testing.T) {
		t.Parallel()
		cs := startStdio(t, project(t), "--mcp-config", cfg).session
		if got, want := refusal(t, cs, "later__write_note", map[string]any{"text": "x"}),
			`Unknown tool: later__write_note (MCP server "later" is not connected: call mcp_connect with {"id": "later"} first)`; got != want {
			t.Errorf("before mcp_connect:\n got %s\nwant %s", got, want)
		}
		if res, err := call(t, cs, "mcp_connect", map[string]any{"id": "later"}); err != nil || res.IsError {
			t.Fatalf("mcp_connect = %v, %v", text(res), err)
		}
		// mcp_connect takes the one call path: it is in the activity feed.
		if res, err := call(t, cs, "activity", map[string]any{"tool": "mcp_connect"}); err != nil || !strings.Contains(text(res), "mcp_connect") {
			t.Errorf("activity of mcp_connect = %v, %v", text(res), err)
		}
		if res, err := call(t, cs, "later__echo", map[string]any{"text": "hi"}); err != nil || text(res) != "hi" {
			t.Errorf("later__echo = %v, %v", text(res), err)
		}
		if got, want := refusal(t, cs, "later__write_note", map[string]any{"text": "x"}),
			"Unknown tool: later__write_note (a write tool: this server runs read-only; start it with --write)"; got != want {
			t.Errorf("after mcp_connect:\n got %s\nwant %s", got, want)
		}
	})

	t.Run("--tools search", func(t *testing.T) {
		t.Parallel()
		cs := startStdio(t, project(t), "--mcp-config", cfg, "--tools", "search").session
		want := `Unknown tool: later__echo (MCP server "later" is lazy, and lazy servers are out of reach under --tools search, which offers no mcp_connect; ` +
			`serve its tools by removing "lazy": true from its entry in the MCP config, or start the server without --tools search and connect it with mcp_connect)`
		if got := refusal(t, cs, "invoke_tool", map[string]any{"name": "later__echo", "arguments": map[string]any{"text": "hi"}}); got != want {
			t.Errorf("invoke_tool later__echo:\n got %s\nwant %s", got, want)
		}
		if got := refusal(t, cs, "later__echo", map[string]any{"text": "hi"}); got != want {
			t.Errorf("a direct call of later__echo:\n got %s\nwant %s", got, want)
		}
	})
}

// Package skilltest serves skill tools from a real upstream MCP server,
// for tests of how the host and the ask agent take skills from upstream
// servers.
package skilltest

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Skill is one skill tool: its mode ("always-on" or "auto") and what a
// call answers (an error result when IsError).
type Skill struct {
	Mode    string
	Text    string
	IsError bool
}

// Server serves, over streamable HTTP on 127.0.0.1 until the test ends, an
// MCP server whose tools are the given skill tools, tagged as skill tools
// are (docs/agent-tasks.md), and returns its URL.
func Server(t testing.TB, tools map[string]Skill) string {
	t.Helper()
	srv := mcp.NewServer(&mcp.Implementation{Name: "docs", Version: "1"}, nil)
	for name, s := range tools {
		srv.AddTool(&mcp.Tool{
			Name: name, Description: "Use when " + name + " applies.",
			InputSchema: json.RawMessage(`{"type":"object"}`),
			Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true},
			Meta:        mcp.Meta{"mcp_server": map[string]any{"task": "skill", "mode": s.Mode}},
		}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{IsError: s.IsError, Content: []mcp.Content{&mcp.TextContent{Text: s.Text}}}, nil
		})
	}
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	t.Cleanup(ts.Close)
	return ts.URL
}

// MD is a SKILL.md of the name with body.
func MD(name, body string) string {
	return "---\nname: " + name + "\ndescription: Use when " + name + " applies.\n---\n" + body + "\n"
}

package mcpserver_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ramabana/ramabana-mcp/host/internal/hub"
	"github.com/ramabana/ramabana-mcp/host/internal/mcpserver"
	"github.com/ramabana/ramabana-mcp/host/internal/upstream"
	"github.com/ramabana/ramabana-mcp/sdk"
	"github.com/ramabana/ramabana-mcp/sdk/sdktest"
)

// policyBox declares a tool for each reason a tool is left out.
func policyBox() *sdk.Toolbox {
	ok := func(context.Context, *sdk.Request) (*sdk.Result, error) { return sdk.TextResult("ok"), nil }
	tool := func(name string, kind sdk.Kind, open bool) sdk.Tool {
		schema := json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"},"start":{"type":"integer","minimum":1}},"required":["path"],"additionalProperties":false}`)
		return sdk.Tool{Spec: sdk.ToolSpec{Name: name, Kind: kind, InputSchema: schema, Annotations: sdk.Annotations{OpenWorld: &open}}, Handler: ok}
	}
	box := sdk.NewToolbox("policy", sdk.WithVersion("1"), sdk.WithDescription("tools the policy leaves out"))
	box.AddGroup(sdk.GroupSpec{Name: "files"},
		tool("view_file", sdk.KindRead, false), tool("create_file", sdk.KindWrite, false), tool("fetch_url", sdk.KindRead, true))
	box.AddGroup(sdk.GroupSpec{Name: "git"}, tool("git_log", sdk.KindRead, false))
	box.AddGroup(sdk.GroupSpec{Name: "exhash", Mode: sdk.ModeOptIn}, tool("hash_view", sdk.KindRead, false))
	box.AddGroup(sdk.GroupSpec{Name: "old", Mode: sdk.ModeLegacy, ReplacedBy: "view_file"}, tool("old_view", sdk.KindRead, false))
	return box
}

// policyHost is a read-only host with --web=false, git opted out, an agent
// configured, and two upstream servers: one whose config denies delete_*,
// one lazy.
func policyHost(t *testing.T, opts mcpserver.Options) *mcp.ClientSession {
	t.Helper()
	box := policyBox()
	h, err := hub.New(hub.Config{
		Roots: []string{t.TempDir()}, Groups: []string{"-git"}, Agent: true,
		// The groups are the bundled table's, for --groups to name them
		// (served in-process below; no plugin starts).
		Bundled: hub.Bundled{Groups: map[string]func() sdk.Group{"policy": func() sdk.Group { return box }}},
		Upstream: upstream.NewConfig(
			upstream.Server{ID: "gh", Type: "stdio", Command: "false", Deny: []string{"delete_*"}},
			upstream.Server{ID: "later", Type: "stdio", Command: "false", Lazy: true},
		),
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.Close() })
	client, desc := sdktest.Connect(t, box, sdk.Host{})
	if err := h.AddGroup(desc.Name, client); err != nil {
		t.Fatal(err)
	}
	return serve(t, h, opts)
}

// A call of a tool the client does not have is invalid params (-32602),
// saying why the tool is absent and which flag would mount it, or the
// nearest name when there is no such tool; through invoke_tool too.
func TestUnknownToolSaysWhy(t *testing.T) {
	t.Parallel()
	cs := policyHost(t, mcpserver.Options{Version: "test"})
	capability := policyHost(t, mcpserver.Options{Version: "test", Surface: mcpserver.SurfaceSearch})
	for name, tc := range map[string]struct {
		tool       string
		capability bool // in capability mode
		invoke     bool // through invoke_tool, in capability mode
		want       string
	}{
		"write tool":              {tool: "create_file", want: "Unknown tool: create_file (a write tool: this server runs read-only; start it with --write)"},
		"network tool":            {tool: "fetch_url", want: "Unknown tool: fetch_url (a network tool: this server runs with --web=false; start it without that)"},
		"opted out":               {tool: "git_log", want: `Unknown tool: git_log (its group "git" is opted out with --groups -git; start it without that)`},
		"opt-in":                  {tool: "hash_view", want: `Unknown tool: hash_view (its group "exhash" is opt-in; start the server with --groups exhash)`},
		"legacy":                  {tool: "old_view", want: `Unknown tool: old_view (its group "old" is legacy, left out when an agent is configured; use view_file instead)`},
		"denied":                  {tool: "gh__delete_repo", want: `Unknown tool: gh__delete_repo (the config's allow and deny lists for MCP server "gh" leave it out)`},
		"lazy":                    {tool: "later__query", want: `Unknown tool: later__query (MCP server "later" is not connected: call mcp_connect with {"id": "later"} first)`},
		"misspelt":                {tool: "veiw_file", want: "Unknown tool: veiw_file (no tool has that name; did you mean view_file?)"},
		"no such tool":            {tool: "make_coffee", want: "Unknown tool: make_coffee (no tool has that name)"},
		"invoke, write":           {tool: "create_file", invoke: true, want: "Unknown tool: create_file (a write tool: this server runs read-only; start it with --write)"},
		"invoke, nearly":          {tool: "view_files", invoke: true, want: "Unknown tool: view_files (no tool has that name; did you mean view_file?)"},
		"capability mode, direct": {tool: "view_file", capability: true, want: "Unknown tool: view_file (this server lists only search_capabilities, invoke_tool and ask: call it with invoke_tool)"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			params := &mcp.CallToolParams{Name: tc.tool, Arguments: map[string]any{"path": "a"}}
			session := cs
			if tc.invoke || tc.capability {
				session = capability
			}
			if tc.invoke {
				params = &mcp.CallToolParams{Name: mcpserver.InvokeTool, Arguments: map[string]any{"name": tc.tool, "arguments": map[string]any{"path": "a"}}}
			}
			res, err := session.CallTool(context.Background(), params)
			var rpc *jsonrpc.Error
			if !errors.As(err, &rpc) {
				t.Fatalf("CallTool = %v, %v; want a JSON-RPC error", res, err)
			}
			if rpc.Code != jsonrpc.CodeInvalidParams {
				t.Errorf("code %d, want %d (invalid params)", rpc.Code, jsonrpc.CodeInvalidParams)
			}
			if diff := cmp.Diff(tc.want, rpc.Message); diff != "" {
				t.Errorf("message (-want +got):\n%s", diff)
			}
		})
	}
}

// Argument errors reach the client as the tool's error result, in words,
// whether the tool is called directly or through invoke_tool.
func TestArgumentErrorsReachTheClient(t *testing.T) {
	t.Parallel()
	cs := policyHost(t, mcpserver.Options{Version: "test"})
	capability := policyHost(t, mcpserver.Options{Version: "test", Surface: mcpserver.SurfaceSearch})
	want := `invalid arguments for view_file: unknown argument "file"; did you mean "path"? view_file takes: path, start`
	for name, call := range map[string]func() (*mcp.CallToolResult, error){
		"direct": func() (*mcp.CallToolResult, error) {
			return cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "view_file", Arguments: map[string]any{"file": "a"}})
		},
		"invoke_tool": func() (*mcp.CallToolResult, error) {
			return capability.CallTool(context.Background(), &mcp.CallToolParams{Name: mcpserver.InvokeTool,
				Arguments: map[string]any{"name": "view_file", "arguments": map[string]any{"file": "a"}}})
		},
	} {
		res, err := call()
		if err != nil || !res.IsError {
			t.Fatalf("%s: %v, %v; want a tool error", name, res, err)
		}
		if diff := cmp.Diff(want, res.Content[0].(*mcp.TextContent).Text); diff != "" {
			t.Errorf("%s (-want +got):\n%s", name, diff)
		}
	}
}

package hub

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ramabana/ramabana-mcp/host/internal/upstream"
	"github.com/ramabana/ramabana-mcp/sdk"
	"github.com/ramabana/ramabana-mcp/sdk/sdktest"
)

// An ask turn's tool calls take the host's one call path: its unknown
// tools say why by the agent's policy (write tools are its to call, an
// opted-out group's are not), and its argument errors are in words.
func TestAgentCallSaysWhy(t *testing.T) {
	t.Parallel()
	schema := json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"},"mode":{"type":"string","enum":["a","b"]}},"required":["path"],"additionalProperties":false}`)
	ok := func(context.Context, *sdk.Request) (*sdk.Result, error) { return sdk.TextResult("ok"), nil }
	box := sdk.NewToolbox("box", sdk.WithVersion("1"), sdk.WithDescription("tools"))
	box.AddGroup(sdk.GroupSpec{Name: "files"}, sdk.Tool{Spec: sdk.ToolSpec{Name: "create_file", Kind: sdk.KindWrite, InputSchema: schema}, Handler: ok})
	box.AddGroup(sdk.GroupSpec{Name: "git"}, sdk.Tool{Spec: sdk.ToolSpec{Name: "git_log", Kind: sdk.KindRead, InputSchema: schema}, Handler: ok})
	// The groups are the bundled table's, for --groups to name them (the
	// test serves them in-process; it starts no plugin).
	bundled := Bundled{Groups: map[string]func() sdk.Group{"box": func() sdk.Group { return box }}}
	h, err := New(Config{Roots: []string{t.TempDir()}, Agent: true, Groups: []string{"-git"}, Bundled: bundled})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.Close() })
	client, desc := sdktest.Connect(t, box, sdk.Host{})
	if err := h.AddGroup(desc.Name, client); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for name, tc := range map[string]struct {
		tool, args string
		want       string // the error, or the result's text
	}{
		"write tool is the agent's": {"create_file", `{"path":"a"}`, "ok"},
		"bad argument":              {"create_file", `{"path":"a","mode":"c"}`, `invalid arguments for create_file: "mode" must be one of "a", "b" (got "c")`},
		"opted out":                 {"git_log", `{"path":"a"}`, `Unknown tool: git_log (its group "git" is opted out with --groups -git; start it without that)`},
		"misspelt":                  {"create_files", `{}`, "Unknown tool: create_files (no tool has that name; did you mean create_file?)"},
	} {
		res, err := h.AgentCall(ctx, tc.tool, json.RawMessage(tc.args), nil)
		got := ""
		switch {
		case errors.Is(err, sdk.ErrUnknownTool):
			got = err.Error()
		case err != nil:
			t.Fatalf("%s: %v", name, err)
		default:
			got = res.Text()
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", name, diff)
		}
	}
	// The client, read-only, may not call the write tool; the agent may.
	if _, err := h.Call(ctx, "create_file", json.RawMessage(`{"path":"a"}`), nil); err == nil ||
		err.Error() != "Unknown tool: create_file (a write tool: this server runs read-only; start it with --write)" {
		t.Errorf("client call of a write tool: %v", err)
	}
}

// A lazy server's tool the client lacks is explained by what reaches it:
// mcp_connect when the client is offered it; when it is not (--tools
// search), the config without "lazy", the server without --tools search,
// or ask; and once the conversation connected the server, the serving
// policy's reason for the tool it was listed (a write tool without
// --write, a network tool under --web=false), which connecting again
// would not lift.
func TestUnknownLazyToolSaysWhatReachesIt(t *testing.T) {
	t.Parallel()
	later := upstream.Server{ID: "later", Type: upstream.TypeStdio, Command: "false", Lazy: true}
	newHost := func(t *testing.T, web, ask bool) *Host {
		h, err := New(Config{Roots: []string{t.TempDir()}, Web: web, Upstream: upstream.NewConfig(later)})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = h.Close() })
		if ask {
			closed := false
			box := sdk.NewToolbox(AgentGroup, sdk.WithVersion("1"))
			box.AddGroup(sdk.GroupSpec{Name: AgentGroup}, sdk.Tool{Spec: sdk.ToolSpec{Name: "ask", Kind: sdk.KindRead,
				InputSchema: json.RawMessage(`{"type":"object"}`), Annotations: sdk.Annotations{OpenWorld: &closed}},
				Handler: func(context.Context, *sdk.Request) (*sdk.Result, error) { return sdk.TextResult("ok"), nil }})
			client, desc := sdktest.Connect(t, box, sdk.Host{})
			if err := h.AddGroup(desc.Name, client); err != nil {
				t.Fatal(err)
			}
		}
		return h
	}
	// connected is a conversation whose mcp_connect listed later's tools:
	// write_note without hints (a write tool that may reach the network),
	// echo read-only and closed.
	connected := func(h *Host, agent bool) *UpstreamSession {
		s := h.NewUpstreamSession(agent)
		t.Cleanup(func() { _ = s.Close() })
		closed := false
		for _, tool := range []upstream.Tool{
			{Namespaced: "later__write_note"},
			{Namespaced: "later__echo", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: &closed}},
		} {
			e := UpstreamEntry(later, tool, nil)
			s.served[e.Spec.Name] = e
			if h.callable(e, agent) {
				s.entries[e.Spec.Name] = e
			}
		}
		return s
	}
	web, webAsk, noWeb := newHost(t, true, false), newHost(t, true, true), newHost(t, false, false)
	const (
		connectFirst = `MCP server "later" is not connected: call mcp_connect with {"id": "later"} first`
		noConnect    = `MCP server "later" is lazy, and lazy servers are out of reach under --tools search, which offers no mcp_connect; ` +
			`serve its tools by removing "lazy": true from its entry in the MCP config, or start the server without --tools search and connect it with mcp_connect`
		writeTool = "a write tool: this server runs read-only; start it with --write"
		network   = "a network tool: this server runs with --web=false; start it without that"
	)
	for name, tc := range map[string]struct {
		err  error
		tool string
		want string
	}{
		"not connected":                     {err: web.UnknownTool("later__echo", false), tool: "later__echo", want: connectFirst},
		"not connected, agent":              {err: web.UnknownTool("later__echo", true), tool: "later__echo", want: connectFirst},
		"capability mode":                   {err: web.UnknownToolNoConnect("later__echo"), tool: "later__echo", want: noConnect},
		"capability mode with ask":          {err: webAsk.UnknownToolNoConnect("later__echo"), tool: "later__echo", want: noConnect + "; or leave the task to ask, whose agent connects lazy servers for its own turn"},
		"capability mode, no such":          {err: web.UnknownToolNoConnect("nope__x"), tool: "nope__x", want: "no tool has that name"},
		"connected write tool":              {err: connected(web, false).UnknownTool("later__write_note"), tool: "later__write_note", want: writeTool},
		"connected, not listed":             {err: connected(web, false).UnknownTool("later__nope"), tool: "later__nope", want: connectFirst},
		"another conversation connected it": {err: web.UnknownTool("later__write_note", false), tool: "later__write_note", want: connectFirst},
		"connected, --web=false":            {err: connected(noWeb, false).UnknownTool("later__write_note"), tool: "later__write_note", want: network},
		"connected, agent, --web=false":     {err: connected(noWeb, true).UnknownTool("later__write_note"), tool: "later__write_note", want: network},
	} {
		if want := "Unknown tool: " + tc.tool + " (" + tc.want + ")"; tc.err == nil || tc.err.Error() != want || !errors.Is(tc.err, sdk.ErrUnknownTool) {
			t.Errorf("%s:\n got %v\nwant %s", name, tc.err, want)
		}
	}
}

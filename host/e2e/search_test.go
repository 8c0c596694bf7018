package e2e

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// searchResult is search_capabilities' structured answer.
type searchResult struct {
	Servers []struct {
		Name         string `json:"name"`
		Description  string `json:"description"`
		Instructions string `json:"instructions"`
		ToolCount    int    `json:"tool_count"`
		Tools        []struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			InputSchema json.RawMessage `json:"inputSchema"`
			Annotations map[string]any  `json:"annotations"`
		} `json:"tools"`
	} `json:"servers"`
}

func searchFor(t *testing.T, cs *mcp.ClientSession, args map[string]any) (searchResult, *mcp.CallToolResult) {
	t.Helper()
	res, err := call(t, cs, "search_capabilities", args)
	if err != nil {
		t.Fatalf("search_capabilities(%v): %v", args, err)
	}
	var out searchResult
	if !res.IsError {
		b, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(b, &out); err != nil {
			t.Fatalf("search result: %v\n%s", err, b)
		}
	}
	return out, res
}

// searchNames is the names search_capabilities finds for query.
func searchNames(t *testing.T, cs *mcp.ClientSession, query string) []string {
	t.Helper()
	got, _ := searchFor(t, cs, map[string]any{"query": query})
	return got.names()
}

// names lists the tools found, in rank order across servers.
func (r searchResult) names() []string {
	var out []string
	for _, s := range r.Servers {
		for _, tl := range s.Tools {
			out = append(out, tl.Name)
		}
	}
	return out
}

// search_capabilities ranks every tool the client may call, plugins and
// upstream servers alike, grouped by server with the server's
// description and instructions, each hit ready to call.
func TestSearchCapabilities(t *testing.T) {
	t.Parallel()
	cfg := mcpConfig(t, map[string]any{"up": upstreamServer("ok", map[string]any{"readonly": true})})
	s := startStdio(t, project(t), "--mcp-config", cfg, "--upstream-wait", "2m")
	cs := s.session
	tool := tools(t, cs)["search_capabilities"]
	if tool == nil {
		t.Fatal("no search_capabilities")
	}
	for _, server := range []string{"files", "git", "up"} {
		if !strings.Contains(tool.Description, server) {
			t.Errorf("the description does not name %q:\n%s", server, tool.Description)
		}
	}

	got, _ := searchFor(t, cs, map[string]any{"query": "search the code for a regex"})
	if names := got.names(); len(names) == 0 || names[0] != "search_code" {
		t.Errorf("search the code: %v", names)
	}
	if names := searchNames(t, cs, "show the commit history"); len(names) == 0 || names[0] != "git_log" {
		t.Errorf("commit history: %v", names)
	}
	for _, s := range got.Servers {
		for _, tl := range s.Tools {
			if len(tl.InputSchema) == 0 || tl.Annotations == nil {
				t.Errorf("%s lacks its schema or annotations", tl.Name)
			}
		}
	}

	got, _ = searchFor(t, cs, map[string]any{"query": "echo some text back", "server": "up"})
	if len(got.Servers) != 1 || got.Servers[0].Name != "up" || got.Servers[0].Instructions != "test upstream: ok" ||
		got.Servers[0].Description != "test upstream in mode ok" || got.Servers[0].Tools[0].Name != "up__echo" {
		t.Errorf("echo in up: %+v", got)
	}

	// Only what the session may call: no write tool without --write.
	got, _ = searchFor(t, cs, map[string]any{"query": "create a new file with some content", "limit": 50})
	if slices.Contains(got.names(), "create_file") {
		t.Errorf("a write tool was found on a read-only server: %v", got.names())
	}

	for _, q := range []string{"", "   ", "the of and", "???"} {
		if _, res := searchFor(t, cs, map[string]any{"query": q}); !res.IsError {
			t.Errorf("query %q: no error", q)
		}
	}
}

// Capability mode: the client sees search_capabilities and invoke_tool,
// and invoke_tool is a direct call in all but name.
func TestCapabilityMode(t *testing.T) {
	t.Parallel()
	s := startStdio(t, project(t), "--tools", "search")
	cs := s.session
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	slices.Sort(names)
	if !slices.Equal(names, []string{"invoke_tool", "search_capabilities"}) {
		t.Errorf("tools/list = %v", names)
	}
	if b, _ := json.Marshal(res); len(b) > 2048 {
		t.Errorf("tools/list is %d bytes, want at most 2 KB", len(b))
	} else {
		t.Logf("capability mode's tools/list: %d bytes", len(b))
	}

	if names := searchNames(t, cs, "git log"); len(names) == 0 || names[0] != "git_log" {
		t.Fatalf("git log: %v", names)
	}
	out, err := call(t, cs, "invoke_tool", map[string]any{"name": "view_file", "arguments": map[string]any{"path": "pkg/sizes.py"}})
	if err != nil || out.IsError || !strings.Contains(text(out), "RESERVE = 16_384") {
		t.Errorf("invoke_tool view_file = %v, %v", out, err)
	}
	// The errors of a direct call.
	if out, _ := call(t, cs, "invoke_tool", map[string]any{"name": "view_file", "arguments": map[string]any{"nope": 1}}); !out.IsError || !strings.Contains(text(out), "invalid arguments for view_file") {
		t.Errorf("bad arguments: %v", text(out))
	}
	if _, err := call(t, cs, "invoke_tool", map[string]any{"name": "create_file", "arguments": map[string]any{"path": "x", "content": "y"}}); err == nil || !strings.Contains(err.Error(), "create_file") {
		t.Errorf("a write tool on a read-only server: %v", err)
	}
	// Not listed, so not callable directly; through invoke_tool it is.
	if _, err := call(t, cs, "activity", map[string]any{}); err == nil {
		t.Error("an unlisted tool was callable directly in capability mode")
	}
	act, err := call(t, cs, "invoke_tool", map[string]any{"name": "activity", "arguments": map[string]any{"tool": "view_file"}})
	if err != nil || !strings.Contains(text(act), "view_file(files) ok") {
		t.Errorf("the invoked call is not in the activity feed as itself: %v, %v", text(act), err)
	}
}

// TestInvokeToolsHintsFollowWhatItReaches: in capability mode invoke_tool
// is read-only when every tool it can reach is (codex exec approves such
// tools by itself, and refused every call before), open-world only when
// one of them is, destructive when one of them is. A read-only server
// still has act tools: inspect_python (it runs python) unless the code
// group is left out, and with the web generate_image, which writes a file.
func TestInvokeToolsHintsFollowWhatItReaches(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args                  []string
		readOnly, destructive bool
		openWorld             bool
	}{
		{[]string{"--web=false", "--groups", "-code,-legacy"}, true, false, false},
		{[]string{"--web=false"}, false, false, false},
		{[]string{}, false, true, true}, // generate_image: open-world, and it writes the image's file
		{[]string{"--write", "--web=false"}, false, true, false},
	} {
		t.Run(strings.Join(append([]string{"flags"}, tc.args...), " "), func(t *testing.T) {
			t.Parallel()
			s := startStdio(t, project(t), append([]string{"--tools", "search"}, tc.args...)...)
			invoke := tools(t, s.session)["invoke_tool"]
			if invoke == nil || invoke.Annotations == nil {
				t.Fatalf("invoke_tool = %+v", invoke)
			}
			a := invoke.Annotations
			destructive := a.DestructiveHint == nil && !a.ReadOnlyHint || a.DestructiveHint != nil && *a.DestructiveHint // absent means true, unless read-only
			openWorld := a.OpenWorldHint == nil || *a.OpenWorldHint
			if a.ReadOnlyHint != tc.readOnly || destructive != tc.destructive || openWorld != tc.openWorld {
				t.Errorf("%v: invoke_tool's hints = read-only %v, destructive %v, open-world %v; want %v, %v, %v",
					tc.args, a.ReadOnlyHint, destructive, openWorld, tc.readOnly, tc.destructive, tc.openWorld)
			}
		})
	}
}

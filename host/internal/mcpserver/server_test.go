package mcpserver_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ramabana/ramabana-mcp/host/internal/catalog"
	"github.com/ramabana/ramabana-mcp/host/internal/hub"
	"github.com/ramabana/ramabana-mcp/host/internal/mcpserver"
	"github.com/ramabana/ramabana-mcp/internal/proctest"
	"github.com/ramabana/ramabana-mcp/sdk"
	"github.com/ramabana/ramabana-mcp/sdk/sdktest"
	"github.com/ramabana/ramabana-mcp/tasks"
)

var obj = json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}}}`)

// taskBox declares one tool of each task, in a default and a legacy group.
func taskBox() *sdk.Toolbox {
	ok := func(context.Context, *sdk.Request) (*sdk.Result, error) { return sdk.TextResult("ok"), nil }
	tool := func(spec sdk.ToolSpec) sdk.Tool {
		spec.InputSchema, spec.Kind = obj, sdk.KindRead
		return sdk.Tool{Spec: spec, Handler: ok}
	}
	yes := true
	box := sdk.NewToolbox("tasks", sdk.WithVersion("1"), sdk.WithDescription("tools of every task"))
	box.AddGroup(sdk.GroupSpec{Name: "tasks"},
		tool(sdk.ToolSpec{Name: "complete", Description: "A completion tool."}),
		tool(sdk.ToolSpec{Name: "policies", Task: sdk.TaskContext, AsUserMessage: true}),
		tool(sdk.ToolSpec{Name: "style", Task: sdk.TaskSkill, Mode: sdk.SkillAlwaysOn}),
		tool(sdk.ToolSpec{Name: "grounded", Task: sdk.TaskEvaluation}),
		tool(sdk.ToolSpec{Name: "audit", Task: sdk.TaskPostTool}),
		tool(sdk.ToolSpec{Name: "ping", Task: sdk.TaskNone}),
		tool(sdk.ToolSpec{Name: "fetch", Annotations: sdk.Annotations{OpenWorld: &yes}}),
	)
	box.AddGroup(sdk.GroupSpec{Name: "old", Mode: sdk.ModeLegacy, ReplacedBy: "complete"},
		tool(sdk.ToolSpec{Name: "old_complete"}),
	)
	return box
}

// inProcessHost serves a group without a process, through the same catalog,
// policy and export as plugins.
func inProcessHost(t *testing.T, cfg hub.Config, g sdk.Group) *mcp.ClientSession {
	t.Helper()
	cfg.Roots = []string{t.TempDir()}
	h, err := hub.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.Close() })
	client, desc := sdktest.Connect(t, g, sdk.Host{})
	if err := h.AddGroup(desc.Name, client); err != nil {
		t.Fatal(err)
	}
	return serve(t, h, mcpserver.Options{Version: "test"})
}

// serve connects an MCP client to a server over h, in memory.
func serve(t *testing.T, h *hub.Host, opts mcpserver.Options) *mcp.ClientSession {
	t.Helper()
	st, ct := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := mcpserver.New(h, opts).Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

func TestExportedToolsCarryTaskMeta(t *testing.T) {
	t.Parallel()
	cs := inProcessHost(t, hub.Config{Web: true}, taskBox())
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]any{}
	for _, tool := range res.Tools {
		if tool.Name == "activity" || tool.Name == "changes" || tool.Name == "search_capabilities" {
			continue // the host's own session and search groups
		}
		got[tool.Name] = tool.Meta[mcpserver.MetaKey]
		info := tasks.Of(tool)
		if diff := cmp.Diff(map[string]any{"tags": []any{string(info.Task)}}, tool.Meta[tasks.FastMCPKey]); diff != "" {
			t.Errorf("%s _meta.fastmcp (-want +got):\n%s", tool.Name, diff)
		}
		if tool.Name == "fetch" && !*tool.Annotations.OpenWorldHint {
			t.Errorf("fetch is not open-world")
		}
		if tool.Name == "old_complete" {
			if diff := cmp.Diff(map[string]any{"replaced_by": "complete"}, tool.Meta["deprecated"]); diff != "" {
				t.Errorf("legacy tool meta (-want +got):\n%s", diff)
			}
		}
	}
	want := map[string]any{
		"complete":     map[string]any{"task": "completion"},
		"policies":     map[string]any{"task": "context", "as_user_message": true},
		"style":        map[string]any{"task": "skill", "mode": "always-on"},
		"grounded":     map[string]any{"task": "evaluation"},
		"audit":        map[string]any{"task": "post_tool"},
		"ping":         map[string]any{"task": "none"},
		"fetch":        map[string]any{"task": "completion"},
		"old_complete": map[string]any{"task": "completion"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("_meta.mcp_server (-want +got):\n%s", diff)
	}
}

func TestPolicyLeavesOutNetworkAndLegacyTools(t *testing.T) {
	t.Parallel()
	cs := inProcessHost(t, hub.Config{Web: false}, taskBox())
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range res.Tools {
		if tool.Name == "fetch" {
			t.Error("open-world tool mounted with --web=false")
		}
	}
	_, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "fetch", Arguments: map[string]any{}})
	if err == nil || !strings.Contains(err.Error(), "Unknown tool: fetch") {
		t.Errorf("calling a left-out tool: %v, want unknown tool", err)
	}
	p := catalog.Policy{Web: true, Agent: true}
	if ok, why := p.Mounted(&catalog.Entry{Group: "old", GroupMode: sdk.ModeLegacy}); ok || !strings.Contains(why, "legacy") {
		t.Errorf("legacy group with an agent: mounted=%v (%s)", ok, why)
	}
}

// A call of a tool whose answer depends on the whole catalog
// (search_capabilities) waits for the host to settle, as tools/list does,
// so it does not miss tools still starting; a plugin tool's call does not.
func TestCatalogWideToolsWaitForTheHost(t *testing.T) {
	t.Parallel()
	h, err := hub.New(hub.Config{Roots: []string{t.TempDir()}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.Close() })
	client, desc := sdktest.Connect(t, taskBox(), sdk.Host{})
	if err := h.AddGroup(desc.Name, client); err != nil {
		t.Fatal(err)
	}
	cs := serve(t, h, mcpserver.Options{Version: "test", ReadyBy: time.Now().Add(time.Hour)})
	ctx := context.Background()

	// The host has not started: a tool the server has is called at once.
	if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "complete", Arguments: map[string]any{}}); err != nil || res.IsError {
		t.Fatalf("complete before the host settled = %v, %v", res, err)
	}
	found := make(chan []string, 1)
	go func() {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: hub.SearchTool, Arguments: map[string]any{"query": "late arrival"}})
		var out struct {
			Servers []struct{ Tools []struct{ Name string } }
		}
		if err == nil && !res.IsError {
			b, _ := json.Marshal(res.StructuredContent)
			_ = json.Unmarshal(b, &out)
		}
		var names []string
		for _, s := range out.Servers {
			for _, tl := range s.Tools {
				names = append(names, tl.Name)
			}
		}
		found <- names
	}()
	// A group that arrives while the search waits, then the host settles.
	late := sdk.NewToolbox("late", sdk.WithVersion("1"), sdk.WithDescription("arrives late"))
	late.AddGroup(sdk.GroupSpec{Name: "late"}, sdk.Tool{
		Spec:    sdk.ToolSpec{Name: "late_arrival", Description: "A tool that arrives late.", InputSchema: obj, Kind: sdk.KindRead},
		Handler: func(context.Context, *sdk.Request) (*sdk.Result, error) { return sdk.TextResult("ok"), nil },
	})
	lc, ld := sdktest.Connect(t, late, sdk.Host{})
	if err := h.AddGroup(ld.Name, lc); err != nil {
		t.Fatal(err)
	}
	if err := h.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if names := <-found; !slices.Contains(names, "late_arrival") {
		t.Errorf("search_capabilities before the host settled found %v, want late_arrival, which arrived while it waited", names)
	}
}

// listChanged watches a server's notifications/tools/list_changed on one
// session: how many the SDK sent (tried), how many came out of the
// server's own middleware (passed: held back or sent), how many the client
// read. Each waits at gate, when it is not nil, until it is closed.
type listChanged struct {
	mu                  sync.Mutex
	tried, passed, read int
	gate                chan struct{}
	cs                  *mcp.ClientSession
}

// watchListChanged connects a client of the protocol clients speak today
// (which gets list_changed unasked) to srv, and watches its list_changed.
// It returns once the session is attached (a ping answered).
func watchListChanged(t *testing.T, srv *mcp.Server, gate chan struct{}) *listChanged {
	t.Helper()
	l := &listChanged{gate: gate}
	// Outermost: it sees each list_changed as the SDK sends it.
	srv.AddSendingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method != "notifications/tools/list_changed" {
				return next(ctx, method, req)
			}
			l.add(&l.tried)
			if l.gate != nil {
				<-l.gate
			}
			res, err := next(ctx, method, req)
			l.add(&l.passed)
			return res, err
		}
	})
	st, ct := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	tap := readTap{ct, func(m jsonrpc.Message) {
		if r, ok := m.(*jsonrpc.Request); ok && r.Method == "notifications/tools/list_changed" {
			l.add(&l.read)
		}
	}}
	if l.cs, err = mcp.NewClient(&mcp.Implementation{Name: "test"}, nil).Connect(ctx, tap, &mcp.ClientSessionOptions{ProtocolVersion: legacy}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.cs.Close() })
	if err := l.cs.Ping(ctx, nil); err != nil { // the session is attached
		t.Fatal(err)
	}
	return l
}

func (l *listChanged) add(n *int) { l.mu.Lock(); *n++; l.mu.Unlock() }

func (l *listChanged) count(n *int) int { l.mu.Lock(); defer l.mu.Unlock(); return *n }

// announced is how many list_changed the client has read: a message
// written before a ping's answer is read before it.
func (l *listChanged) announced(t *testing.T) int {
	t.Helper()
	if err := l.cs.Ping(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	return l.count(&l.read)
}

// listed is the names of the tools/list's tools.
func (l *listChanged) listed(t *testing.T) []string {
	t.Helper()
	res, err := l.cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	return names
}

// addLateGroup adds a group of one tool, NAME_tool, to h.
func addLateGroup(t *testing.T, h *hub.Host, name string) {
	t.Helper()
	box := sdk.NewToolbox(name, sdk.WithVersion("1"), sdk.WithDescription("arrives late"))
	box.AddGroup(sdk.GroupSpec{Name: name}, sdk.Tool{
		Spec:    sdk.ToolSpec{Name: name + "_tool", Description: "A tool that arrives late.", InputSchema: obj, Kind: sdk.KindRead},
		Handler: func(context.Context, *sdk.Request) (*sdk.Result, error) { return sdk.TextResult("ok"), nil },
	})
	c, d := sdktest.Connect(t, box, sdk.Host{})
	if err := h.AddGroup(d.Name, c); err != nil {
		t.Fatal(err)
	}
}

// TestNoListChangedForToolsAlreadyListed: tools that arrive after
// initialize, before the client's first tools/list is answered (every
// start: the plugins' tools come behind initialize), are in that list, and
// no tools/list_changed follows to make the client list them again, even
// one the SDK sends after the list. A change after it is announced.
func TestNoListChangedForToolsAlreadyListed(t *testing.T) {
	t.Parallel()
	h, err := hub.New(hub.Config{Roots: []string{t.TempDir()}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.Close() })
	srv := mcpserver.New(h, mcpserver.Options{Version: "test", ReadyBy: time.Now().Add(time.Hour)})
	gate := make(chan struct{})
	l := watchListChanged(t, srv, gate)
	if !proctest.Await(func() bool { return l.count(&l.tried) > 0 }) {
		// The session's first load of the host's own tools.
		t.Fatal("the SDK never sent tools/list_changed for the session's first load")
	}
	addLateGroup(t, h, "early") // after initialize, before the first listing
	if !proctest.Await(func() bool { return l.count(&l.tried) > 1 }) {
		t.Fatal("the SDK never sent tools/list_changed for early_tool")
	}
	ctx := context.Background()
	if err := h.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if names := l.listed(t); !slices.Contains(names, "early_tool") {
		t.Fatalf("the first tools/list = %v, without early_tool", names)
	}
	close(gate) // the held notifications go on, after the list
	if !proctest.Await(func() bool { return l.count(&l.passed) == l.count(&l.tried) }) {
		t.Fatal("a held notification never went on")
	}
	if n := l.announced(t); n != 0 {
		t.Errorf("%d tools/list_changed after a first listing that held the change", n)
	}

	addLateGroup(t, h, "later") // after the listing
	if !proctest.Await(func() bool { return l.announced(t) > 0 }) {
		t.Error("no tools/list_changed for a change after the first listing")
	}
	if names := l.listed(t); !slices.Contains(names, "later_tool") {
		t.Errorf("tools/list after the change = %v, without later_tool", names)
	}
}

// TestNoListChangedForTheFirstLoad: the tools the host had when the
// client connected go into the session's server behind initialize's
// answer, and the SDK's list_changed for that load, which tells a client
// that has listed nothing yet nothing, is held back whether or not the
// client lists soon. A change after the load is announced before any
// listing.
func TestNoListChangedForTheFirstLoad(t *testing.T) {
	t.Parallel()
	h, err := hub.New(hub.Config{Roots: []string{t.TempDir()}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.Close() })
	addLateGroup(t, h, "early")
	if err := h.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	srv := mcpserver.New(h, mcpserver.Options{Version: "test", ReadyBy: time.Now().Add(time.Hour)})
	l := watchListChanged(t, srv, nil)
	if !proctest.Await(func() bool { return l.count(&l.tried) > 0 && l.count(&l.passed) == l.count(&l.tried) }) {
		t.Fatal("the SDK never sent tools/list_changed for the session's first load")
	}
	if n := l.announced(t); n != 0 {
		t.Errorf("%d tools/list_changed for the tools the host had at the start, before any listing", n)
	}
	addLateGroup(t, h, "later")
	if !proctest.Await(func() bool { return l.announced(t) > 0 }) {
		t.Error("no tools/list_changed for a change after the first load")
	}
	if names := l.listed(t); !slices.Contains(names, "early_tool") || !slices.Contains(names, "later_tool") {
		t.Errorf("tools/list = %v, want early_tool and later_tool", names)
	}
}

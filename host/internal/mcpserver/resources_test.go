package mcpserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ramabana/ramabana-mcp/host/internal/hub"
	"github.com/ramabana/ramabana-mcp/host/internal/mcpserver"
	"github.com/ramabana/ramabana-mcp/host/internal/supervise"
	"github.com/ramabana/ramabana-mcp/host/internal/upstream"
	"github.com/ramabana/ramabana-mcp/internal/proctest"
	"github.com/ramabana/ramabana-mcp/internal/skilltest"
	"github.com/ramabana/ramabana-mcp/sdk"
	"github.com/ramabana/ramabana-mcp/sdk/sdktest"
)

// testPlugin is the internal/testplugin binary, built once for the package.
var testPlugin string

func TestMain(m *testing.M) {
	proctest.RunWithTestPlugin(m, "testplugin", func(path string) { testPlugin = path })
}

// Protocol versions the resource tests speak: the SDK's newest, where a
// subscription is a subscriptions/listen stream, and the one clients speak
// today, with resources/subscribe.
const (
	newest = ""
	legacy = "2025-11-25"
)

// world is a host over a fresh served folder, with a plugin dir, config
// dir and home of its own (no skill of the user's leaks in).
type world struct {
	h       *hub.Host
	root    string
	plugins string
	cfg     string
	logs    *proctest.Output
}

func newWorld(t *testing.T, cfg hub.Config) *world {
	t.Helper()
	w := &world{root: t.TempDir(), plugins: t.TempDir(), cfg: t.TempDir(), logs: &proctest.Output{}}
	cfg.Roots, cfg.PluginDirs, cfg.ConfigDir, cfg.HomeDir = []string{w.root}, []string{w.plugins}, w.cfg, t.TempDir()
	cfg.StartTimeout = time.Minute // only a broken plugin takes this long, however loaded the machine
	cfg.Logger = slog.New(slog.NewTextHandler(w.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	h, err := hub.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.Close() })
	w.h = h
	return w
}

func (w *world) start(t *testing.T) {
	t.Helper()
	if err := w.h.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// watch runs the host's watch of the plugin dir and skill folders until
// the test ends.
func (w *world) watch(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := w.h.Watch(ctx); err != nil {
			t.Errorf("Watch: %v", err)
		}
	}()
	t.Cleanup(func() { cancel(); <-done })
}

// install puts the test plugin in the plugin dir under each mode name.
func (w *world) install(t *testing.T, modes ...string) {
	t.Helper()
	for _, m := range modes {
		if err := os.Symlink(testPlugin, filepath.Join(w.plugins, supervise.PluginPrefix+m)); err != nil {
			t.Fatal(err)
		}
	}
}

func (w *world) uninstall(t *testing.T, mode string) {
	t.Helper()
	if err := os.Remove(filepath.Join(w.plugins, supervise.PluginPrefix+mode)); err != nil {
		t.Fatal(err)
	}
}

// skillDir is the served folder's skills folder.
func (w *world) skillDir() string { return filepath.Join(w.root, ".agents", "skills") }

func writeSkill(t *testing.T, dir, name, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name, "SKILL.md"), []byte(skilltest.MD(name, body)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// notes counts the resource notifications a client gets.
type notes struct {
	mu          sync.Mutex
	updated     map[string]int
	listChanged int
	signal      chan struct{} // one per notification; dropped when full
}

func (n *notes) note(uri string) {
	n.mu.Lock()
	if uri == "" {
		n.listChanged++
	} else {
		n.updated[uri]++
	}
	n.mu.Unlock()
	select {
	case n.signal <- struct{}{}:
	default: // a full channel has news enough; never block the client
	}
}

// count is how many resources/updated came for uri; "" counts
// resources/list_changed.
func (n *notes) count(uri string) int {
	n.mu.Lock()
	defer n.mu.Unlock()
	if uri == "" {
		return n.listChanged
	}
	return n.updated[uri]
}

// session is an MCP client session and the resource notifications it got.
type session struct {
	*mcp.ClientSession
	*notes
	version string
	acks    chan struct{} // the server's subscriptions/acknowledged (newest protocol)
}

// client connects an MCP client speaking version to a server over h, in
// memory, and counts its resource notifications.
func client(t *testing.T, h *hub.Host, version string) *session {
	t.Helper()
	s := &session{notes: &notes{updated: map[string]int{}, signal: make(chan struct{}, 100)}, version: version, acks: make(chan struct{}, 10)}
	st, ct := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := mcpserver.New(h, mcpserver.Options{Version: "test"}).Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test"}, &mcp.ClientOptions{
		ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
			s.note(req.Params.URI)
		},
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) { s.note("") },
	}).Connect(ctx, readTap{ct, func(m jsonrpc.Message) {
		if r, ok := m.(*jsonrpc.Request); ok && r.Method == "notifications/subscriptions/acknowledged" {
			s.acks <- struct{}{}
		}
	}}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	s.ClientSession = cs
	s.awaitAck(t, "resources/list_changed") // the client's listen for it, opened as it connects
	return s
}

// awaitAck waits, under the newest protocol, for the server to acknowledge
// a subscription: there the client's Subscribe returns before the server
// has seen it.
func (s *session) awaitAck(t *testing.T, what string) {
	t.Helper()
	if s.version != newest {
		return
	}
	select {
	case <-s.acks:
	case <-time.After(proctest.Patience):
		t.Fatalf("the server never acknowledged the subscription to %s", what)
	}
}

func (s *session) subscribe(t *testing.T, uri string) {
	t.Helper()
	if err := s.Subscribe(context.Background(), &mcp.SubscribeParams{URI: uri}); err != nil {
		t.Fatalf("subscribe %s: %v", uri, err)
	}
	s.awaitAck(t, uri)
}

func (s *session) unsubscribe(t *testing.T, uri string) {
	t.Helper()
	if err := s.Unsubscribe(context.Background(), &mcp.UnsubscribeParams{URI: uri}); err != nil {
		t.Fatalf("unsubscribe %s: %v", uri, err)
	}
}

// readTap is a client transport that shows seen each message the client
// reads, in the order read.
type readTap struct {
	mcp.Transport
	seen func(jsonrpc.Message)
}

func (a readTap) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := a.Transport.Connect(ctx)
	return readConn{c, a.seen}, err
}

type readConn struct {
	mcp.Connection
	seen func(jsonrpc.Message)
}

func (c readConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	m, err := c.Connection.Read(ctx)
	if err == nil {
		c.seen(m)
	}
	return m, err
}

func status(t *testing.T, cs *session) hub.Status {
	t.Helper()
	res, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: mcpserver.StatusURI})
	if err != nil {
		t.Fatal(err)
	}
	var st hub.Status
	if err := json.Unmarshal([]byte(res.Contents[0].Text), &st); err != nil {
		t.Fatal(err)
	}
	return st
}

func plugin(st hub.Status, name string) (hub.PluginStatus, bool) {
	for _, p := range st.Plugins {
		if p.Name == name {
			return p, true
		}
	}
	return hub.PluginStatus{}, false
}

// listed are the URIs of resources/list.
func listed(t *testing.T, cs *session) []string {
	t.Helper()
	var out []string
	for r, err := range cs.Resources(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, r.URI)
	}
	return out
}

// await waits for a notification that makes cond hold.
func await(t *testing.T, s *session, w *world, what string, cond func() bool) {
	t.Helper()
	if ok, notified := proctest.AwaitSignal(s.signal, cond); !ok {
		s.mu.Lock()
		updated, lists := fmt.Sprint(s.updated), s.listChanged
		s.mu.Unlock()
		t.Fatalf("%s: notified %v, but not so; updated %s, list changes %d; host log:\n%s", what, notified, updated, lists, w.logs)
	}
}

func TestCompleteSkillNames(t *testing.T) {
	t.Parallel()
	url := skilltest.Server(t, map[string]skilltest.Skill{"runbook": {Mode: "auto", Text: skilltest.MD("runbook", "Restart the service.")}})
	w := newWorld(t, hub.Config{Upstream: upstream.NewConfig(upstream.Server{ID: "docs", Type: upstream.TypeHTTP, URL: url, ReadOnly: true}), Web: true})
	for _, name := range []string{"alpha-one", "alpha-two", "beta"} {
		writeSkill(t, w.skillDir(), name, "# "+name)
	}
	writeSkill(t, filepath.Join(w.cfg, "skills"), "gamma", "# Gamma")
	box := sdk.NewToolbox("style", sdk.WithVersion("1"))
	box.AddGroup(sdk.GroupSpec{Name: "style", Description: "house style"},
		sdk.SkillText(sdk.ToolSpec{Name: "house_style", Kind: sdk.KindRead}, sdk.SkillAuto, skilltest.MD("house-style", "Short sentences.")))
	if err := w.h.AddGroup("style", box); err != nil {
		t.Fatal(err)
	}
	w.start(t)
	select {
	case <-w.h.Ready():
	case <-time.After(proctest.Patience):
		t.Fatalf("the upstream server never connected; host log:\n%s", w.logs)
	}
	skill := &mcp.CompleteReference{Type: "ref/resource", URI: mcpserver.SkillURI}
	tests := map[string]struct {
		ref       *mcp.CompleteReference
		arg, text string
		want      []string
	}{
		"prefix":         {skill, "name", "alpha-", []string{"alpha-one", "alpha-two"}},
		"case aside":     {skill, "name", "ALPHA-T", []string{"alpha-two"}},
		"config dir's":   {skill, "name", "g", []string{"gamma"}},
		"plugin's":       {skill, "name", "ho", []string{"house-style"}},
		"upstream's":     {skill, "name", "run", []string{"runbook"}},
		"every skill":    {skill, "name", "", []string{"alpha-one", "alpha-two", "beta", "gamma", "house-style", "runbook"}},
		"no match":       {skill, "name", "zeta", []string{}},
		"other argument": {skill, "id", "a", []string{}},
		// The conformance suite's completion-complete asks about a prompt
		// this server does not have, and wants an answer, values empty.
		"conformance prompt": {&mcp.CompleteReference{Type: "ref/prompt", Name: "test_prompt_with_arguments"}, "arg1", "test", []string{}},
		"other template":     {&mcp.CompleteReference{Type: "ref/resource", URI: "file:///{path}"}, "path", "a", []string{}},
	}
	for _, version := range []string{newest, legacy} {
		cs := client(t, w.h, version)
		caps := cs.InitializeResult().Capabilities
		if caps.Completions == nil || caps.Resources == nil || !caps.Resources.Subscribe || !caps.Resources.ListChanged {
			t.Errorf("protocol %q: capabilities %+v, want completions and resources with subscribe and listChanged", version, caps)
		}
		for name, tc := range tests {
			res, err := cs.Complete(context.Background(), &mcp.CompleteParams{Ref: tc.ref, Argument: mcp.CompleteParamsArgument{Name: tc.arg, Value: tc.text}})
			if err != nil {
				t.Errorf("%s (protocol %q): %v", name, version, err)
				continue
			}
			got := res.Completion
			if got.Values == nil {
				t.Errorf("%s (protocol %q): values is null, want an array", name, version)
			}
			if diff := cmp.Diff(tc.want, got.Values); diff != "" || got.Total != len(tc.want) || got.HasMore {
				t.Errorf("%s (protocol %q): total %d, more %v, values (-want +got):\n%s", name, version, got.Total, got.HasMore, diff)
			}
		}
	}
}

// An answer holds 100 values at most; total and hasMore say there are more.
func TestCompletionStopsAtAHundred(t *testing.T) {
	t.Parallel()
	w := newWorld(t, hub.Config{})
	for i := range 150 {
		writeSkill(t, w.skillDir(), fmt.Sprintf("s%03d", i), "# skill")
	}
	cs := client(t, w.h, newest)
	for _, tc := range []struct {
		prefix string
		first  string
		n      int
		total  int
		more   bool
	}{
		{"s", "s000", 100, 150, true},
		{"s14", "s140", 10, 10, false},
	} {
		res, err := cs.Complete(context.Background(), &mcp.CompleteParams{
			Ref:      &mcp.CompleteReference{Type: "ref/resource", URI: mcpserver.SkillURI},
			Argument: mcp.CompleteParamsArgument{Name: "name", Value: tc.prefix},
		})
		if err != nil {
			t.Fatal(err)
		}
		got := res.Completion
		if len(got.Values) != tc.n || got.Values[0] != tc.first || got.Total != tc.total || got.HasMore != tc.more {
			t.Errorf("%q: %d values from %q, total %d, more %v; want %d from %q, total %d, more %v",
				tc.prefix, len(got.Values), got.Values[0], got.Total, got.HasMore, tc.n, tc.first, tc.total, tc.more)
		}
	}
}

// Skills that come and go change resources/list (list_changed) and the
// index (updated); a skill's own resource is updated when its text
// changes, and an edit that changes nothing else is told for it alone.
func TestSkillFilesNotify(t *testing.T) {
	t.Parallel()
	for _, version := range []string{newest, legacy} {
		t.Run("protocol "+version, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t, hub.Config{})
			w.start(t)
			w.watch(t)
			cs := client(t, w.h, version)
			cs.subscribe(t, mcpserver.SkillsURI)
			// Under the newest protocol the SDK's client does not report a
			// refused subscription, and its refusal ends the session's
			// other listens (go-sdk v1.8.0).
			if version == legacy {
				if err := cs.Subscribe(context.Background(), &mcp.SubscribeParams{URI: "skill://deploy"}); err == nil {
					t.Error("subscribed to a skill there is not")
				}
			}

			lists, index := cs.count(""), cs.count(mcpserver.SkillsURI)
			writeSkill(t, w.skillDir(), "deploy", "# Deploy")
			await(t, cs, w, "skill added", func() bool {
				return cs.count("") > lists && cs.count(mcpserver.SkillsURI) > index && slices.Contains(listed(t, cs), "skill://deploy")
			})
			res, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "skill://deploy"})
			if err != nil || len(res.Contents) != 1 || res.Contents[0].Text != skilltest.MD("deploy", "# Deploy") {
				t.Errorf("read skill://deploy = %v, %v", res, err)
			}

			cs.subscribe(t, "skill://deploy")
			index = cs.count(mcpserver.SkillsURI)
			if err := os.WriteFile(filepath.Join(w.skillDir(), "deploy", "SKILL.md"), []byte(skilltest.MD("deploy", "# Deploy, carefully")), 0o644); err != nil {
				t.Fatal(err)
			}
			await(t, cs, w, "skill edited", func() bool { return cs.count("skill://deploy") > 0 })
			// The index is told before a skill in the same change.
			if got := cs.count(mcpserver.SkillsURI); got != index {
				t.Errorf("an edit of a skill's body updated the index %d times, which reads the same", got-index)
			}

			lists, index = cs.count(""), cs.count(mcpserver.SkillsURI)
			if err := os.RemoveAll(filepath.Join(w.skillDir(), "deploy")); err != nil {
				t.Fatal(err)
			}
			await(t, cs, w, "skill removed", func() bool {
				return cs.count("") > lists && cs.count(mcpserver.SkillsURI) > index && !slices.Contains(listed(t, cs), "skill://deploy")
			})
		})
	}
}

// The status is updated when a plugin is installed, crashes and is
// removed; after an unsubscribe it is not.
func TestStatusFollowsPlugins(t *testing.T) {
	t.Parallel()
	for _, version := range []string{newest, legacy} {
		t.Run("protocol "+version, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t, hub.Config{})
			w.start(t)
			w.watch(t)
			cs := client(t, w.h, version)
			cs.subscribe(t, mcpserver.StatusURI)

			seen := cs.count(mcpserver.StatusURI)
			w.install(t, "echo")
			var echo hub.PluginStatus
			await(t, cs, w, "plugin installed", func() bool {
				var ok bool
				echo, ok = plugin(status(t, cs), "echo")
				return cs.count(mcpserver.StatusURI) > seen && ok && echo.State == "running"
			})

			seen = cs.count(mcpserver.StatusURI)
			proc, err := os.FindProcess(echo.Pid)
			if err == nil {
				err = proc.Kill()
			}
			if err != nil {
				t.Fatal(err)
			}
			await(t, cs, w, "plugin killed", func() bool {
				p, _ := plugin(status(t, cs), "echo")
				return cs.count(mcpserver.StatusURI) > seen && p.State == "exited"
			})

			seen = cs.count(mcpserver.StatusURI)
			w.uninstall(t, "echo")
			await(t, cs, w, "plugin removed", func() bool {
				_, ok := plugin(status(t, cs), "echo")
				return cs.count(mcpserver.StatusURI) > seen && !ok
			})

			if version == newest {
				// There Unsubscribe ends a subscriptions/listen stream,
				// and returns before the server has seen it end.
				return
			}
			cs.unsubscribe(t, mcpserver.StatusURI)
			cs.subscribe(t, mcpserver.SkillsURI)
			seen, index := cs.count(mcpserver.StatusURI), cs.count(mcpserver.SkillsURI)
			w.install(t, "skill") // a skill tool: the status and the index change
			await(t, cs, w, "skill plugin installed", func() bool { return cs.count(mcpserver.SkillsURI) > index })
			// The status is told before the index in the same change.
			if got := cs.count(mcpserver.StatusURI); got != seen {
				t.Errorf("the status was updated %d times after the unsubscribe", got-seen)
			}
		})
	}
}

// A reload that starts and refuses ten plugins is told as one status
// change, not one per plugin event.
func TestReloadIsToldOnce(t *testing.T) {
	t.Parallel()
	w := newWorld(t, hub.Config{})
	w.start(t)
	cs := client(t, w.h, legacy)
	cs.subscribe(t, mcpserver.StatusURI)
	w.install(t, "echo", "echo2", "legacy", "optin", "skill", "shadow", "exits", "nokind", "misdeclared", "badcookie")
	if err := w.h.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	await(t, cs, w, "reload", func() bool { return cs.count(mcpserver.StatusURI) > 0 })
	if st := status(t, cs); len(st.Plugins) < 4 || len(st.Skipped) < 4 {
		t.Errorf("status after the reload: %d plugins, %d skipped; want ten between them\nhost log:\n%s", len(st.Plugins), len(st.Skipped), w.logs)
	}
	// A change after the reload's: its notification comes after all of
	// the reload's.
	marker, desc := sdktest.Connect(t, taskBox(), sdk.Host{})
	if err := w.h.AddGroup(desc.Name, marker); err != nil {
		t.Fatal(err)
	}
	await(t, cs, w, "marker", func() bool {
		return cs.count(mcpserver.StatusURI) > 1 && slices.ContainsFunc(status(t, cs).Groups, func(g hub.GroupStatus) bool { return g.Name == "tasks" })
	})
	t.Logf("status notifications for the reload and the change after it: %d", cs.count(mcpserver.StatusURI))
	if got := cs.count(mcpserver.StatusURI); got > 3 {
		t.Errorf("a reload of ten plugins, then one change, sent %d status notifications; want 2, a few at most", got)
	}
}

// An upstream server that connects updates the status.
func TestUpstreamConnectUpdatesStatus(t *testing.T) {
	t.Parallel()
	url := skilltest.Server(t, map[string]skilltest.Skill{"runbook": {Mode: "auto", Text: skilltest.MD("runbook", "Restart the service.")}})
	w := newWorld(t, hub.Config{Upstream: upstream.NewConfig(upstream.Server{ID: "docs", Type: upstream.TypeHTTP, URL: url, ReadOnly: true}), Web: true})
	cs := client(t, w.h, legacy)
	cs.subscribe(t, mcpserver.StatusURI)
	cs.subscribe(t, mcpserver.SkillsURI)
	w.start(t)
	await(t, cs, w, "upstream connected", func() bool {
		st := status(t, cs)
		return cs.count(mcpserver.StatusURI) > 0 && cs.count(mcpserver.SkillsURI) > 0 &&
			len(st.Upstreams) == 1 && st.Upstreams[0].State == upstream.StateReady
	})
}

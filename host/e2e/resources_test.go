package e2e

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ramabana/ramabana-mcp/host/internal/hub"
	"github.com/ramabana/ramabana-mcp/host/internal/mcpserver"
	"github.com/ramabana/ramabana-mcp/host/internal/supervise"
	"github.com/ramabana/ramabana-mcp/internal/proctest"
)

// resourceNotes counts the resource notifications a client gets: updated
// by URI, and list_changed under "".
type resourceNotes struct {
	mu     sync.Mutex
	counts map[string]int
	signal chan struct{} // one per notification; dropped when full
}

func (n *resourceNotes) note(uri string) {
	n.mu.Lock()
	n.counts[uri]++
	n.mu.Unlock()
	select {
	case n.signal <- struct{}{}:
	default: // a full channel has news enough; never block the client
	}
}

func (n *resourceNotes) count(uri string) int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.counts[uri]
}

// TestResourceSubscriptionsAndCompletion drives the binary over stdio as a
// client of today's protocol (2025-11-25, with resources/subscribe) would:
// it completes skill names, and is told when a plugin comes and goes (the
// status) and when skills come (the list and the index), until it
// unsubscribes.
func TestResourceSubscriptionsAndCompletion(t *testing.T) {
	t.Parallel()
	root, plugins := project(t), t.TempDir()
	skillDir := filepath.Join(root, ".agents", "skills")
	writeSkill(t, skillDir, "deploy", "Use when deploying this project.", "# Deploy\n")
	n := &resourceNotes{counts: map[string]int{}, signal: make(chan struct{}, 100)}
	s := &server{stderr: &proctest.Output{}}
	s.cmd = exec.Command(binary, baseArgs(t, root, "--plugins", plugins)...)
	s.cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	s.cmd.Stderr = s.stderr
	t.Cleanup(func() { s.stop(t) })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "e2e"}, &mcp.ClientOptions{
		ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
			n.note(req.Params.URI)
		},
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) { n.note("") },
	}).Connect(context.Background(), &mcp.CommandTransport{Command: s.cmd}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	s.session = cs
	ctx := context.Background()
	if caps := cs.InitializeResult().Capabilities; caps.Completions == nil || caps.Resources == nil || !caps.Resources.Subscribe {
		t.Fatalf("capabilities %+v, want completions and resources.subscribe", caps)
	}

	complete := func(prefix string) []string {
		t.Helper()
		res, err := cs.Complete(ctx, &mcp.CompleteParams{
			Ref:      &mcp.CompleteReference{Type: "ref/resource", URI: mcpserver.SkillURI},
			Argument: mcp.CompleteParamsArgument{Name: "name", Value: prefix},
		})
		if err != nil {
			t.Fatalf("complete %q: %v", prefix, err)
		}
		return res.Completion.Values
	}
	status := func() hub.Status {
		t.Helper()
		text, err := readResource(t, cs, mcpserver.StatusURI)
		if err != nil {
			t.Fatal(err)
		}
		var st hub.Status
		if err := json.Unmarshal([]byte(text), &st); err != nil {
			t.Fatal(err)
		}
		return st
	}
	running := func(name string) bool {
		for _, p := range status().Plugins {
			if p.Name == name {
				return p.State == "running"
			}
		}
		return false
	}
	listed := func(uri string) bool {
		for r, err := range cs.Resources(ctx, nil) {
			if err != nil {
				t.Fatal(err)
			}
			if r.URI == uri {
				return true
			}
		}
		return false
	}
	await := func(what string, cond func() bool) {
		t.Helper()
		if ok, notified := proctest.AwaitSignal(n.signal, cond); !ok {
			t.Fatalf("after %s: notified %v, but not so; notifications %v; stderr:\n%s", what, notified, n.counts, s.stderr)
		}
	}
	subscribe := func(uri string) {
		t.Helper()
		if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}); err != nil {
			t.Fatalf("subscribe %s: %v", uri, err)
		}
	}
	unsubscribe := func(uri string) {
		t.Helper()
		if err := cs.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: uri}); err != nil {
			t.Fatalf("unsubscribe %s: %v", uri, err)
		}
	}

	if got := complete("dep"); !cmp.Equal(got, []string{"deploy"}) {
		t.Errorf("complete dep = %q, want deploy", got)
	}

	subscribe(mcpserver.StatusURI)
	bin := filepath.Join(plugins, supervise.PluginPrefix+"echo")
	if err := os.Symlink(testPlugin, bin); err != nil {
		t.Fatal(err)
	}
	seen := n.count(mcpserver.StatusURI)
	await("install", func() bool { return n.count(mcpserver.StatusURI) > seen && running("echo") })

	subscribe(mcpserver.SkillsURI)
	lists, index := n.count(""), n.count(mcpserver.SkillsURI)
	writeSkill(t, skillDir, "review", "Use when reviewing a change.", "# Review\n")
	await("a skill added", func() bool {
		return n.count("") > lists && n.count(mcpserver.SkillsURI) > index && listed("skill://review")
	})
	if got := complete("re"); !cmp.Equal(got, []string{"review"}) {
		t.Errorf("complete re = %q, want review", got)
	}

	seen = n.count(mcpserver.StatusURI)
	if err := os.Remove(bin); err != nil {
		t.Fatal(err)
	}
	await("remove", func() bool {
		return n.count(mcpserver.StatusURI) > seen && !slices.ContainsFunc(status().Plugins, func(p hub.PluginStatus) bool { return p.Name == "echo" })
	})

	// Unsubscribed from the status and the index, the client is told of
	// deploy's edit only; the server tells the status and the index
	// before a skill of the same change.
	unsubscribe(mcpserver.StatusURI)
	unsubscribe(mcpserver.SkillsURI)
	subscribe("skill://deploy")
	seen, index = n.count(mcpserver.StatusURI), n.count(mcpserver.SkillsURI)
	writeSkill(t, skillDir, "lint", "Use when linting.", "# Lint\n")
	writeSkill(t, skillDir, "deploy", "Use when deploying this project, carefully.", "# Deploy\n")
	await("edits after the unsubscribe", func() bool { return n.count("skill://deploy") > 0 })
	if got, gotIndex := n.count(mcpserver.StatusURI), n.count(mcpserver.SkillsURI); got != seen || gotIndex != index {
		t.Errorf("after the unsubscribe: %d status and %d index notifications, want none", got-seen, gotIndex-index)
	}
}

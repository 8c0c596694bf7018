package hub

import (
	"encoding/json"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ramabana/ramabana-mcp/host/internal/supervise"
	"github.com/ramabana/ramabana-mcp/host/internal/upstream"
	"github.com/ramabana/ramabana-mcp/internal/proctest"
)

func TestHealthWaitsForEagerUpstreams(t *testing.T) {
	t.Parallel()
	dir := pluginDir(t, "echo")
	h, err := New(Config{Roots: []string{t.TempDir()}, PluginDirs: []string{dir}, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.Close() })
	if hl := h.Health(); hl.Ready || hl.Status != "starting" {
		t.Errorf("before Start, health = %+v, want starting", hl)
	}

	// sleep never answers initialize, and may take an hour to.
	h, _ = startHost(t, Config{PluginDirs: []string{dir},
		Upstream:        upstream.NewConfig(upstream.Server{ID: "mute", Type: upstream.TypeStdio, Command: "sleep", Args: []string{"3600"}}),
		UpstreamOptions: upstream.ConnectOptions{ConnectTimeout: time.Hour},
	})
	hl := h.Health()
	if hl.Ready || hl.Status != "starting" {
		t.Errorf("while an upstream server connects, health = %+v, want starting", hl)
	}
	if len(hl.Upstreams) != 1 || hl.Upstreams[0].ID != "mute" || hl.Upstreams[0].State == upstream.StateReady {
		t.Errorf("upstreams = %+v, want mute not ready", hl.Upstreams)
	}
	if len(hl.Plugins) != 1 || hl.Plugins[0] != (PluginHealth{Name: "echo", State: supervise.StateRunning}) {
		t.Errorf("plugins = %+v, want echo running", hl.Plugins)
	}
}

func TestHealthIsReadyOnceStartSettles(t *testing.T) {
	t.Parallel()
	dir := pluginDir(t, "echo", "exits")
	cfgDir := t.TempDir()
	missing := filepath.Join(cfgDir, "no-such-server")
	h, _ := startHost(t, Config{PluginDirs: []string{dir}, ConfigDir: cfgDir, Upstream: upstream.NewConfig(
		upstream.Server{ID: "gone", Type: upstream.TypeStdio, Command: missing},
		upstream.Server{ID: "later", Type: upstream.TypeStdio, Command: missing, Lazy: true},
	)})
	var hl Health
	if !proctest.Await(func() bool { hl = h.Health(); return hl.Ready }) {
		t.Fatalf("health never ready: %+v", hl)
	}
	if hl.Status != "ready" {
		t.Errorf("status = %q, want ready", hl.Status)
	}
	want := map[string]string{"echo": supervise.StateRunning, "exits": PluginSkipped}
	got := map[string]string{}
	for _, p := range hl.Plugins {
		got[p.Name] = p.State
	}
	for name, state := range want {
		if got[name] != state {
			t.Errorf("plugin %s is %q, want %q (all: %+v)", name, got[name], state, hl.Plugins)
		}
	}
	ups := map[string]string{}
	for _, u := range hl.Upstreams {
		ups[u.ID] = u.State
	}
	if ups["gone"] != upstream.StateFailed || ups["later"] != upstream.StateLazy {
		t.Errorf("upstreams = %+v, want gone failed and later lazy", hl.Upstreams)
	}
	// A probe is answered without a token: no path is in it, though the
	// failed server's error names its command.
	b, err := json.Marshal(hl)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range append([]string{cfgDir, dir, missing, testPlugin}, h.Roots()...) {
		if strings.Contains(string(b), p) {
			t.Errorf("health %s holds the path %s", b, p)
		}
	}
	if strings.Contains(string(b), "/") {
		t.Errorf("health %s holds a slash: a path may leak", b)
	}
}

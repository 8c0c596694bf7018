package hub

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ramabana/ramabana-mcp/host/internal/catalog"
	"github.com/ramabana/ramabana-mcp/host/internal/supervise"
	"github.com/ramabana/ramabana-mcp/host/internal/upstream"
	"github.com/ramabana/ramabana-mcp/internal/proctest"
	"github.com/ramabana/ramabana-mcp/internal/schema"
	"github.com/ramabana/ramabana-mcp/sdk"
)

// testPlugin is the internal/testplugin binary, built once for the package.
var testPlugin string

func TestMain(m *testing.M) {
	proctest.RunWithTestPlugin(m, "testplugin", func(path string) { testPlugin = path })
}

// pluginDir makes a plugin dir holding the test plugin under each mode name.
func pluginDir(t testing.TB, modes ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, m := range modes {
		if err := os.Symlink(testPlugin, filepath.Join(dir, supervise.PluginPrefix+m)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func startHost(t *testing.T, cfg Config) (*Host, *proctest.Output) {
	t.Helper()
	logs := &proctest.Output{}
	if cfg.Roots == nil {
		cfg.Roots = []string{t.TempDir()}
	}
	if cfg.StartTimeout == 0 {
		cfg.StartTimeout = time.Minute // only a broken plugin takes this long, however loaded the machine
	}
	cfg.Web = true
	cfg.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	h, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.Close() })
	if err := h.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	return h, logs
}

func callText(t *testing.T, h *Host, tool string, args any) (*sdk.Result, error) {
	t.Helper()
	b, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	return h.Call(context.Background(), tool, b, nil)
}

func TestBadPluginsAreSkippedAndTheRestServe(t *testing.T) {
	t.Parallel()
	dir := pluginDir(t, "echo", "nohandshake", "badcookie", "exits", "shadow")
	h, logs := startHost(t, Config{PluginDirs: []string{dir}})

	if _, ok := h.Plugins()["echo"]; !ok {
		t.Fatalf("echo not served; logs:\n%s", logs)
	}
	res, err := callText(t, h, "echo", map[string]any{"text": "hi"})
	if err != nil || res.Text() != "hi" {
		t.Fatalf("echo = %v, %v", res, err)
	}
	skipped := h.Skipped()
	for name, want := range map[string]string{
		"nohandshake": `no handshake: the plugin's first line was "hello, I am not a plugin"`,
		"badcookie":   "This binary is a plugin",
		"exits":       "giving up at once",
		"shadow":      `tool "echo" is already served by plugin "echo"`,
	} {
		if !strings.Contains(skipped[name], want) {
			t.Errorf("skipped[%s] = %q, want it to contain %q", name, skipped[name], want)
		}
		if !strings.Contains(logs.String(), `msg="plugin skipped" plugin=`+name) {
			t.Errorf("no skip log line for %s", name)
		}
	}
}

// TestSilentPluginTimesOut: a plugin that never hand-shakes is skipped
// when the start timeout passes. It is alone on its host, so the short
// timeout that is the subject here cannot fail a healthy plugin that is
// merely slow to start on a loaded machine.
func TestSilentPluginTimesOut(t *testing.T) {
	t.Parallel()
	h, logs := startHost(t, Config{PluginDirs: []string{pluginDir(t, "silent")}, StartTimeout: 500 * time.Millisecond})
	if got := h.Skipped()["silent"]; !strings.Contains(got, "timeout") {
		t.Errorf("skipped[silent] = %q, want a timeout; logs:\n%s", got, logs)
	}
	if _, ok := h.Plugins()["silent"]; ok {
		t.Error("a plugin that never hand-shook is served")
	}
}

func TestKilledPluginFailsTheCallAndRestarts(t *testing.T) {
	t.Parallel()
	h, _ := startHost(t, Config{PluginDirs: []string{pluginDir(t, "echo")}})
	p := h.Plugins()["echo"]
	pid := p.Pid()

	errc := make(chan error, 1)
	started := make(chan struct{})
	go func() {
		ev := &firstProgress{ch: started}
		_, err := h.Call(context.Background(), "slow", json.RawMessage(`{"seconds": 30}`), ev)
		errc <- err
	}()
	<-started
	if err := proctest.Kill(pid); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-errc:
		if !errors.Is(err, supervise.ErrPluginDied) || !strings.Contains(err.Error(), `group "echo-extra"`) || !strings.Contains(err.Error(), `plugin "echo"`) {
			t.Fatalf("in-flight call error = %v, want supervise.ErrPluginDied naming the group", err)
		}
	case <-time.After(proctest.Patience):
		t.Fatal("in-flight call did not return after its plugin was killed")
	}
	if st := p.Health(); st.State != supervise.StateExited || st.Running {
		t.Errorf("health after the kill = %+v, want exited", st)
	}
	res, err := callText(t, h, "pid", map[string]any{})
	if err != nil {
		t.Fatalf("call after restart: %v", err)
	}
	if st := p.Health(); st.State != supervise.StateRunning || !st.Running {
		t.Errorf("health after the restart = %+v, want running", st)
	}
	if res.Text() == strconv.Itoa(pid) {
		t.Fatalf("plugin was not restarted: same pid %d", pid)
	}
	if got := p.Health().Restarts; got != 1 {
		t.Errorf("restarts = %d, want 1", got)
	}
	newPid := p.Pid()
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	if st := p.Health().State; st != supervise.StateStopped {
		t.Errorf("state after Close = %s, want stopped", st)
	}
	for _, pid := range []int{pid, newPid} {
		if proctest.Alive(pid) {
			t.Errorf("plugin process %d still alive after Close", pid)
		}
	}
}

type firstProgress struct {
	once sync.Once
	ch   chan struct{}
}

func (f *firstProgress) Progress(float64, float64, string) { f.once.Do(func() { close(f.ch) }) }
func (f *firstProgress) Log(sdk.LogLevel, string)          {}

func TestPolicy(t *testing.T) {
	t.Parallel()
	dir := pluginDir(t, "echo")
	for name, tc := range map[string]struct {
		cfg      Config
		mounted  []string
		excluded []string
	}{
		"readonly":      {cfg: Config{}, mounted: []string{"echo", "slow"}, excluded: []string{"poke"}},
		"write":         {cfg: Config{Write: true}, mounted: []string{"echo", "poke"}},
		"group out":     {cfg: Config{Groups: []string{"-echo-extra"}}, mounted: []string{"echo"}, excluded: []string{"slow", "pid"}},
		"write, no web": {cfg: Config{Write: true}, mounted: []string{"poke"}},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tc.cfg.PluginDirs = []string{dir}
			h, _ := startHost(t, tc.cfg)
			names := map[string]bool{}
			for _, e := range h.Mounted() {
				names[e.Spec.Name] = true
			}
			for _, n := range tc.mounted {
				if !names[n] {
					t.Errorf("%s not mounted", n)
				}
			}
			for _, n := range tc.excluded {
				if names[n] {
					t.Errorf("%s mounted", n)
				}
				if _, err := callText(t, h, n, map[string]any{}); !errors.Is(err, sdk.ErrUnknownTool) {
					t.Errorf("call %s: err = %v, want sdk.ErrUnknownTool", n, err)
				}
			}
		})
	}
}

func TestArgumentsAreValidatedBeforeThePluginSeesThem(t *testing.T) {
	t.Parallel()
	h, _ := startHost(t, Config{PluginDirs: []string{pluginDir(t, "echo")}})
	for name, args := range map[string]string{
		"wrong type":    `{"text": 5}`,
		"missing":       `{}`,
		"not an object": `[1]`,
		"not JSON":      `{`,
	} {
		t.Run(name, func(t *testing.T) {
			res, err := h.Call(context.Background(), "echo", json.RawMessage(args), nil)
			if err != nil {
				t.Fatal(err)
			}
			if !res.IsError || !strings.Contains(res.Text(), "invalid arguments for echo") {
				t.Fatalf("result = %+v, want an invalid-arguments tool error", res)
			}
		})
	}
}

func TestPluginsGetOnlyAllowListedEnvironment(t *testing.T) {
	t.Setenv("RAMABANA_TEST_SECRET", "hunter2")
	t.Setenv("RAMABANA_TEST_PASSED", "yes")
	t.Setenv("LC_RAMABANA_TEST", "C")
	h, _ := startHost(t, Config{PluginDirs: []string{pluginDir(t, "echo")}, PluginEnv: []string{"RAMABANA_TEST_PASSED"}})
	res, err := callText(t, h, "env", map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	env := "\n" + res.Text() + "\n"
	for _, want := range []string{"\nPATH=", "\nRAMABANA_TEST_PASSED=yes\n", "\nLC_RAMABANA_TEST=C\n"} {
		if !strings.Contains(env, want) {
			t.Errorf("plugin environment lacks %q", strings.TrimSpace(want))
		}
	}
	if strings.Contains(env, "hunter2") {
		t.Error("a variable outside the allow-list reached the plugin")
	}
}

func TestPluginWithNoMountedGroupIsNotKeptRunning(t *testing.T) {
	t.Parallel()
	h, _ := startHost(t, Config{PluginDirs: []string{pluginDir(t, "echo")}, Groups: []string{"-echo", "-echo-extra", "-session"}})
	if len(h.Plugins()) != 0 || len(h.Mounted()) != 0 {
		t.Errorf("plugins %v and %d tools served, want none", h.Plugins(), len(h.Mounted()))
	}
}

func TestLegacyAndOptInGroups(t *testing.T) {
	t.Parallel()
	dir := pluginDir(t, "legacy", "optin")
	for name, tc := range map[string]struct {
		cfg  Config
		want map[string]bool
	}{
		"no agent, nothing opted in": {Config{}, map[string]bool{"old_echo": true, "optin_echo": false}},
		"agent configured":           {Config{Agent: true}, map[string]bool{"old_echo": false}},
		"opted in":                   {Config{Groups: []string{"optin"}}, map[string]bool{"optin_echo": true}},
		"legacy opted out":           {Config{Groups: []string{"-legacy"}}, map[string]bool{"old_echo": false}},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tc.cfg.PluginDirs = []string{dir}
			h, _ := startHost(t, tc.cfg)
			got := map[string]bool{}
			for _, e := range h.Mounted() {
				got[e.Spec.Name] = true
			}
			for tool, want := range tc.want {
				if got[tool] != want {
					t.Errorf("%s mounted = %v, want %v", tool, got[tool], want)
				}
			}
		})
	}
}

// TestTheHostsOwnSchemasCompile: the catalog compiles the schemas of the
// host's own groups (session, search, mcp_connect) only at each tool's
// first call; here every one is compiled.
func TestTheHostsOwnSchemasCompile(t *testing.T) {
	t.Parallel()
	later := upstream.Server{ID: "later", Type: upstream.TypeStdio, Command: "false", Lazy: true}
	h, err := New(Config{Roots: []string{t.TempDir()}, Upstream: upstream.NewConfig(later)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.Close() })
	groups := map[string]bool{}
	for _, e := range h.Catalog().All() {
		if e.From != catalog.InProcess {
			continue
		}
		groups[e.Group] = true
		if _, err := schema.NewValidator(e.Spec.Name, e.Spec.InputSchema); err != nil {
			t.Errorf("%s: %v", e.Spec.Name, err)
		}
	}
	for _, g := range []string{SessionGroup, SearchGroup} {
		if !groups[g] {
			t.Errorf("group %s not in the catalog; checked %v", g, groups)
		}
	}
	if _, ok := h.Catalog().Get(upstream.ConnectToolName); !ok {
		t.Errorf("%s not in the catalog", upstream.ConnectToolName)
	}
}

package hub

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ramabana/ramabana-mcp/host/internal/supervise"
	"github.com/ramabana/ramabana-mcp/internal/proctest"
	"github.com/ramabana/ramabana-mcp/sdk"
)

// TestAnIdlePluginExitsAndTheNextCallStartsIt: with PluginIdle, a plugin
// process with no call in flight exits, which is no crash (no restart
// counted, state idle); the next call starts another; a call that runs
// longer than PluginIdle is not cut.
func TestAnIdlePluginExitsAndTheNextCallStartsIt(t *testing.T) {
	t.Parallel()
	const idle = 300 * time.Millisecond
	h, logs := startHost(t, Config{PluginDirs: []string{pluginDir(t, "echo")}, PluginIdle: idle})
	p := h.Plugins()["echo"]
	if p == nil {
		t.Fatalf("echo not served; logs:\n%s", logs)
	}
	// Launched at start to describe itself, then idle.
	if !proctest.Await(func() bool { return p.Health().State == supervise.StateIdle }) {
		t.Fatalf("echo still %+v after %s without a call; logs:\n%s", p.Health(), idle, logs)
	}
	if st := p.Health(); st.State != supervise.StateIdle || st.Restarts != 0 || st.Running {
		t.Errorf("health after an idle exit = %+v, want idle with no restart", st)
	}
	if !proctest.Await(func() bool { return h.Health().Ready }) {
		t.Errorf("an idle plugin makes the server unready: %+v", h.Health())
	}

	// A call longer than PluginIdle keeps its process.
	res, err := callText(t, h, "slow", map[string]any{"seconds": 3 * idle.Seconds()})
	if err != nil || res.Text() != "done" {
		t.Fatalf("slow = %v, %v; logs:\n%s", res, err, logs)
	}
	res, err = callText(t, h, "pid", map[string]any{})
	if err != nil || res.IsError {
		t.Fatalf("pid = %v, %v", res, err)
	}
	second, _ := strconv.Atoi(res.Text())
	if second == 0 {
		t.Fatalf("pid = %q", res.Text())
	}
	if st := p.Health(); st.Restarts != 0 {
		t.Errorf("restarts = %d after an idle exit and a new start, want 0", st.Restarts)
	}
	if strings.Contains(logs.String(), "restarting plugin") || strings.Contains(logs.String(), "exited during a call") {
		t.Errorf("an idle exit was logged as a death:\n%s", logs)
	}
	if !proctest.Await(func() bool { return !proctest.Alive(second) }) {
		t.Fatalf("process %d still alive after its last call and %s", second, idle)
	}
}

// TestAKnownDescriptionListsThePluginWithoutStartingIt: the first start
// launches a plugin binary to describe it and keeps the description; the
// next start with the same binary and host context lists its tools with no
// process, and the first call starts it. A changed binary, or another host
// context, is described afresh.
func TestAKnownDescriptionListsThePluginWithoutStartingIt(t *testing.T) {
	t.Parallel()
	dir := pluginDir(t, "echo")
	cfg := Config{PluginDirs: []string{dir}, ConfigDir: t.TempDir(), Roots: []string{t.TempDir()}}

	h1, logs := startHost(t, cfg)
	if pid := h1.Plugins()["echo"].Pid(); pid == 0 {
		t.Fatalf("the first start did not launch echo; logs:\n%s", logs)
	}
	keptFile(t, cfg.ConfigDir, "echo")
	tools1 := mountedNames(h1)
	described := h1.Plugins()["echo"].Description()
	_ = h1.Close()

	h2, logs := startHost(t, cfg)
	p := h2.Plugins()["echo"]
	if p == nil {
		t.Fatalf("echo not served from its kept description; logs:\n%s", logs)
	}
	if st := p.Health(); st.State != supervise.StateIdle || st.Pid != 0 {
		t.Fatalf("echo after a start with its description known = %+v, want idle with no process", st)
	}
	if got := p.Description(); !reflect.DeepEqual(got, described) {
		t.Errorf("kept description differs from the plugin's own:\n%+v\n%+v", got, described)
	}
	if got := mountedNames(h2); got != tools1 {
		t.Errorf("tools from the kept description = %s, want %s", got, tools1)
	}
	if !proctest.Await(func() bool { return h2.Health().Ready }) {
		t.Errorf("server with idle plugins not ready: %+v", h2.Health())
	}
	res, err := callText(t, h2, "echo", map[string]any{"text": "hi"})
	if err != nil || res.Text() != "hi" {
		t.Fatalf("first call = %v, %v; logs:\n%s", res, err, logs)
	}
	if st := p.Health(); st.State != supervise.StateRunning {
		t.Errorf("echo after its first call = %+v, want running", st)
	}
	_ = h2.Close()

	// Another host context (a flag the plugin is told) is a miss.
	other := cfg
	other.Write = true
	h3, _ := startHost(t, other)
	if pid := h3.Plugins()["echo"].Pid(); pid == 0 {
		t.Errorf("a start with --write used the description made without it")
	}
	_ = h3.Close()

	// A replaced binary is a miss.
	replaced := filepath.Join(dir, supervise.PluginPrefix+"echo")
	copyFile(t, testPlugin, replaced)
	h4, _ := startHost(t, cfg)
	if pid := h4.Plugins()["echo"].Pid(); pid == 0 {
		t.Errorf("a replaced binary was served from the old binary's description")
	}
}

// TestAPluginThatCannotStartAtItsFirstCallIsReported: a plugin listed
// from its kept description whose process then fails to start fails the
// call with the launch's reason, and the failure shows in its health and
// the log, as a crash does.
func TestAPluginThatCannotStartAtItsFirstCallIsReported(t *testing.T) {
	t.Parallel()
	cfg := keptEcho(t)

	cfg.StartTimeout = time.Nanosecond // nothing starts in that: every launch fails
	h, logs := startHost(t, cfg)
	p := h.Plugins()["echo"]
	if p == nil {
		t.Fatalf("echo not served from its kept description; logs:\n%s", logs)
	}
	res, err := callText(t, h, "echo", map[string]any{"text": "hi"})
	if err == nil {
		t.Fatalf("call to a plugin that cannot start = %v, want an error", res)
	}
	if !strings.Contains(err.Error(), "echo") {
		t.Errorf("error %q does not name the plugin", err)
	}
	st := p.Health()
	if st.State == supervise.StateIdle || st.State == supervise.StateRunning || st.LastErr == "" {
		t.Errorf("health after a failed start = %+v, want exited or failing with the error", st)
	}
	if !strings.Contains(logs.String(), "could not start for a call") {
		t.Errorf("the failed start is not in the log:\n%s", logs)
	}
	// Not listed from the kept description again: the next start launches
	// the plugin (and would report it skipped if it failed there).
	if files := keptFiles(t, cfg.ConfigDir, "echo"); len(files) != 0 {
		t.Errorf("the description of a plugin that failed to start is still kept: %v", files)
	}
}

// mountedNames is the names of the tools the client sees, in order.
func mountedNames(h *Host) string {
	var names []string
	for _, e := range h.Mounted() {
		names = append(names, e.Spec.Name)
	}
	return strings.Join(names, ",")
}

// copyFile copies the test plugin to dst through a temp file and a rename,
// as an install does: a replaced binary is a new inode.
func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(filepath.Dir(dst), ".install.tmp")
	if err := os.WriteFile(tmp, b, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, dst); err != nil {
		t.Fatal(err)
	}
}

// keptEcho is the config of a host serving the echo test plugin whose
// description a first host, started and closed here, has kept.
func keptEcho(t *testing.T) Config {
	t.Helper()
	cfg := Config{PluginDirs: []string{pluginDir(t, "echo")}, ConfigDir: t.TempDir(), Roots: []string{t.TempDir()}}
	h, _ := startHost(t, cfg)
	_ = h.Close()
	return cfg
}

// TestAStaleKeptDescriptionGivesWayToTheProcesss: a kept description that
// no longer says what the plugin's process says (here edited on disk: the
// write tool poke listed as a read tool, so mounted without --write) lists
// the tools until the process starts; the call that started it is refused,
// as it was let through on the stale listing; the tools follow the
// process's own description from then on (poke is no longer served to a
// read-only client), and the kept one is replaced.
func TestAStaleKeptDescriptionGivesWayToTheProcesss(t *testing.T) {
	t.Parallel()
	cfg := keptEcho(t)

	kept := keptFile(t, cfg.ConfigDir, "echo")
	editKept(t, kept, func(tool map[string]any) {
		if tool["Name"] == "poke" {
			tool["Kind"], tool["Description"] = float64(sdk.KindRead), "STALE"
		}
	})

	h, logs := startHost(t, cfg)
	if e, ok := h.Catalog().Get("poke"); !ok || e.Spec.Description != "STALE" || !h.callable(e, false) {
		t.Fatalf("poke not served read-only from the stale kept description")
	}
	res, err := callText(t, h, "poke", map[string]any{})
	if err == nil || !strings.Contains(err.Error(), "list the tools and call again") {
		t.Fatalf("call let through on a stale listing = %v, %v; want refused", res, err)
	}
	if e, ok := h.Catalog().Get("poke"); !ok || e.Spec.Kind != sdk.KindWrite || h.callable(e, false) {
		t.Errorf("poke after the process described itself: %+v, want a write tool the read-only client cannot call", e)
	}
	if res, err := callText(t, h, "echo", map[string]any{"text": "hi"}); err != nil || res.Text() != "hi" {
		t.Errorf("echo after = %v, %v; logs:\n%s", res, err, logs)
	}
	if now, _ := os.ReadFile(kept); strings.Contains(string(now), "STALE") {
		t.Errorf("the kept description still holds the stale tool")
	}
}

// keptFiles are the description files kept for the plugin name in the
// config dir cfgDir.
func keptFiles(t *testing.T, cfgDir, name string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(cfgDir, "descriptions", name, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// keptFile is the one description file kept for name.
func keptFile(t *testing.T, cfgDir, name string) string {
	t.Helper()
	files := keptFiles(t, cfgDir, name)
	if len(files) != 1 {
		t.Fatalf("descriptions kept for %s: %v, want one", name, files)
	}
	return files[0]
}

// editKept rewrites every tool of the description kept in file with edit.
func editKept(t *testing.T, file string, edit func(tool map[string]any)) {
	t.Helper()
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var d map[string]any
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatal(err)
	}
	for _, g := range d["Groups"].([]any) {
		for _, tool := range g.(map[string]any)["Tools"].([]any) {
			edit(tool.(map[string]any))
		}
	}
	if raw, err = json.Marshal(d); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, raw, 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestChangedWordsDoNotRefuseTheFirstCall: a kept description whose tool
// differs from the process's only in words (its description) lets the
// first call through; the listing takes the process's words.
func TestChangedWordsDoNotRefuseTheFirstCall(t *testing.T) {
	t.Parallel()
	cfg := keptEcho(t)
	editKept(t, keptFile(t, cfg.ConfigDir, "echo"), func(tool map[string]any) {
		if tool["Name"] == "echo" {
			tool["Description"] = "OLD WORDS"
		}
	})
	h, logs := startHost(t, cfg)
	if res, err := callText(t, h, "echo", map[string]any{"text": "hi"}); err != nil || res.Text() != "hi" {
		t.Fatalf("first call = %v, %v; logs:\n%s", res, err, logs)
	}
	if e, _ := h.Catalog().Get("echo"); e == nil || e.Spec.Description != "Echo the text." {
		t.Errorf("echo listed as %+v after its process described it", e)
	}
}

// TestConcurrentFirstQueriesSeeTheWholeIndex: a query that comes while
// another builds the index waits for it.
func TestConcurrentFirstQueriesSeeTheWholeIndex(t *testing.T) {
	t.Parallel()
	for r := range 10 {
		h, _ := startHost(t, Config{})
		for g := range 3 {
			tools := map[string]string{}
			for i := range 15 {
				tools[fmt.Sprintf("g%d_widget_tool_%d", g, i)] = "Frobnicate the widget number " + fmt.Sprint(i)
			}
			if err := h.AddGroup(fmt.Sprintf("grp%d", g), probeBox(fmt.Sprintf("grp%d", g), tools)); err != nil {
				t.Fatal(err)
			}
		}
		var wg sync.WaitGroup
		counts := make([]int, 2)
		start := make(chan struct{})
		for i := range counts {
			wg.Go(func() {
				<-start
				res, err := h.Search(context.Background(), "frobnicate widget", 8, "")
				if err != nil {
					t.Error(err)
					return
				}
				for _, s := range res.Servers {
					counts[i] += len(s.Tools)
				}
			})
		}
		close(start)
		wg.Wait()
		if counts[0] != counts[1] || counts[0] == 0 {
			t.Errorf("round %d: two first queries at once found %d and %d tools", r, counts[0], counts[1])
		}
		_ = h.Close()
	}
}

// TestAKeptDescriptionTheCatalogWouldNotTakeIsNoDescription: a kept
// description with a misdeclared tool (which the catalog would refuse
// whole, where a live one only loses that tool) is a miss: the plugin is
// launched, described and served, not skipped for good.
func TestAKeptDescriptionTheCatalogWouldNotTakeIsNoDescription(t *testing.T) {
	t.Parallel()
	cfg := keptEcho(t)
	editKept(t, keptFile(t, cfg.ConfigDir, "echo"), func(tool map[string]any) {
		if tool["Name"] == "echo" {
			tool["Mode"] = string(sdk.SkillAuto) // a completion tool with a skill mode
		}
	})
	h, logs := startHost(t, cfg)
	p := h.Plugins()["echo"]
	if p == nil || p.Pid() == 0 {
		t.Fatalf("echo not launched after a kept description the catalog would refuse; skipped: %v; logs:\n%s", h.Skipped(), logs)
	}
	if res, err := callText(t, h, "echo", map[string]any{"text": "hi"}); err != nil || res.Text() != "hi" {
		t.Errorf("echo = %v, %v", res, err)
	}
}

// TestAnUnmountedPluginIsDescribedAgainWhenItsBinaryChanges: a plugin none
// of whose groups is mounted is described and stopped; a reload leaves it
// alone while its binary is the same, and describes it again once the
// binary is replaced.
func TestAnUnmountedPluginIsDescribedAgainWhenItsBinaryChanges(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bin := filepath.Join(dir, supervise.PluginPrefix+"optin")
	copyFile(t, testPlugin, bin)
	h, logs := startHost(t, Config{PluginDirs: []string{dir}}) // the opt-in group is not named in --groups
	const stopped = "none of its groups is mounted"
	if n := strings.Count(logs.String(), stopped); n != 1 {
		t.Fatalf("%d stops for an unmounted plugin at start, want 1; logs:\n%s", n, logs)
	}
	if err := h.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(logs.String(), stopped); n != 1 {
		t.Errorf("a reload with the same binary described it again (%d stops)", n)
	}
	copyFile(t, testPlugin, bin) // a new inode: a replaced binary
	if err := h.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(logs.String(), stopped); n != 2 {
		t.Errorf("a reload after the binary was replaced: %d stops, want 2 (described again); logs:\n%s", n, logs)
	}
}

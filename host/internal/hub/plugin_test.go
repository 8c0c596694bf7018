package hub

import (
	"context"
	"encoding/json"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ramabana/ramabana-mcp/host/internal/activity"
	"github.com/ramabana/ramabana-mcp/internal/proctest"
	"github.com/ramabana/ramabana-mcp/sdk"
)

// TestCallJustAfterThePluginDiedGoesThrough: a call made as soon as the
// plugin process died, before go-plugin has noticed, relaunches it and
// succeeds; tried on three hosts (a second quick death on one host would
// meet the crash-loop backoff instead).
func TestCallJustAfterThePluginDiedGoesThrough(t *testing.T) {
	t.Parallel()
	dir := pluginDir(t, "echo")
	for i := range 3 {
		t.Run(strconv.Itoa(i), func(t *testing.T) {
			t.Parallel()
			h, logs := startHost(t, Config{PluginDirs: []string{dir}})
			p := h.Plugins()["echo"]
			pid := p.Pid()
			if err := proctest.Kill(pid); err != nil {
				t.Fatal(err)
			}
			for deadline := time.Now().Add(10 * time.Second); proctest.Alive(pid) && time.Now().Before(deadline); {
				time.Sleep(time.Millisecond)
			}
			res, err := callText(t, h, "pid", map[string]any{})
			if err != nil || res.IsError {
				t.Fatalf("call after the plugin died = %v, %v; logs:\n%s", res, err, logs)
			}
			if res.Text() == strconv.Itoa(pid) {
				t.Fatalf("answered by the dead process %d", pid)
			}
			if got := p.Health().Restarts; got != 1 {
				t.Errorf("restarts = %d, want 1", got)
			}
		})
	}
}

// TestEveryCallHasItsID: the host gives every call its own id, which the
// group sees, the activity feed records and the log lines carry.
func TestEveryCallHasItsID(t *testing.T) {
	t.Parallel()
	h, logs := startHost(t, Config{})
	box := sdk.NewToolbox("probe", sdk.WithVersion("0"), sdk.WithDescription("probe"))
	box.AddGroup(sdk.GroupSpec{Name: "probe"},
		sdk.Tool{Spec: sdk.ToolSpec{Name: "call_id", Kind: sdk.KindRead, InputSchema: json.RawMessage(`{"type":"object"}`)},
			Handler: func(_ context.Context, req *sdk.Request) (*sdk.Result, error) { return sdk.TextResult(req.ID), nil }})
	if err := h.AddGroup("probe", box); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for range 3 {
		res, err := callText(t, h, "call_id", map[string]any{})
		if err != nil || res.Text() == "" {
			t.Fatalf("call_id = %v, %v", res, err)
		}
		seen[res.Text()] = true
	}
	if len(seen) != 3 {
		t.Errorf("ids %v, want 3 distinct", seen)
	}
	for _, r := range h.Activity().Recent(0, activity.Filter{Tool: "call_id"}) {
		if !seen[r.CallID] {
			t.Errorf("activity record %d has call id %q, not one the group saw", r.Seq, r.CallID)
		}
		if !strings.Contains(logs.String(), "call_id="+r.CallID) {
			t.Errorf("no log line with call_id=%s", r.CallID)
		}
	}
}

// TestCancelCallsEndsTheCallsInFlight: CancelCalls ends a call the plugin
// is running, and the plugin sees the cancellation.
func TestCancelCallsEndsTheCallsInFlight(t *testing.T) {
	t.Parallel()
	h, _ := startHost(t, Config{PluginDirs: []string{pluginDir(t, "echo")}})
	started := make(chan struct{})
	errc := make(chan error, 1)
	go func() {
		_, err := h.Call(context.Background(), "slow", json.RawMessage(`{"seconds": 60}`), &firstProgress{ch: started})
		errc <- err
	}()
	<-started
	h.CancelCalls()
	select {
	case err := <-errc:
		if err == nil || !strings.Contains(err.Error(), "cancel") {
			t.Errorf("call after CancelCalls: err = %v, want it cancelled", err)
		}
	case <-time.After(proctest.Patience):
		t.Fatal("the call ran on after CancelCalls")
	}
	if _, err := callText(t, h, "echo", map[string]any{"text": "x"}); err == nil {
		t.Error("a call after CancelCalls ran")
	}
}

// TestPluginsRunOnOneCPU: a Go plugin runs on one CPU (the call hop is
// cheaper so), one served WithAllCPUs on every CPU, and a GOMAXPROCS the
// user set reaches every plugin and wins.
func TestPluginsRunOnOneCPU(t *testing.T) {
	if runtime.NumCPU() < 2 {
		t.Skip("one CPU: every setting reads 1")
	}
	gomaxprocs := func(t *testing.T, h *Host, tool string) string {
		t.Helper()
		res, err := callText(t, h, tool, map[string]any{})
		if err != nil || res.IsError {
			t.Fatalf("%s = %v, %v", tool, res, err)
		}
		return res.Text()
	}
	dir := pluginDir(t, "procs", "procsall")
	t.Run("default", func(t *testing.T) {
		h, _ := startHost(t, Config{PluginDirs: []string{dir}})
		if got := gomaxprocs(t, h, "procs_gomaxprocs"); got != "1" {
			t.Errorf("GOMAXPROCS of a plugin = %s, want 1", got)
		}
		if got, want := gomaxprocs(t, h, "procsall_gomaxprocs"), strconv.Itoa(runtime.NumCPU()); got != want {
			t.Errorf("GOMAXPROCS of a plugin served WithAllCPUs = %s, want %s", got, want)
		}
	})
	t.Run("invalid", func(t *testing.T) {
		t.Setenv("GOMAXPROCS", "many") // the runtime ignores it: so does the SDK
		h, _ := startHost(t, Config{PluginDirs: []string{dir}})
		if got := gomaxprocs(t, h, "procs_gomaxprocs"); got != "1" {
			t.Errorf("GOMAXPROCS of a plugin with GOMAXPROCS=many = %s, want 1", got)
		}
	})
	t.Run("user's", func(t *testing.T) {
		t.Setenv("GOMAXPROCS", "3")
		h, _ := startHost(t, Config{PluginDirs: []string{dir}})
		for _, tool := range []string{"procs_gomaxprocs", "procsall_gomaxprocs"} {
			if got := gomaxprocs(t, h, tool); got != "3" {
				t.Errorf("%s with GOMAXPROCS=3 set = %s, want 3", tool, got)
			}
		}
	})
}

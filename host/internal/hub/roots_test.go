package hub

import (
	"context"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"testing"

	"github.com/ramabana/ramabana-mcp/internal/proctest"
)

// SetRoots registers every plugin again for the new folders: the tools are
// there whenever the clients are told of a change (once, at the end), the
// old process is gone, and the next call starts one for the new folders.
func TestSetRootsSwapsThePlugins(t *testing.T) {
	t.Parallel()
	h, _ := startHost(t, Config{PluginDirs: []string{pluginDir(t, "echo")}})
	res, err := callText(t, h, "pid", map[string]any{})
	if err != nil || res.IsError {
		t.Fatalf("pid: %v %v", err, res)
	}
	oldPid, err := strconv.Atoi(res.Text())
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var seen [][]string // the tools at each change told
	stop := h.OnToolsChanged(func() {
		var names []string
		for _, e := range h.Mounted() {
			names = append(names, e.Spec.Name)
		}
		mu.Lock()
		seen = append(seen, names)
		mu.Unlock()
	})
	defer stop()

	dir := t.TempDir()
	if err := h.SetRoots(context.Background(), []string{dir, dir}); err != nil {
		t.Fatal(err)
	}
	real, _ := filepath.EvalSymlinks(dir)
	if got := h.Roots(); !slices.Equal(got, []string{real}) {
		t.Errorf("roots %v; want %v, once", got, []string{real})
	}
	mu.Lock()
	if len(seen) != 1 || !slices.Contains(seen[0], "echo") {
		t.Errorf("changes told: %v; want one, with echo in it", seen)
	}
	mu.Unlock()
	if !proctest.Await(func() bool { return !proctest.Alive(oldPid) }) {
		t.Errorf("the old plugin process %d still runs", oldPid)
	}
	res, err = callText(t, h, "echo", map[string]any{"text": "again"})
	if err != nil || res.IsError || res.Text() != "again" {
		t.Errorf("echo after the swap = %v, %v", res, err)
	}
	// The same roots again change nothing; a file is no folder to serve.
	if err := h.SetRoots(context.Background(), []string{dir}); err != nil {
		t.Error(err)
	}
	if err := h.SetRoots(context.Background(), []string{filepath.Join(dir, "missing")}); err == nil {
		t.Error("SetRoots of a missing folder = nil; want an error")
	}
	if got := h.Roots(); !slices.Equal(got, []string{real}) {
		t.Errorf("after a refused SetRoots, roots %v; want %v", got, []string{real})
	}
}

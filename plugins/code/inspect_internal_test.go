package code

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ramabana/ramabana-mcp/internal/proctest"
	"github.com/ramabana/ramabana-mcp/sdk"
	"github.com/ramabana/ramabana-mcp/sdk/sdktest"
)

var hangs atomic.Int64

// hangingProject is a served folder whose module hang never finishes
// importing: before it blocks, it starts a child named by the returned
// marker (its argv[0]) and then writes the file "started". The folder's
// path, on python3's command line as its cwd, names python3 itself for
// proctest.Marked.
func hangingProject(t *testing.T) (dir, marker string) {
	t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not on PATH")
	}
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	marker = fmt.Sprintf("hang-child-%d-%d", os.Getpid(), hangs.Add(1))
	mod := fmt.Sprintf(`import os, subprocess, threading
subprocess.Popen([%q, "300"], executable="sleep")
open("started.tmp", "w").close()
os.rename("started.tmp", "started")
threading.Event().wait()
`, marker)
	if err := os.WriteFile(filepath.Join(dir, "hang.py"), []byte(mod), 0o644); err != nil {
		t.Fatal(err)
	}
	// Whatever a failed test leaves running ends with it.
	t.Cleanup(func() {
		for _, pid := range append(proctest.Marked(marker), proctest.Marked(dir)...) {
			_ = proctest.Kill(pid)
		}
	})
	return dir, marker
}

// TestInspectPythonTimeout imports a module that never finishes: the call
// fails with the timeout, and python3 has ended when it returns. The
// timeout always fires, however slowly python3 starts; whether the
// module's child had started by then is up to the machine, so what a kill
// takes along is TestInspectPythonCancelKillsTheGroup's subject.
func TestInspectPythonTimeout(t *testing.T) {
	t.Parallel()
	dir, _ := hangingProject(t)
	g, _ := sdktest.Connect(t, newToolbox(time.Second), sdk.Host{Roots: []string{dir}, Commands: true})
	res := sdktest.Call(t, g, "inspect_python", map[string]any{"target": "hang.x"})
	want := "python3 did not finish inspecting hang.x within 1s and was killed; importing it may hang, wait for input or do heavy work at import time"
	if !res.IsError || res.Text() != want {
		t.Errorf("got %q (error %v), want the error %q", res.Text(), res.IsError, want)
	}
	if left := proctest.Marked(dir); len(left) > 0 {
		t.Errorf("python3 still runs after the call: %v", left)
	}
}

// TestInspectPythonCancelKillsTheGroup cancels the call once the module's
// child runs: python3 and the child, in its process group, are killed. A
// timeout stops python3 through the same context.
func TestInspectPythonCancelKillsTheGroup(t *testing.T) {
	t.Parallel()
	dir, marker := hangingProject(t)
	g, _ := sdktest.Connect(t, New(), sdk.Host{Roots: []string{dir}, Commands: true})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	args, _ := json.Marshal(map[string]any{"target": "hang.x"})
	ended := make(chan error, 1)
	go func() {
		_, err := g.Call(ctx, &sdk.Call{Tool: "inspect_python", Arguments: args}, nil)
		ended <- err
	}()
	started := func() bool { _, err := os.Stat(filepath.Join(dir, "started")); return err == nil }
	if !proctest.Await(func() bool { return started() || len(ended) > 0 }) || !started() {
		t.Fatalf("the module did not start its child within %s", proctest.Patience)
	}
	// The child runs by now (Popen returns once it has exec'd); a process
	// list read under heavy load has been seen to miss it once, so it is
	// read until it shows.
	if !proctest.Await(func() bool { return len(proctest.Marked(marker)) == 1 }) {
		t.Fatalf("the module's child: running %v, want one process", proctest.Marked(marker))
	}
	cancel()
	if err := <-ended; !errors.Is(err, context.Canceled) {
		t.Errorf("call after cancel: %v, want context.Canceled", err)
	}
	// The client returns at once; the plugin kills the group behind it.
	if !proctest.Await(func() bool { return len(proctest.Marked(marker))+len(proctest.Marked(dir)) == 0 }) {
		t.Errorf("still running %s after the cancel: child %v, python3 %v", proctest.Patience, proctest.Marked(marker), proctest.Marked(dir))
	}
}

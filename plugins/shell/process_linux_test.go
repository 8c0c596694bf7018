package shell_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ramabana/ramabana-mcp/plugins/shell"
	"github.com/ramabana/ramabana-mcp/sdk"
)

// procState is the state letter of a process ('Z' for a zombie) and its
// process group, from /proc; ok is false when the process is gone.
func procState(pid int) (state byte, pgrp int, ok bool) {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0, false
	}
	f := bytes.Fields(stat[bytes.LastIndexByte(stat, ')')+1:])
	pgrp, _ = strconv.Atoi(string(f[2]))
	return f[0][0], pgrp, true
}

// running lists the processes that are in group pgid or among pids and
// still run (not zombies).
func running(t *testing.T, pgid int, pids []int) []int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var found []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		state, pgrp, ok := procState(pid)
		if ok && state != 'Z' && state != 'X' && (pgrp == pgid || containsInt(pids, pid)) {
			found = append(found, pid)
		}
	}
	return found
}

func containsInt(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// pids parses the lines of text as process ids.
func pids(t *testing.T, text string) []int {
	t.Helper()
	var out []int
	for _, f := range strings.Fields(text) {
		pid, err := strconv.Atoi(f)
		if err != nil {
			t.Fatalf("not a pid: %q in %q", f, text)
		}
		out = append(out, pid)
	}
	if len(out) == 0 {
		t.Fatalf("no pids in %q", text)
	}
	return out
}

// killOnCleanup makes sure a test's processes end even when it fails.
func killOnCleanup(t *testing.T, pgid int, pids []int) {
	t.Cleanup(func() {
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		for _, pid := range pids {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})
}

// TestNothingOutlivesTheCall runs commands that leave processes behind and
// checks that, once the call has returned, none of them runs. The first pid
// each command prints is the shell's, which is its process group.
func TestNothingOutlivesTheCall(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tests := map[string]struct {
		command  string
		timeout  int
		wantHead string // the start of the result text
		isError  bool
	}{
		"timeout kills foreground and background": {
			command:  "echo $$; sleep 30 & echo $!; sleep 30 & echo $!; sleep 30; wait",
			timeout:  1,
			wantHead: "timed out after 1s (timeout_seconds): the command and every process it started were stopped.",
			isError:  true,
		},
		"timeout kills what ignores SIGTERM": {
			command:  "trap '' TERM; echo $$; sleep 30 & echo $!; bash -c 'trap \"\" TERM; sleep 30' & echo $!; wait",
			timeout:  1,
			wantHead: "timed out after 1s",
			isError:  true,
		},
		"timeout kills a subshell pipeline": {
			command:  "echo $$; (sleep 30 | cat) & echo $!; while :; do sleep 0.1; done",
			timeout:  1,
			wantHead: "timed out after 1s",
			isError:  true,
		},
		"background job holding stdout": {
			command:  "echo $$; sleep 60 & echo $!; exit 0",
			timeout:  60,
			wantHead: "exit 0 in T\nnote: processes the command left running in the background were stopped when the shell exited",
		},
		"background job with its output redirected": {
			command:  "echo $$; sleep 60 >/dev/null 2>&1 & echo $!",
			timeout:  60,
			wantHead: "exit 0 in T\nnote: processes the command left running in the background were stopped",
		},
		"nohup does not escape": {
			command:  "echo $$; nohup sleep 60 >/dev/null 2>&1 & echo $!; exit 4",
			timeout:  60,
			wantHead: "exit 4 in T (non-zero exit status: the command failed)\nnote: processes the command left running",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			res := e.run(t, map[string]any{"command": tc.command, "timeout_seconds": tc.timeout})
			text := normalize(res.Text())
			ids := pids(t, section(text, "stdout"))
			killOnCleanup(t, ids[0], ids[1:])
			if !strings.HasPrefix(text, tc.wantHead) || res.IsError != tc.isError {
				t.Errorf("got error=%t\n%s\nwant error=%t, starting with\n%s", res.IsError, text, tc.isError, tc.wantHead)
			}
			if left := running(t, ids[0], ids); len(left) > 0 {
				t.Errorf("still running after the call: %v (group %d, printed %v)", left, ids[0], ids)
			}
		})
	}
}

// waitFile waits for path to hold a complete line and returns its content.
func waitFile(t *testing.T, path string, done <-chan struct{}) string {
	t.Helper()
	for {
		if b, err := os.ReadFile(path); err == nil && bytes.HasSuffix(b, []byte("\n")) {
			return string(b)
		}
		select {
		case <-done:
			t.Fatalf("the call ended before %s was written", path)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// cancelCommand writes the shell's pid and a background child's into a
// file (renamed into place, so it is read whole), then waits.
const cancelCommand = "{ echo $$; sleep 30 & echo $!; } > pids.tmp; mv pids.tmp pids; sleep 30; wait"

func TestCancelOverGRPC(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	args, _ := json.Marshal(map[string]any{"command": cancelCommand})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	type answer struct {
		res *sdk.Result
		err error
	}
	done, answered := make(chan struct{}), make(chan answer, 1)
	go func() {
		defer close(done)
		res, err := e.g.Call(ctx, &sdk.Call{Tool: "run_command", Arguments: args}, nil)
		answered <- answer{res, err}
	}()
	ids := pids(t, waitFile(t, filepath.Join(e.root, "pids"), done))
	killOnCleanup(t, ids[0], ids[1:])
	cancel()
	<-done
	if a := <-answered; !errors.Is(a.err, context.Canceled) {
		t.Errorf("call after cancel: %v, %v; want context.Canceled", a.res, a.err)
	}
	// The client returns at once; the plugin stops the group behind it.
	// SIGTERM ends these processes, so this takes far less than the grace.
	deadline := time.Now().Add(10 * time.Second)
	for len(running(t, ids[0], ids)) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("still running 10s after the cancel: %v", running(t, ids[0], ids))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestCancelInProcess(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	box := shell.New()
	if _, err := box.Describe(context.Background(), sdk.Host{Roots: []string{e.root}}); err != nil {
		t.Fatal(err)
	}
	args, _ := json.Marshal(map[string]any{"command": "echo partial; " + cancelCommand})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan struct{})
	var res *sdk.Result
	var err error
	go func() {
		defer close(done)
		res, err = box.Call(ctx, &sdk.Call{Tool: "run_command", Arguments: args}, nil)
	}()
	ids := pids(t, waitFile(t, filepath.Join(e.root, "pids"), done))
	killOnCleanup(t, ids[0], ids[1:])
	cancel()
	<-done
	if err != nil {
		t.Fatal(err)
	}
	text := normalize(res.Text())
	if !res.IsError || !strings.HasPrefix(text, "cancelled after ") || section(text, "stdout") != "partial" {
		t.Errorf("got error=%t\n%s\nwant a cancelled error result with the output so far", res.IsError, text)
	}
	if left := running(t, ids[0], ids); len(left) > 0 {
		t.Errorf("still running after the call: %v", left)
	}
}

// TestEscapedProcessDoesNotHang: a process that leaves the group with
// setsid is out of reach, but holding the output open must not make the
// call wait for it.
func TestEscapedProcessDoesNotHang(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("no setsid")
	}
	e := newEnv(t)
	done := make(chan struct{})
	var res *sdk.Result
	go func() {
		defer close(done)
		res = e.run(t, map[string]any{
			"command": `setsid sh -c 'echo $$ > escaped.tmp; mv escaped.tmp escaped; exec sleep 60' & while [ ! -e escaped ]; do sleep 0.05; done; echo done`,
		})
	}()
	escaped := pids(t, waitFile(t, filepath.Join(e.root, "escaped"), done))
	t.Cleanup(func() { _ = syscall.Kill(escaped[0], syscall.SIGKILL) })
	<-done
	want := "exit 0 in T\nnote: a process that left the command's process group (setsid or similar) kept the output open and was not stopped; its later output was not read\n--- stdout ---\ndone"
	if got := normalize(res.Text()); got != want || res.IsError {
		t.Errorf("got error=%t\n%s\nwant\n%s", res.IsError, got, want)
	}
}

package shell_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ramabana/ramabana-mcp/internal/sandbox"
	"github.com/ramabana/ramabana-mcp/plugins/shell"
	"github.com/ramabana/ramabana-mcp/sdk"

	"github.com/ramabana/ramabana-mcp/internal/proctest"
)

// These tests find a command's processes by a unique marker in their
// command line (their argv[0], set with exec -a), never by a pid the
// command printed: inside its pid namespace $$ is 1, and kill(-1) would
// reach every process of the user.

var markers atomic.Int64

// marker is a process name unique to this test process and call.
type marker string

func newMarker() marker {
	return marker(fmt.Sprintf("shtest-%d-%d", os.Getpid(), markers.Add(1)))
}

// quoted is the marker as command text that does not contain it (bash
// joins the quotes away), so that the shell's own command line does not
// match.
func (m marker) quoted() string { return string(m[:2]) + "''" + string(m[2:]) }

// pattern is a grep pattern for the marker that does not match itself.
func (m marker) pattern() string { return string(m[:1]) + "[" + string(m[1:2]) + "]" + string(m[2:]) }

// escape is command text that starts a process named m, in the way named,
// outside the command's process group.
func (m marker) escape(how string) string {
	switch how {
	case "setsid":
		return fmt.Sprintf(`setsid bash -c 'exec -a %s sleep 300' </dev/null >/dev/null 2>&1 & `, m.quoted())
	case "setsid holding the output":
		return fmt.Sprintf(`setsid bash -c 'exec -a %s sleep 300' & `, m.quoted())
	case "double fork":
		return fmt.Sprintf(`( ( exec -a %s sleep 300 & ) & ); `, m.quoted())
	case "python":
		return fmt.Sprintf(`python3 -c 'import os, sys
os.setsid()
if os.fork() == 0:
    os.execvp("sleep", [sys.argv[1], "300"])
' %s; `, m.quoted())
	case "background":
		return fmt.Sprintf(`(exec -a %s sleep 300) & `, m.quoted())
	case "background ignoring SIGTERM":
		return fmt.Sprintf(`bash -c 'trap "" TERM; exec -a %s sleep 300' & `, m.quoted())
	}
	panic(how)
}

// started is command text that waits until a process named m runs, then
// prints "started". Only the call's timeout bounds the wait: how long the
// process takes to start is the machine's business.
func (m marker) started() string {
	return fmt.Sprintf("\nuntil grep -qsa -- '%s' /proc/[0-9]*/cmdline; do sleep 0.01; done\necho started\n", m.pattern())
}

// flagged is command text that runs start, waits until a process named m
// runs, writes "started" into the file "flag" (renamed into place, so it is
// read whole), then runs after.
func (m marker) flagged(start, after string) string {
	return "{ " + start + m.started() + "} > flag.tmp; mv flag.tmp flag; " + after
}

// running lists the live processes (not zombies) named by the marker.
func (m marker) running(t *testing.T) []int {
	t.Helper()
	return proctest.Marked(string(m))
}

// killOnCleanup makes sure the marked processes end even when a test
// fails.
func (m marker) killOnCleanup(t *testing.T) {
	t.Cleanup(func() {
		for _, pid := range m.running(t) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})
}

// waitGone waits until no marked process runs; the call's return already
// guarantees it except after a cancellation over gRPC or a kill of the
// plugin, where the stop happens behind it.
func (m marker) waitGone(t *testing.T) {
	t.Helper()
	if !proctest.Await(func() bool { return len(m.running(t)) == 0 }) {
		t.Fatalf("still running %s later: %v", proctest.Patience, m.running(t))
	}
}

func havePython(t *testing.T, how string) {
	if how == "python" {
		if _, err := exec.LookPath("python3"); err != nil {
			t.Skip("no python3")
		}
	}
}

// TestNothingOutlivesTheCall runs commands that leave processes behind, in
// and out of their process group, and checks that once the call has
// returned none of them runs: when the shell exits, and when the call is
// cancelled. A cancellation comes once the process to escape runs, so
// every case tests its escape whatever the machine's speed; a timeout
// stops the command as a cancellation does (TestTimeoutStopsTheCommand).
func TestNothingOutlivesTheCall(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		escape string
		setup  string // command text before the escape
		after  string // command text once the escape runs
		cancel bool   // cancel the call once the escape runs
		// wantHead starts the result, which is an error when cancelled.
		wantHead string
	}{
		"background job, shell exits":            {escape: "background", after: "exit 0", wantHead: "exit 0 in T"},
		"background job, cancelled":              {escape: "background", after: "sleep 30", cancel: true},
		"SIGTERM ignored, cancelled":             {escape: "background ignoring SIGTERM", setup: "trap '' TERM; ", after: "sleep 30", cancel: true},
		"subshell pipeline, cancelled":           {escape: "background", setup: "(sleep 30 | cat) & ", after: "while :; do sleep 0.1; done", cancel: true},
		"nohup, shell exits":                     {escape: "background", after: "nohup sleep 60 >/dev/null 2>&1 & exit 4", wantHead: "exit 4 in T (non-zero exit status: the command failed)"},
		"setsid daemon, shell exits":             {escape: "setsid", after: "exit 0", wantHead: "exit 0 in T"},
		"setsid daemon, cancelled":               {escape: "setsid", after: "sleep 30", cancel: true},
		"setsid holding the output, shell exits": {escape: "setsid holding the output", after: "exit 0", wantHead: "exit 0 in T"},
		"double fork, shell exits":               {escape: "double fork", after: "exit 0", wantHead: "exit 0 in T"},
		"double fork, cancelled":                 {escape: "double fork", after: "sleep 30", cancel: true},
		"python setsid and fork, shell exits":    {escape: "python", after: "exit 0", wantHead: "exit 0 in T"},
		"python setsid and fork, cancelled":      {escape: "python", after: "sleep 30", cancel: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			havePython(t, tc.escape)
			e := newEnv(t)
			m := newMarker()
			m.killOnCleanup(t)
			var res *sdk.Result
			wantHead, wantOut := tc.wantHead, "started"
			if tc.cancel {
				res = e.cancelWhenFlagged(t, m.flagged(tc.setup+m.escape(tc.escape), tc.after))
				wantHead, wantOut = cancelledHead, ""
			} else {
				res = e.run(t, map[string]any{"command": tc.setup + m.escape(tc.escape) + m.started() + tc.after, "timeout_seconds": 60})
			}
			text := normalize(res.Text())
			if got := section(text, "stdout"); got != wantOut {
				t.Fatalf("stdout %q, want %q:\n%s", got, wantOut, text)
			}
			if !strings.HasPrefix(text, wantHead) || res.IsError != tc.cancel {
				t.Errorf("got error=%t\n%s\nwant error=%t, starting with\n%s", res.IsError, text, tc.cancel, wantHead)
			}
			if left := m.running(t); len(left) > 0 {
				t.Errorf("still running after the call: %v", left)
			}
		})
	}
}

// cancelledHead is a cancelled call's first line, its duration normalised.
const cancelledHead = "cancelled after T: the command and every process it started were stopped. Output until then is below."

// TestTimeoutStopsTheCommand: the command never ends on its own, so the timeout fires
// however slow the machine; the result says so, and what the command
// started has ended with the call.
func TestTimeoutStopsTheCommand(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	m := newMarker()
	m.killOnCleanup(t)
	res := e.run(t, map[string]any{"command": fmt.Sprintf("(exec -a %s sleep 300) & wait", m.quoted()), "timeout_seconds": 1})
	want := "timed out after 1s (timeout_seconds): the command and every process it started were stopped. Output until then is below; if the command needs longer, raise timeout_seconds (at most 1800).\n(no output)"
	if diff := cmp.Diff(want, res.Text()); diff != "" || !res.IsError {
		t.Errorf("error=%t, want an error result; text (-want +got):\n%s", res.IsError, diff)
	}
	if left := m.running(t); len(left) > 0 {
		t.Errorf("still running after the call: %v", left)
	}
}

// waitFile waits for path to hold a complete line and returns its content.
func waitFile(t *testing.T, path string, done <-chan struct{}) string {
	t.Helper()
	var b []byte
	ended := false
	written := func() bool {
		var err error
		b, err = os.ReadFile(path)
		return err == nil && bytes.HasSuffix(b, []byte("\n"))
	}
	proctest.Await(func() bool {
		select {
		case <-done:
			ended = true
		default:
		}
		return written() || ended
	})
	switch {
	case written():
		return string(b)
	case ended:
		t.Fatalf("the call ended before %s was written", path)
	default:
		t.Fatalf("%s was not written within %s", path, proctest.Patience)
	}
	return ""
}

// cancelCommand starts processes named m every way it can, writes
// "started" into the file "flag" once they run, then waits.
func cancelCommand(m marker) string {
	var b strings.Builder
	for _, how := range []string{"background", "setsid", "double fork"} {
		b.WriteString(m.escape(how))
	}
	if _, err := exec.LookPath("python3"); err == nil {
		b.WriteString(m.escape("python"))
	}
	return m.flagged(b.String(), "sleep 30; wait")
}

// cancelWhenFlagged runs command in-process, where the call returns only
// once everything the command started is stopped, and cancels the call
// once the command has written "started" into the file "flag".
func (e *env) cancelWhenFlagged(t *testing.T, command string) *sdk.Result {
	t.Helper()
	box := shell.New()
	if _, err := box.Describe(context.Background(), sdk.Host{Roots: []string{e.root}}); err != nil {
		t.Fatal(err)
	}
	args, _ := json.Marshal(map[string]any{"command": command})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan struct{})
	var res *sdk.Result
	var err error
	go func() {
		defer close(done)
		res, err = box.Call(ctx, &sdk.Call{Tool: "run_command", Arguments: args}, nil)
	}()
	if got := waitFile(t, filepath.Join(e.root, "flag"), done); got != "started\n" {
		t.Fatalf("flag: %q", got)
	}
	cancel()
	<-done
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestCancelOverGRPC(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	m := newMarker()
	m.killOnCleanup(t)
	args, _ := json.Marshal(map[string]any{"command": cancelCommand(m)})
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
	if got := waitFile(t, filepath.Join(e.root, "flag"), done); got != "started\n" {
		t.Fatalf("flag: %q", got)
	}
	cancel()
	<-done
	if a := <-answered; !errors.Is(a.err, context.Canceled) {
		t.Errorf("call after cancel: %v, %v; want context.Canceled", a.res, a.err)
	}
	// The client returns at once; the plugin stops the command behind it.
	m.waitGone(t)
}

func TestCancelInProcess(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	m := newMarker()
	m.killOnCleanup(t)
	res := e.cancelWhenFlagged(t, "echo partial; "+cancelCommand(m))
	text := normalize(res.Text())
	if want := cancelledHead + "\n--- stdout ---\npartial"; !res.IsError || text != want {
		t.Errorf("got error=%t\n%s\nwant a cancelled error result with the output so far:\n%s", res.IsError, text, want)
	}
	if left := m.running(t); len(left) > 0 {
		t.Errorf("still running after the call: %v", left)
	}
}

// TestSandboxApplies checks what the command runs under on this machine.
func TestSandboxApplies(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	res := e.run(t, map[string]any{"command": "echo $$; grep -E '^CapEff' /proc/self/status"})
	out := section(normalize(res.Text()), "stdout")
	want := "CapEff:\t0000000000000000"
	if sandbox.Probe().Reaping == sandbox.ReapPidNS || sandbox.Probe().Reaping == sandbox.ReapUserPidNS {
		want = "1\n" + want
	}
	if !strings.HasSuffix(out, want) || (strings.HasPrefix(want, "1\n") && !strings.HasPrefix(out, "1\n")) {
		t.Errorf("got %q, want %q", out, want)
	}
}

func syscallKill(pid int) error { return syscall.Kill(pid, syscall.SIGKILL) }

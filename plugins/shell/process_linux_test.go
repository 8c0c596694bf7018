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
	"time"

	"github.com/ramabana/ramabana-mcp/plugins/shell"
	"github.com/ramabana/ramabana-mcp/sandbox"
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

// started is command text that waits (bounded) until a process named m
// runs, then prints "started".
func (m marker) started() string {
	return fmt.Sprintf("\nfor i in $(seq 1000); do grep -qsa -- '%[1]s' /proc/[0-9]*/cmdline && break; sleep 0.01; done\n"+
		"grep -qsa -- '%[1]s' /proc/[0-9]*/cmdline && echo started\n", m.pattern())
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

// waitGone waits, bounded, until no marked process runs; the call's
// return already guarantees it except after a cancellation or a kill of
// the plugin, where the stop happens behind it.
func (m marker) waitGone(t *testing.T) {
	t.Helper()
	for i := 0; len(m.running(t)) > 0; i++ {
		if i == 500 {
			t.Fatalf("still running 10s later: %v", m.running(t))
		}
		time.Sleep(20 * time.Millisecond)
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
// returned none of them runs: when the shell exits, and on timeout.
func TestNothingOutlivesTheCall(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tests := map[string]struct {
		escape   string
		after    string // command text after the escape has started
		timeout  int
		wantHead string
		isError  bool
	}{
		"background job, shell exits":            {escape: "background", after: "exit 0", timeout: 60, wantHead: "exit 0 in T"},
		"background job, timeout":                {escape: "background", after: "sleep 30", timeout: 1, wantHead: "timed out after 1s (timeout_seconds): the command and every process it started were stopped.", isError: true},
		"SIGTERM ignored, timeout":               {escape: "background ignoring SIGTERM", after: "trap '' TERM; sleep 30", timeout: 1, wantHead: "timed out after 1s", isError: true},
		"subshell pipeline, timeout":             {escape: "background", after: "(sleep 30 | cat) & while :; do sleep 0.1; done", timeout: 1, wantHead: "timed out after 1s", isError: true},
		"nohup, shell exits":                     {escape: "background", after: "nohup sleep 60 >/dev/null 2>&1 & exit 4", timeout: 60, wantHead: "exit 4 in T (non-zero exit status: the command failed)"},
		"setsid daemon, shell exits":             {escape: "setsid", after: "exit 0", timeout: 60, wantHead: "exit 0 in T"},
		"setsid daemon, timeout":                 {escape: "setsid", after: "sleep 30", timeout: 1, wantHead: "timed out after 1s", isError: true},
		"setsid holding the output, shell exits": {escape: "setsid holding the output", after: "exit 0", timeout: 60, wantHead: "exit 0 in T"},
		"double fork, shell exits":               {escape: "double fork", after: "exit 0", timeout: 60, wantHead: "exit 0 in T"},
		"double fork, timeout":                   {escape: "double fork", after: "sleep 30", timeout: 1, wantHead: "timed out after 1s", isError: true},
		"python setsid and fork, shell exits":    {escape: "python", after: "exit 0", timeout: 60, wantHead: "exit 0 in T"},
		"python setsid and fork, timeout":        {escape: "python", after: "sleep 30", timeout: 1, wantHead: "timed out after 1s", isError: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			havePython(t, tc.escape)
			m := newMarker()
			m.killOnCleanup(t)
			// A timeout must outlast the escape's start (python3 alone can
			// take seconds on a slow machine): it grows until the escape had
			// started when the call timed out, so the test holds there too.
			timeouts := []int{tc.timeout}
			if tc.timeout < 60 {
				timeouts = append(timeouts, 4*tc.timeout, 16*tc.timeout)
			}
			var text string
			var res *sdk.Result
			wantHead := tc.wantHead
			for _, timeout := range timeouts {
				res = e.run(t, map[string]any{"command": m.escape(tc.escape) + m.started() + tc.after, "timeout_seconds": timeout})
				text = normalize(res.Text())
				wantHead = strings.Replace(tc.wantHead, fmt.Sprintf("after %ds", tc.timeout), fmt.Sprintf("after %ds", timeout), 1)
				if section(text, "stdout") == "started" {
					break
				}
				t.Logf("the escape had not started within %ds; trying a longer timeout", timeout)
			}
			if section(text, "stdout") != "started" {
				t.Fatalf("the process to escape did not start:\n%s", text)
			}
			if !strings.HasPrefix(text, wantHead) || res.IsError != tc.isError {
				t.Errorf("got error=%t\n%s\nwant error=%t, starting with\n%s", res.IsError, text, tc.isError, wantHead)
			}
			if left := m.running(t); len(left) > 0 {
				t.Errorf("still running after the call: %v", left)
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

// cancelCommand starts processes named m every way it can, writes
// "started" into the file "flag" once they run (renamed into place, so it
// is read whole), then waits.
func cancelCommand(m marker) string {
	var b strings.Builder
	for _, how := range []string{"background", "setsid", "double fork"} {
		b.WriteString(m.escape(how))
	}
	if _, err := exec.LookPath("python3"); err == nil {
		b.WriteString(m.escape("python"))
	}
	b.WriteString(m.started())
	return "{ " + b.String() + "} > flag.tmp; mv flag.tmp flag; sleep 30; wait"
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
	box := shell.New()
	if _, err := box.Describe(context.Background(), sdk.Host{Roots: []string{e.root}}); err != nil {
		t.Fatal(err)
	}
	m := newMarker()
	m.killOnCleanup(t)
	args, _ := json.Marshal(map[string]any{"command": "echo partial; " + cancelCommand(m)})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan struct{})
	var res *sdk.Result
	var err error
	go func() {
		defer close(done)
		res, err = box.Call(ctx, &sdk.Call{Tool: "run_command", Arguments: args}, nil)
	}()
	waitFile(t, filepath.Join(e.root, "flag"), done)
	cancel()
	<-done
	if err != nil {
		t.Fatal(err)
	}
	text := normalize(res.Text())
	if !res.IsError || !strings.HasPrefix(text, "cancelled after ") || section(text, "stdout") != "partial" {
		t.Errorf("got error=%t\n%s\nwant a cancelled error result with the output so far", res.IsError, text)
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

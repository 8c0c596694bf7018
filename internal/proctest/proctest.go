// Package proctest serves tests that run processes: it builds the binaries
// they run, once for every test binary of a run (Build, RunWithTestPlugin),
// waits for what those processes do within a generous bound (Patience),
// and inspects processes from /proc (Linux only) for tests that check no
// process is left behind.
package proctest

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Patience bounds a test's wait for a process event. It measures nothing:
// it only ends a wait for an event that is never coming, so it is generous
// enough for a loaded machine and the race detector.
const Patience = 30 * time.Second

// Await checks cond every 20 ms until it holds, for Patience at the most,
// and reports whether it held.
func Await(cond func() bool) bool {
	for deadline := time.Now().Add(Patience); ; time.Sleep(20 * time.Millisecond) {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
	}
}

// stat returns the fields of /proc/pid/stat after the command name (which
// may hold spaces): state first, then ppid.
func stat(path string) []string {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	return strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
}

// Alive reports whether pid runs; a zombie has ended.
func Alive(pid int) bool {
	f := stat(fmt.Sprintf("/proc/%d/stat", pid))
	return len(f) > 0 && f[0] != "Z"
}

// Proc is one process: its pid and its start time, so that a process the
// kernel has since given the same pid does not pass for it (pids wrap at
// 32768 on many machines, and a busy test run makes thousands of
// processes and threads).
type Proc struct {
	Pid   int
	start string // /proc/<pid>/stat field 22, in clock ticks since boot
}

// Find is the process running as pid now; its zero start time matches no
// process when pid runs nothing.
func Find(pid int) Proc {
	p := Proc{Pid: pid}
	if f := stat(fmt.Sprintf("/proc/%d/stat", pid)); len(f) > 19 {
		p.start = f[19] // field 22 of the line; f starts at field 3
	}
	return p
}

// Alive reports whether the process runs: its pid runs a process started
// when it was, and not a zombie.
func (p Proc) Alive() bool {
	f := stat(fmt.Sprintf("/proc/%d/stat", p.Pid))
	return p.start != "" && len(f) > 19 && f[19] == p.start && f[0] != "Z"
}

// Children lists the live direct children of pid. It reads every process's
// stat: a per-thread children file would miss those started by other threads.
func Children(pid int) []int {
	paths, _ := filepath.Glob("/proc/[0-9]*/stat")
	var out []int
	for _, path := range paths {
		f := stat(path)
		if len(f) > 1 && f[0] != "Z" && f[1] == strconv.Itoa(pid) {
			if n, err := strconv.Atoi(filepath.Base(filepath.Dir(path))); err == nil {
				out = append(out, n)
			}
		}
	}
	return out
}

// Args is pid's command line, nil once it has ended.
func Args(pid int) []string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil || len(b) == 0 {
		return nil
	}
	return strings.Split(strings.TrimSuffix(string(b), "\x00"), "\x00")
}

// Marked lists the live processes (zombies and dying ones left out) whose
// command line holds marker: the processes a test started, found whatever
// pid namespace or session they moved to.
func Marked(marker string) []int {
	entries, _ := os.ReadDir("/proc")
	var found []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil || !bytes.Contains(cmdline, []byte(marker)) {
			continue
		}
		if f := stat("/proc/" + e.Name() + "/stat"); len(f) > 0 && f[0] != "Z" && f[0] != "X" {
			found = append(found, pid)
		}
	}
	return found
}

// Output collects what a process (or a logger of the host under test)
// writes, safely for the goroutines that copy it.
type Output struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (o *Output) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.b.Write(p)
}

// String is everything written so far.
func (o *Output) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.b.String()
}

// RunWithTestPlugin is a TestMain body for packages that launch
// internal/testplugin: it builds the plugin once into a temp dir as name
// (its file name picks its mode), calls set with the binary's path, runs
// the tests, removes the dir and exits with the tests' code.
func RunWithTestPlugin(m *testing.M, name string, set func(path string)) {
	dir, err := os.MkdirTemp("", "ramabana-testplugin")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	path := filepath.Join(dir, name)
	if err := Build(path, nil, "github.com/ramabana/ramabana-mcp/internal/testplugin"); err != nil {
		fmt.Fprintf(os.Stderr, "build testplugin: %v\n", err)
		_ = os.RemoveAll(dir)
		os.Exit(1)
	}
	set(path)
	code := m.Run()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// Drain empties ch without blocking: what came before the next action is
// forgotten.
func Drain[T any](ch <-chan T) {
	for {
		select {
		case <-ch:
		default:
			return
		}
	}
}

// AwaitSignal waits, for Patience at the most, until something has come on
// ch and cond holds, re-checking cond every 50 ms (the last signal may come
// before the state it announces is visible), and reports whether both
// happened and whether anything came at all.
func AwaitSignal[T any](ch <-chan T, cond func() bool) (ok, signalled bool) {
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(Patience)
	for {
		select {
		case <-ch:
			signalled = true
		case <-tick.C:
		case <-deadline:
			return false, signalled
		}
		if signalled && cond() {
			return true, true
		}
	}
}

// Missing reports a prerequisite a test cannot have here (a toolchain, a
// language server): the test skips, saying why and which variable makes
// it fail instead; with that variable set (CI sets it, having installed
// everything), it fails. So a test skips on a developer's machine that
// lacks the tool, and never silently in CI.
func Missing(t testing.TB, requireEnv, why string) {
	t.Helper()
	if os.Getenv(requireEnv) != "" {
		t.Fatal(why)
	}
	t.Skipf("%s (%s=1, as CI sets it, makes this a failure)", why, requireEnv)
}

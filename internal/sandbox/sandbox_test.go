//go:build unix

package sandbox_test

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/ramabana/ramabana-mcp/internal/proctest"
	"github.com/ramabana/ramabana-mcp/internal/sandbox"
	"github.com/ramabana/ramabana-mcp/internal/secretholder"
)

func TestMain(m *testing.M) {
	secretholder.Run()
	if os.Getenv(signalSelfEnv) != "" {
		signalSelf()
		return
	}
	os.Exit(m.Run())
}

// signalSelfEnv makes the test binary run signalSelf instead of the tests.
const signalSelfEnv = "SANDBOX_TEST_SIGNAL_SELF"

// signalSelf starts, from the main goroutine of a process on one CPU (as a
// plugin runs), a command that tries to signal that process, and prints
// what the command printed. There the launcher's goroutine is the one the
// main thread runs next.
func signalSelf() {
	runtime.GOMAXPROCS(1)
	dir, err := os.MkdirTemp("", "sig")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	p := sandbox.Policy{Writable: append([]string{dir}, sandbox.DeviceFiles()...), NoCapabilities: true}
	cmd := exec.Command("/bin/bash", "-c", "kill -0 "+strconv.Itoa(os.Getpid())+" && echo reached")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if _, err := sandbox.Start(cmd, p); err != nil {
		panic(err)
	}
	_ = cmd.Wait()
	fmt.Print(out.String())
}

// full is the policy run_command uses, writes allowed in dirs.
func full(dirs ...string) sandbox.Policy {
	return sandbox.Policy{Writable: append(dirs, sandbox.DeviceFiles()...), NoCapabilities: true, NewNamespaces: true}
}

// bash runs script under p in dir and returns its combined output and
// what applied.
func bash(t *testing.T, p sandbox.Policy, dir, script string, env ...string) (string, sandbox.Applied) {
	t.Helper()
	cmd := exec.Command("/bin/bash", "-c", script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	a, err := sandbox.Start(cmd, p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = a.Signal(syscall.SIGKILL) })
	_ = cmd.Wait()
	return out.String(), a
}

// survivors lists the running processes whose command line holds marker.
func survivors(t *testing.T, marker string) []string {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var found []string
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		cmdline, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil || !bytes.Contains(cmdline, []byte(marker)) {
			continue
		}
		if stat, err := os.ReadFile("/proc/" + e.Name() + "/stat"); err == nil {
			if f := bytes.Fields(stat[bytes.LastIndexByte(stat, ')')+1:]); len(f) > 0 && f[0][0] == 'Z' {
				continue
			}
		}
		found = append(found, e.Name()+" "+strings.ReplaceAll(string(cmdline), "\x00", " "))
	}
	return found
}

// escapes are commands that leave a process named by the marker %[1]s
// running outside the command's process group.
var escapes = map[string]string{
	"setsid daemon": `setsid bash -c 'exec -a %[1]s sleep 300' </dev/null >/dev/null 2>&1 &`,
	"double fork":   `( ( exec -a %[1]s sleep 300 & ) & )`,
	"python setsid and fork": `python3 -c '
import os, sys
os.setsid()
if os.fork() == 0:
    os.execvp("sleep", [sys.argv[1], "300"])
' %[1]s`,
}

// waitFor is a bounded wait in the command until the escaped process runs;
// %[2]s is a pattern matching the marker but not itself.
const waitFor = "\n" + `for i in $(seq 1000); do grep -qsa -- '%[2]s' /proc/[0-9]*/cmdline && break; sleep 0.01; done
grep -qsa -- '%[2]s' /proc/[0-9]*/cmdline && echo started`

// TestNothingOutlivesTheCommand: processes that leave the command's
// process group end with the command, whether it exits or is killed.
func TestNothingOutlivesTheCommand(t *testing.T) {
	t.Parallel()
	if sandbox.Probe().Reaping == sandbox.ReapGroup {
		t.Skip("no reaping beyond the process group on this machine")
	}
	for name, script := range escapes {
		for _, how := range []string{"exit", "kill"} {
			t.Run(name+" "+how, func(t *testing.T) {
				t.Parallel()
				if strings.HasPrefix(script, "python3") {
					if _, err := exec.LookPath("python3"); err != nil {
						t.Skip("no python3")
					}
				}
				dir := t.TempDir()
				marker := fmt.Sprintf("sbx-escape-%d-%s", os.Getpid(), strings.NewReplacer("/", "-", " ", "_").Replace(t.Name()))
				pattern := "sbx-escap[e]" + strings.TrimPrefix(marker, "sbx-escape")
				cmdline := fmt.Sprintf(script+waitFor, marker, pattern)
				if how == "kill" {
					cmdline += "\nsleep 300"
				}
				cmd := exec.Command("/bin/bash", "-c", cmdline)
				out, err := cmd.StdoutPipe()
				if err != nil {
					t.Fatal(err)
				}
				a, err := sandbox.Start(cmd, full(dir))
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() {
					_ = a.Signal(syscall.SIGKILL)
					for _, s := range survivors(t, marker) {
						pid, _ := strconv.Atoi(strings.Fields(s)[0])
						_ = syscall.Kill(pid, syscall.SIGKILL)
					}
				})
				line, _ := bufio.NewReader(out).ReadString('\n')
				if line != "started\n" {
					t.Fatalf("the escaping process did not start: %q", line)
				}
				if how == "kill" {
					if len(survivors(t, marker)) == 0 {
						t.Fatal("the escaped process is not found by its marker")
					}
					if err := a.Signal(syscall.SIGKILL); err != nil {
						t.Fatal(err)
					}
				}
				_ = cmd.Wait()
				gone := func() bool { return len(survivors(t, marker)) == 0 && !a.Alive() }
				if a.Reaping == sandbox.ReapSubreaper {
					// SIGKILL is delivered asynchronously: a killed orphan
					// runs until it is next scheduled, which on a loaded
					// machine may be a moment after kill returned. (In a
					// pid namespace the first process's end waits for the
					// others': there nothing is left once Wait returns.)
					_ = a.Signal(syscall.SIGKILL)
					proctest.Await(gone)
				}
				if left := survivors(t, marker); !gone() {
					t.Errorf("reaping %q: still running after the command ended: %v", a.Reaping, left)
				}
			})
		}
	}
}

func TestEnvironOfNonDumpableIsUnreadable(t *testing.T) {
	t.Parallel()
	secret := "s3cret-" + strconv.Itoa(os.Getpid())
	pid := secretholder.Start(t, secret)
	read := fmt.Sprintf("cat /proc/%d/environ; grep -c . /proc/%d/maps", pid, pid)
	dir := t.TempDir()
	out, a := bash(t, full(dir), dir, read)
	if strings.Contains(out, secret) {
		t.Errorf("the command read the secret (applied %+v):\n%s", a, out)
	}
	if !a.NoCapabilities {
		t.Errorf("applied %+v: want no capabilities", a)
	}
	if os.Geteuid() == 0 {
		// The control: root with its capabilities reads it, so the test
		// above proves something.
		out, _ := bash(t, sandbox.Policy{}, dir, read)
		if !strings.Contains(out, secret) {
			t.Errorf("control: root without the sandbox did not read the secret:\n%s", out)
		}
	}
}

func TestCapabilitiesDropped(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out, a := bash(t, full(dir), dir, "grep -E '^Cap(Inh|Prm|Eff|Amb)' /proc/self/status")
	if !a.NoCapabilities {
		t.Fatalf("applied %+v", a)
	}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if !strings.HasSuffix(line, "0000000000000000") {
			t.Errorf("capabilities left: %s", line)
		}
	}
}

func TestLandlock(t *testing.T) {
	t.Parallel()
	if abi := sandbox.Probe().Landlock; abi == 0 {
		t.Skip("the kernel has no Landlock (sandbox.Probe reports ABI 0); writes cannot be restricted here")
	}
	base := t.TempDir()
	inside, outside := filepath.Join(base, "inside"), filepath.Join(base, "outside")
	for _, d := range []string{inside, outside} {
		if err := os.Mkdir(d, 0o777); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(outside, "old"), []byte("x"), 0o666); err != nil {
		t.Fatal(err)
	}
	shm := "/dev/shm/ramabana-sandbox-test-" + strconv.Itoa(os.Getpid())
	t.Cleanup(func() { _ = os.Remove(shm + "-f"); _ = os.Remove(shm + "-d") })
	tests := map[string]struct {
		script string
		policy sandbox.Policy
		want   string
	}{
		"create inside":      {script: "echo a > inside/new && cat inside/new", policy: full(inside), want: "a\n"},
		"create outside":     {script: "echo a > outside/new", policy: full(inside), want: "Permission denied"},
		"overwrite outside":  {script: "echo a > outside/old", policy: full(inside), want: "Permission denied"},
		"remove outside":     {script: "rm outside/old", policy: full(inside), want: "Permission denied"},
		"mkdir outside":      {script: "mkdir outside/d", policy: full(inside), want: "Permission denied"},
		"move out":           {script: "echo a > inside/m && mv inside/m outside/m", policy: full(inside), want: "Permission denied"},
		"read outside":       {script: "cat outside/old", policy: full(inside), want: "x"},
		"/dev/null":          {script: "echo a > /dev/null && echo ok", policy: full(inside), want: "ok\n"},
		"no policy: outside": {script: "echo b > outside/free && cat outside/free", policy: sandbox.Policy{NewNamespaces: true}, want: "b\n"},
		// /dev: only the device files commands need are writable.
		"/dev/shm file":   {script: "echo a > " + shm + "-f", policy: full(inside), want: "Permission denied"},
		"/dev/shm mkdir":  {script: "mkdir " + shm + "-d", policy: full(inside), want: "Permission denied"},
		"/dev/stderr":     {script: "echo to-stderr > /dev/stderr && echo ok", policy: full(inside), want: "to-stderr\nok\n"},
		"/dev/stdout":     {script: "echo to-stdout > /dev/stdout", policy: full(inside), want: "to-stdout\n"},
		"/dev/fd":         {script: "cat <(echo substituted)", policy: full(inside), want: "substituted\n"},
		"/dev/zero":       {script: "cat /dev/zero | head -c 10 | wc -c", policy: full(inside), want: "10\n"},
		"/dev/full":       {script: "echo a > /dev/full", policy: full(inside), want: "No space left on device"},
		"/dev/urandom":    {script: "head -c 4 /dev/urandom > /dev/urandom && echo ok", policy: full(inside), want: "ok\n"},
		"no ctty":         {script: "echo a > /dev/tty", policy: full(inside), want: "No such device or address"},
		"/dev/null ioctl": {script: "stty -F /dev/null", policy: full(inside), want: "Inappropriate ioctl for device"},
	}
	if sandbox.Probe().Landlock >= 5 {
		// Device ioctls are restricted too: /dev/null not named, a
		// terminal ioctl on it is refused before the driver answers.
		tests["ungranted device ioctl"] = struct {
			script string
			policy sandbox.Policy
			want   string
		}{script: "stty -F /dev/null", policy: sandbox.Policy{Writable: []string{inside}}, want: "Permission denied"}
	}
	if _, err := exec.LookPath("script"); err == nil {
		// A pseudo-terminal of the command's own: /dev/ptmx, /dev/pts and
		// their ioctls.
		tests["own pty"] = struct {
			script string
			policy sandbox.Policy
			want   string
		}{script: "script -qec 'tty' /dev/null", policy: full(inside), want: "/dev/pts/"}
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			out, a := bash(t, tc.policy, base, tc.script)
			if !strings.Contains(out, tc.want) {
				t.Errorf("applied %+v: got %q, want it to contain %q", a, out, tc.want)
			}
			if tc.policy.Writable != nil && a.Landlock == 0 {
				t.Errorf("applied %+v: no Landlock domain", a)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(outside, "new")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("outside/new exists: %v", err)
	}
	for _, p := range []string{shm + "-f", shm + "-d"} {
		if _, err := os.Lstat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s exists: %v", p, err)
		}
	}
}

// TestCallerStaysUnrestricted: the restrictions live on the launcher's
// thread; the test's own goroutines, on fresh threads too, still write
// anywhere.
func TestCallerStaysUnrestricted(t *testing.T) {
	t.Parallel()
	inside, outside := t.TempDir(), t.TempDir()
	if out, _ := bash(t, full(inside), inside, "echo a > "+outside+"/x"); !strings.Contains(out, "Permission denied") {
		t.Fatalf("the command wrote outside: %q", out)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for i := range 16 {
		wg.Go(func() {
			runtime.LockOSThread() // exits locked: a fresh thread per goroutine
			errs <- os.WriteFile(filepath.Join(outside, strconv.Itoa(i)), []byte("x"), 0o644)
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}

func TestNonDumpable(t *testing.T) {
	t.Parallel()
	pid := secretholder.Start(t, "x")
	// The owner of a non-dumpable process's /proc files becomes root.
	fi, err := os.Stat("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		t.Fatal(err)
	}
	if uid := fi.Sys().(*syscall.Stat_t).Uid; uid != 0 {
		t.Errorf("/proc/%d/environ is owned by uid %d; a non-dumpable process's is owned by root", pid, uid)
	}
}

// BenchmarkStart compares a plain start and wait of /bin/true with one
// under the policy run_command uses.
func BenchmarkStart(b *testing.B) {
	dir := b.TempDir()
	for name, p := range map[string]*sandbox.Policy{"plain": nil, "sandbox": ptr(full(dir))} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				cmd := exec.Command("/bin/true")
				var err error
				if p == nil {
					err = cmd.Start()
				} else {
					_, err = sandbox.Start(cmd, *p)
				}
				if err != nil {
					b.Fatal(err)
				}
				if err := cmd.Wait(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

// TestSignalsScoped: from Landlock ABI 6 a sandboxed command (here without
// a pid namespace, as in the subreaper fallback, where it could name any
// pid) cannot signal a process outside its domain, such as its plugin,
// and still signals its own.
// TestCommandsCannotSignalTheirLauncher: the process that starts the
// commands is out of their reach even on one CPU, where the launcher's
// goroutine would run on the process's main thread, which a signal to the
// process targets, and its Landlock domain would then be the commands'.
func TestCommandsCannotSignalTheirLauncher(t *testing.T) {
	t.Parallel()
	if sandbox.Probe().Landlock < 6 {
		t.Skip("signal scoping needs Landlock ABI 6")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), signalSelfEnv+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if strings.Contains(string(out), "reached") || !strings.Contains(string(out), "Operation not permitted") {
		t.Errorf("output %q: want the launching process out of the command's reach", out)
	}
}

func TestSignalsScoped(t *testing.T) {
	t.Parallel()
	if sandbox.Probe().Landlock < 6 {
		t.Skip("signal scoping needs Landlock ABI 6")
	}
	dir := t.TempDir()
	p := sandbox.Policy{Writable: append([]string{dir}, sandbox.DeviceFiles()...), NoCapabilities: true}
	self := strconv.Itoa(os.Getpid())
	out, _ := bash(t, p, dir, "kill -0 "+self+" && echo reached; sleep 30 & kill $! && wait $!; echo own $?")
	if strings.Contains(out, "reached") || !strings.Contains(out, "Operation not permitted") || !strings.Contains(out, "own 143") {
		t.Errorf("output %q: want the test process out of reach and the command's own child signalled", out)
	}
	out, _ = bash(t, sandbox.Policy{}, dir, "kill -0 "+self+" && echo reached")
	if !strings.Contains(out, "reached") {
		t.Errorf("without a policy: %q, want the signal through", out)
	}
}

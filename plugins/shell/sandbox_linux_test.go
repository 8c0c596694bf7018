package shell_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ramabana/ramabana-mcp/internal/launch"
	"github.com/ramabana/ramabana-mcp/internal/pluginrpc"
	"github.com/ramabana/ramabana-mcp/internal/sandbox"
	"github.com/ramabana/ramabana-mcp/internal/secretholder"
	"github.com/ramabana/ramabana-mcp/plugins/shell"
	"github.com/ramabana/ramabana-mcp/sdk"
	"github.com/ramabana/ramabana-mcp/sdk/sdktest"
)

// roleEnv makes the test binary serve the shell group as a real plugin
// ("plugin"); secretholder.Run makes it a secret holder.
const roleEnv = "SHELL_TEST_ROLE"

func TestMain(m *testing.M) {
	switch os.Getenv(roleEnv) {
	case "plugin":
		sdk.Serve(shell.New())
		return
	}
	secretholder.Run()
	code := m.Run()
	shell.RemoveTempBase()
	os.Exit(code)
}

// TestEnvironOfOtherProcesses: a command cannot read the environment of a
// non-dumpable process of the same user, as root too.
func TestEnvironOfOtherProcesses(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	secret := "holder-secret-" + strconv.Itoa(os.Getpid())
	pid := secretholder.Start(t, secret)
	res := e.run(t, map[string]any{"command": fmt.Sprintf("cat /proc/%d/environ; tr '\\0' '\\n' < /proc/%d/environ | grep HOLDER; head -c 64 /proc/%d/mem", pid, pid, pid)})
	if text := res.Text(); strings.Contains(text, secret) || !strings.Contains(text, "Permission denied") {
		t.Errorf("the command read a non-dumpable process's environment, or was not refused:\n%s", text)
	}
}

// TestSandboxWrites: with Landlock, commands write only inside the roots,
// their TMPDIR and the device files they need (not /dev/shm);
// --sandbox=off lifts it.
func TestSandboxWrites(t *testing.T) {
	t.Parallel()
	if sandbox.Probe().Landlock == 0 {
		t.Skip("the kernel has no Landlock (sandbox.Probe reports ABI 0); writes are not restricted here")
	}
	e := newEnv(t)
	off, _ := sdktest.Connect(t, shell.New(), sdk.Host{Roots: []string{e.root}, NoSandbox: true})
	shm := "/dev/shm/ramabana-shell-test-" + strconv.Itoa(os.Getpid())
	t.Cleanup(func() {
		for _, p := range []string{shm + "-f", shm + "-d", shm + "-off"} {
			_ = os.Remove(p)
		}
	})
	tests := map[string]struct {
		command  string
		sandbox  bool
		wantOut  string
		wantExit string
	}{
		"inside":                 {command: "echo a > sub/new && cat sub/new", sandbox: true, wantOut: "a", wantExit: "exit 0"},
		"outside":                {command: "echo a > ../outside/new", sandbox: true, wantOut: "Permission denied", wantExit: "exit 1"},
		"through a link outside": {command: "echo a > out-link/new2", sandbox: true, wantOut: "Permission denied", wantExit: "exit 1"},
		"shared /tmp":            {command: "echo a > /tmp/shtest-" + strconv.Itoa(os.Getpid()), sandbox: true, wantOut: "Permission denied", wantExit: "exit 1"},
		"TMPDIR":                 {command: `echo a > "$TMPDIR/f" && cat "$TMPDIR/f" && mktemp >/dev/null && echo made`, sandbox: true, wantOut: "a\nmade", wantExit: "exit 0"},
		"/dev/null":              {command: "echo a > /dev/null && echo ok", sandbox: true, wantOut: "ok", wantExit: "exit 0"},
		"sandbox off: outside":   {command: "echo b > ../outside/free && cat ../outside/free", wantOut: "b", wantExit: "exit 0"},
		// /dev: only the device files commands need; /dev/shm would
		// outlive the call.
		"/dev/shm file":         {command: "echo a > " + shm + "-f", sandbox: true, wantOut: "Permission denied", wantExit: "exit 1"},
		"/dev/shm mkdir":        {command: "mkdir " + shm + "-d", sandbox: true, wantOut: "Permission denied", wantExit: "exit 1"},
		"/dev/stderr":           {command: "echo to-stderr > /dev/stderr && echo ok", sandbox: true, wantOut: "to-stderr", wantExit: "exit 0"},
		"/dev/zero":             {command: "cat /dev/zero | head -c 10 | wc -c", sandbox: true, wantOut: "10", wantExit: "exit 0"},
		"no terminal":           {command: "echo a > /dev/tty", sandbox: true, wantOut: "No such device or address", wantExit: "exit 1"},
		"sandbox off: /dev/shm": {command: "echo b > " + shm + "-off && cat " + shm + "-off && rm " + shm + "-off", wantOut: "b", wantExit: "exit 0"},
	}
	// The plugin (here, the test process) is out of a command's reach: in
	// its own pid namespace the command cannot even name it, and from
	// Landlock ABI 6 signals are scoped to the command's own processes
	// (what holds in the subreaper fallback, where pids are shared).
	self := strconv.Itoa(os.Getpid())
	tests["signal the plugin"] = struct {
		command  string
		sandbox  bool
		wantOut  string
		wantExit string
	}{command: "kill -0 " + self, sandbox: true, wantOut: "kill: (" + self + ")", wantExit: "exit 1"}
	tests["signal its own"] = struct {
		command  string
		sandbox  bool
		wantOut  string
		wantExit string
	}{command: "sleep 30 & kill $! && wait $!; echo gone $?", sandbox: true, wantOut: "gone 143", wantExit: "exit 0"}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			g := off
			if tc.sandbox {
				g = e.g
			}
			res := sdktest.Call(t, g, "run_command", map[string]any{"command": tc.command})
			text := normalize(res.Text())
			if !strings.HasPrefix(text, tc.wantExit) || !strings.Contains(text, tc.wantOut) {
				t.Errorf("got\n%s\nwant %q and %q", text, tc.wantExit, tc.wantOut)
			}
		})
	}
	for _, p := range []string{filepath.Join(filepath.Dir(e.root), "outside", "new"), shm + "-f", shm + "-d"} {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("%s was written", p)
		}
	}
}

// TestTMPDIRRemoved: each call's TMPDIR is private and gone after it.
func TestTMPDIRRemoved(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	var dirs []string
	for range 2 {
		res := e.run(t, map[string]any{"command": `touch "$TMPDIR/x" && echo "$TMPDIR"`})
		dirs = append(dirs, strings.TrimSpace(section(normalize(res.Text()), "stdout")))
	}
	if dirs[0] == dirs[1] || dirs[0] == "" || dirs[0] == os.TempDir() {
		t.Errorf("TMPDIRs %q are not private to each call", dirs)
	}
	for _, d := range dirs {
		if _, err := os.Stat(d); !os.IsNotExist(err) {
			t.Errorf("%s is left after the call: %v", d, err)
		}
	}
}

// startPlugin runs the test binary as the real shell plugin, over
// go-plugin as the host runs it, with secret in its environment, and
// returns the group and the plugin's pid.
func startPlugin(t *testing.T, root, secret string) (sdk.Group, int) {
	t.Helper()
	env := append(os.Environ(), roleEnv+"=plugin", "PLUGIN_TEST_SECRET="+secret)
	p, _, err := launch.Start(context.Background(), launch.Command{Name: "shell", Path: os.Args[0]},
		sdk.Host{Roots: []string{root}}, launch.Options{Env: env, StartTimeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Stop)
	return p.Group(), p.Pid()
}

// TestRealPlugin runs the shell group as a real plugin process: a command
// cannot read the plugin's environment nor sees its internal variables,
// and killing the plugin with SIGKILL mid-call ends everything the command
// started.
func TestRealPlugin(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts a plugin process")
	}
	e := newEnv(t)
	secret := "plugin-secret-" + strconv.Itoa(os.Getpid())
	g, pid := startPlugin(t, e.root, secret)
	t.Cleanup(func() {
		// The plugin is killed below, before its exit hooks could run.
		left, _ := filepath.Glob(filepath.Join(os.TempDir(), fmt.Sprintf("ramabana-shell-%d-*", pid)))
		for _, dir := range left {
			_ = os.RemoveAll(dir)
		}
	})

	res := sdktest.Call(t, g, "run_command", map[string]any{"command": fmt.Sprintf("cat /proc/%d/environ; echo; env", pid)})
	text := res.Text()
	if strings.Contains(text, secret) || !strings.Contains(text, "Permission denied") {
		t.Errorf("the command read the plugin's environment, or was not refused:\n%s", text)
	}
	for _, name := range []string{"PLUGIN_", "RAMABANA_PLUGIN_", pluginrpc.Handshake().MagicCookieKey} {
		if strings.Contains(section(text, "stdout"), name) {
			t.Errorf("the command's environment has %s:\n%s", name, text)
		}
	}

	m := newMarker()
	m.killOnCleanup(t)
	args, _ := json.Marshal(map[string]any{"command": cancelCommand(m)})
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = g.Call(context.Background(), &sdk.Call{Tool: "run_command", Arguments: args}, sdk.NoEvents)
	}()
	if got := waitFile(t, filepath.Join(e.root, "flag"), done); got != "started\n" {
		t.Fatalf("flag: %q", got)
	}
	if err := syscallKill(pid); err != nil {
		t.Fatal(err)
	}
	<-done
	m.waitGone(t)
}

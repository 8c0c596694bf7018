package e2e

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestInheritedDescriptorsReachNoPlugin: a descriptor the server inherits
// without close-on-exec (here a pipe's write end as its fd 3, as make
// passes its jobserver's) stays the server's: a command run_command runs
// does not hold it, and (where this test may read the processes'
// descriptors: the server and its plugins are non-dumpable, so only as
// root) neither does any plugin.
func TestInheritedDescriptorsReachNoPlugin(t *testing.T) {
	t.Parallel()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(); w.Close() })
	var st syscall.Stat_t
	if err := syscall.Fstat(int(w.Fd()), &st); err != nil {
		t.Fatal(err)
	}
	pipe := fmt.Sprintf("pipe:[%d]", st.Ino)

	cmd := exec.Command(binary, baseArgs(t, project(t), "--write", "--plugins", pluginDir(t, "echo"))...)
	cmd.ExtraFiles = []*os.File{w} // fd 3 in the server, not close-on-exec
	s := startStdioCmd(t, cmd, nil)
	res, err := call(t, s.session, "run_command", map[string]any{"command": `for f in /proc/self/fd/*; do echo "$f -> $(readlink "$f")"; done`})
	if err != nil || res.IsError || !strings.Contains(text(res), "/proc/self/fd/0") {
		t.Fatalf("run_command listing its descriptors = %v, %v", text(res), err)
	}
	if strings.Contains(text(res), pipe) {
		t.Errorf("a command holds the server's inherited %s:\n%s", pipe, text(res))
	}

	plugins := s.awaitPlugins(t, "shell", "echo") // the ones started: echo to describe itself, shell by the call
	held, err := holders(append([]int{cmd.Process.Pid}, plugins...), pipe)
	switch {
	case errors.Is(err, fs.ErrPermission):
		t.Logf("the plugins' descriptors are not readable here (%v): checked the command's only", err)
	case err != nil:
		t.Fatal(err)
	case len(held) == 0 || held[0] != cmd.Process.Pid:
		t.Fatalf("the server does not hold %s (holders %v): the test passes it nothing", pipe, held)
	case len(held) > 1:
		t.Errorf("plugins %v hold the server's inherited %s", held[1:], pipe)
	}
}

// holders are the processes among pids with a descriptor open on what
// target names (a /proc/<pid>/fd link's text).
func holders(pids []int, target string) ([]int, error) {
	var out []int
	for _, pid := range pids {
		dir := fmt.Sprintf("/proc/%d/fd", pid)
		names, err := os.ReadDir(dir)
		if err != nil {
			return nil, err
		}
		for _, n := range names {
			if dest, err := os.Readlink(filepath.Join(dir, n.Name())); err == nil && dest == target {
				out = append(out, pid)
				break
			}
		}
	}
	return out, nil
}

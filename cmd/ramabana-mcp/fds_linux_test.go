package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

// TestInheritedDescriptorsReachNoPlugin: a descriptor the server inherits
// without close-on-exec (here a pipe's write end as its fd 3, as make
// passes its jobserver's) stays the server's: none of its plugins holds
// it, so no command a plugin runs can write to it.
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

	cmd := exec.Command(binary, baseArgs(t, project(t), "--plugins", pluginDir(t, "echo"))...)
	cmd.ExtraFiles = []*os.File{w} // fd 3 in the server, not close-on-exec
	s := startStdioCmd(t, cmd, nil)
	tools(t, s.session)
	plugins := s.awaitPlugins(t, "echo")
	if held := holders(append([]int{cmd.Process.Pid}, plugins...), pipe); len(held) == 0 || held[0] != cmd.Process.Pid {
		t.Fatalf("the server does not hold %s (holders %v): the test passes it nothing", pipe, held)
	} else if len(held) > 1 {
		t.Errorf("plugins %v hold the server's inherited %s", held[1:], pipe)
	}
}

// holders are the processes among pids with a descriptor open on what
// target names (a /proc/<pid>/fd link's text).
func holders(pids []int, target string) []int {
	var out []int
	for _, pid := range pids {
		links, _ := filepath.Glob(fmt.Sprintf("/proc/%d/fd/*", pid))
		for _, l := range links {
			if dest, err := os.Readlink(l); err == nil && dest == target {
				out = append(out, pid)
				break
			}
		}
	}
	return out
}

package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/ramabana/ramabana-mcp/internal/proctest"
)

// openPTY opens a pseudo-terminal: what the test writes to the main side
// the server reads from the other, as from a person typing.
func openPTY(t *testing.T) (main, tty *os.File) {
	t.Helper()
	main, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	t.Cleanup(func() { main.Close() })
	fd := int(main.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		t.Fatalf("unlock pty: %v", err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		t.Fatalf("pty number: %v", err)
	}
	tty, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("open pty: %v", err)
	}
	t.Cleanup(func() { tty.Close() })
	return main, tty
}

// TestTerminalStdin starts the server with a terminal for stdin, as a
// person running it by hand does: it says what it is, explains a typed
// line instead of dying on it, and ends at Ctrl-D.
func TestTerminalStdin(t *testing.T) {
	t.Parallel()
	main, tty := openPTY(t)
	cmd := exec.Command(binary, baseArgs(t, project(t))...)
	var stdout, stderr proctest.Output
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var waitErr error
	exited := make(chan struct{})
	go func() { waitErr = cmd.Wait(); close(exited) }()
	t.Cleanup(func() { _ = cmd.Process.Kill(); <-exited })
	if !proctest.Await(func() bool { return strings.Contains(stderr.String(), "msg=serving") }) {
		t.Fatalf("not serving; stderr:\n%s", &stderr)
	}
	if !strings.HasPrefix(stderr.String(), "ramabana-mcp: this is an MCP server") || !strings.Contains(stderr.String(), "--transport http") {
		t.Errorf("stderr does not start with the hint:\n%s", &stderr)
	}
	if _, err := main.WriteString("hello\n"); err != nil {
		t.Fatal(err)
	}
	if !proctest.Await(func() bool { return strings.Contains(stderr.String(), "not a JSON-RPC message (not JSON)") }) {
		t.Fatalf("a typed line is not explained; stderr:\n%s", &stderr)
	}
	if strings.Contains(stderr.String(), "malformed stdio frame") {
		t.Errorf("a typed line is logged as a client's malformed frame:\n%s", &stderr)
	}
	// The explanation on stderr and the error on stdout are two writes:
	// the second may come later.
	if !proctest.Await(func() bool { return strings.Contains(stdout.String(), `"code":-32700`) }) {
		t.Errorf("stdout %q, want the JSON-RPC parse error", stdout.String())
	}
	if _, err := main.Write([]byte{4}); err != nil { // Ctrl-D: end of input
		t.Fatal(err)
	}
	select {
	case <-exited:
		if waitErr != nil {
			t.Errorf("exit after Ctrl-D: %v; stderr:\n%s", waitErr, &stderr)
		}
	case <-time.After(proctest.Patience):
		t.Fatalf("still running after Ctrl-D; stderr:\n%s", &stderr)
	}
}

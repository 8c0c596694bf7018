package e2e

import (
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/sys/unix"

	"github.com/ramabana/ramabana-mcp/internal/proctest"
)

// TestServesOverSockets: a client that starts the server with socket pairs
// for its stdio, as Node.js clients do, is served. The stdin socket is
// made non-blocking while the server reads it (through the runtime's
// poller) and blocking again when the session ends; one socket for both
// stdin and stdout is left blocking, whose writes would otherwise fail.
func TestServesOverSockets(t *testing.T) {
	t.Parallel()
	for _, shared := range []bool{false, true} {
		name := "own sockets"
		if shared {
			name = "one socket for stdin and stdout"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			in := socketPair(t) // the server's end, the client's
			out := in
			if !shared {
				out = socketPair(t)
			}
			cmd := exec.Command(binary, baseArgs(t, project(t))...)
			cmd.Stdin, cmd.Stdout = in[0], out[0]
			s := &server{cmd: cmd, stderr: &proctest.Output{}}
			cmd.Stderr = s.stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.stop(t) })
			// The test keeps its copies of the server's ends: they share
			// the open file descriptions whose flags the server sets.
			s.session = connectWith(t, &mcp.IOTransport{Reader: out[1], Writer: in[1]}, nil)
			if _, ok := tools(t, s.session)["view_file"]; !ok {
				t.Fatalf("view_file not listed; stderr:\n%s", s.stderr)
			}
			if got := proctest.Nonblocking(t, in[0]); got == shared {
				t.Errorf("during the session the stdin socket is non-blocking: %v, want %v", got, !shared)
			}
			if !shared && proctest.Nonblocking(t, out[0]) {
				t.Error("the stdout socket was made non-blocking")
			}
			// The client's end shut for writing (a close would wait for the
			// client's read under way on a shared socket): the server reads
			// EOF and exits.
			if err := unix.Shutdown(int(in[1].Fd()), unix.SHUT_WR); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			select {
			case err := <-exited:
				if err != nil {
					t.Fatalf("the server ended with %v; stderr:\n%s", err, s.stderr)
				}
			case <-time.After(proctest.Patience):
				t.Fatalf("the server did not exit at EOF on stdin; stderr:\n%s", s.stderr)
			}
			if proctest.Nonblocking(t, in[0]) {
				t.Error("the stdin socket was left non-blocking after the session")
			}
		})
	}
}

// socketPair returns a connected pair of blocking stream sockets, closed
// when the test ends.
func socketPair(t *testing.T) [2]*os.File {
	t.Helper()
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	pair := [2]*os.File{os.NewFile(uintptr(fds[0]), "server"), os.NewFile(uintptr(fds[1]), "client")}
	t.Cleanup(func() { _ = pair[0].Close(); _ = pair[1].Close() })
	return pair
}

package pollpipe

import (
	"io"
	"os"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/ramabana/ramabana-mcp/internal/proctest"
)

// TestPipeIsReadThroughThePoller: what Open returns of a pipe waits in the
// runtime's poller (its descriptor is non-blocking), while the pipe it was
// made from (stdin, which other code may read) stays blocking; its reads
// see what is written to the pipe, and end at EOF when the writer closes,
// not before.
func TestPipeIsReadThroughThePoller(t *testing.T) {
	t.Parallel()
	// Blocking, as the stdin a process is started with (os.Pipe's are not).
	var fds [2]int
	if err := unix.Pipe2(fds[:], unix.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	r, w := os.NewFile(uintptr(fds[0]), "stdin"), os.NewFile(uintptr(fds[1]), "client")
	t.Cleanup(func() { _ = r.Close(); _ = w.Close() })
	if proctest.Nonblocking(t, r) {
		t.Fatal("the test's pipe is non-blocking from the start")
	}
	rd := Open(r)
	f, ok := rd.(*os.File)
	if !ok || f == r {
		t.Fatalf("Open returned %T, the pipe itself: %v", rd, f == r)
	}
	t.Cleanup(func() { _ = f.Close() })
	if !proctest.Nonblocking(t, f) {
		t.Error("the new descriptor blocks: its reads hold a P")
	}
	if proctest.Nonblocking(t, r) {
		t.Error("the pipe it was made from became non-blocking: another reader of it would fail with EAGAIN")
	}
	readsUntilEOF(t, rd, w)
}

// TestSocketIsReadThroughThePoller: a socket (what a Node.js client gives
// its server as stdin) is read through the poller too: made non-blocking
// while the reader lives, and blocking again once it is closed. Its reads
// see what is written, and end at EOF when the writer closes, not before.
func TestSocketIsReadThroughThePoller(t *testing.T) {
	t.Parallel()
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	r, w := os.NewFile(uintptr(fds[0]), "stdin"), os.NewFile(uintptr(fds[1]), "client")
	t.Cleanup(func() { _ = r.Close(); _ = w.Close() })
	if proctest.Nonblocking(t, r) {
		t.Fatal("the test's socket is non-blocking from the start")
	}
	rd := Open(r)
	if f, ok := rd.(*os.File); ok && f == r {
		t.Fatal("Open returned the socket itself")
	}
	if !proctest.Nonblocking(t, r) {
		t.Error("the socket is still blocking: its reads hold a P")
	}
	readsUntilEOF(t, rd, w)
	if err := rd.Close(); err != nil {
		t.Fatal(err)
	}
	if proctest.Nonblocking(t, r) {
		t.Error("the socket is left non-blocking once the reader is closed")
	}
	if _, err := r.Stat(); err != nil {
		t.Errorf("closing the reader closed the socket it was made from: %v", err)
	}
}

// TestCloseEndsARead: closing what Open returned ends a read of it under
// way (the server's session ends so while it waits for the client), for a
// pipe and a socket.
func TestCloseEndsARead(t *testing.T) {
	t.Parallel()
	var pipe [2]int
	if err := unix.Pipe2(pipe[:], unix.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	sock, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	for name, fds := range map[string][2]int{"pipe": pipe, "socket": {sock[0], sock[1]}} {
		r, w := os.NewFile(uintptr(fds[0]), "stdin"), os.NewFile(uintptr(fds[1]), "client")
		t.Cleanup(func() { _ = r.Close(); _ = w.Close() })
		rd := Open(r)
		ended := make(chan error, 1)
		go func() {
			_, err := rd.Read(make([]byte, 16))
			ended <- err
		}()
		if err := rd.Close(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := <-ended; err == nil {
			t.Errorf("%s: a read ended without an error when the reader was closed", name)
		}
	}
}

// TestNonBlockingIsLeftAlone: a descriptor non-blocking from the start is
// read through the poller already (os.NewFile sees to it), and one another
// process may have made so: Open returns it as it is, and changes nothing.
func TestNonBlockingIsLeftAlone(t *testing.T) {
	t.Parallel()
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC|unix.SOCK_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	r, w := os.NewFile(uintptr(fds[0]), "stdin"), os.NewFile(uintptr(fds[1]), "client")
	t.Cleanup(func() { _ = r.Close(); _ = w.Close() })
	if rd, ok := Open(r).(*os.File); !ok || rd != r {
		t.Fatalf("Open of a non-blocking socket returned another reader (%T)", Open(r))
	}
	if !proctest.Nonblocking(t, r) {
		t.Error("the socket is blocking now")
	}
}

// TestOnlyPipesAndSocketsAreOpenedAgain: a file (or a terminal) opened
// again would be another stream, not the one read on: Open returns it as
// it is.
func TestOnlyPipesAndSocketsAreOpenedAgain(t *testing.T) {
	t.Parallel()
	f, err := os.Create(t.TempDir() + "/stdin")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.Close() })
	if g, ok := Open(f).(*os.File); !ok || g != f {
		t.Errorf("Open of a regular file returned another reader (%T)", Open(f))
	}
}

// readsUntilEOF writes a line to w and checks that rd reads it and then
// goes on waiting, until w is closed: then rd's reads end at EOF.
func readsUntilEOF(t *testing.T, rd io.Reader, w *os.File) {
	t.Helper()
	read := make(chan []byte, 1)
	ended := make(chan error, 1)
	go func() {
		b, err := io.ReadAll(rd)
		read <- b
		ended <- err
	}()
	if _, err := w.Write([]byte("a line\n")); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-ended:
		t.Fatalf("the reads ended while the writer's end was open: %v", err)
	default:
	}
	_ = w.Close()
	if b := <-read; string(b) != "a line\n" {
		t.Errorf("read %q, want what was written", b)
	}
	if err := <-ended; err != nil {
		t.Errorf("the reads ended with %v, want EOF", err)
	}
}

package pollpipe

import (
	"io"
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

// TestPipeIsReadThroughThePoller: what Open returns waits in the runtime's
// poller (its descriptor is non-blocking), while the pipe it was made from
// (stdin, which other code may read) stays blocking; its reads see what is
// written to the pipe, and end at EOF when the writer closes, not before.
func TestPipeIsReadThroughThePoller(t *testing.T) {
	t.Parallel()
	// Blocking, as the stdin a process is started with (os.Pipe's are not).
	var fds [2]int
	if err := unix.Pipe2(fds[:], unix.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	r, w := os.NewFile(uintptr(fds[0]), "stdin"), os.NewFile(uintptr(fds[1]), "host")
	t.Cleanup(func() { _ = r.Close(); _ = w.Close() })
	if nonblocking(t, r) {
		t.Fatal("the test's pipe is non-blocking from the start")
	}
	f := Open(r)
	if f == r {
		t.Fatal("Open returned the pipe itself")
	}
	t.Cleanup(func() { _ = f.Close() })
	if !nonblocking(t, f) {
		t.Error("the new descriptor blocks: its reads hold a P")
	}
	if nonblocking(t, r) {
		t.Error("the pipe it was made from became non-blocking: another reader of it would fail with EAGAIN")
	}
	read := make(chan []byte, 1)
	ended := make(chan error, 1)
	go func() {
		b, err := io.ReadAll(f)
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
		t.Errorf("read %q through the new descriptor, want what was written", b)
	}
	if err := <-ended; err != nil {
		t.Errorf("the reads ended with %v, want EOF", err)
	}
}

// TestOnlyPipesAreOpenedAgain: a file (or a terminal) opened again would
// be another stream, not the same one read on: Open returns it as it is.
func TestOnlyPipesAreOpenedAgain(t *testing.T) {
	t.Parallel()
	f, err := os.Create(t.TempDir() + "/stdin")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.Close() })
	if g := Open(f); g != f {
		t.Errorf("Open of a regular file returned another file (%s)", g.Name())
	}
}

// nonblocking says whether f's open file description is non-blocking.
func nonblocking(t *testing.T, f *os.File) bool {
	t.Helper()
	rc, err := f.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var flags int
	if err := rc.Control(func(fd uintptr) { flags, err = unix.FcntlInt(fd, unix.F_GETFL, 0) }); err != nil {
		t.Fatal(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	return flags&unix.O_NONBLOCK != 0
}

package sdk

import (
	"io"
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

// TestLifelineIsReadThroughThePoller: the lifeline reader waits in the
// runtime's poller (its descriptor is non-blocking), so a plugin on one
// CPU is never held up by a read of it, while the pipe it was made from
// (stdin, which a plugin's own code may read) stays blocking; and the
// reader ends when the host's end of the pipe closes, not before.
func TestLifelineIsReadThroughThePoller(t *testing.T) {
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
	lifeline := pollable(r)
	f, ok := lifeline.(*os.File)
	if !ok || f == r {
		t.Fatalf("pollable returned %T, the pipe itself: %v", lifeline, f == r)
	}
	t.Cleanup(func() { _ = f.Close() })
	if !nonblocking(t, f) {
		t.Error("the lifeline's descriptor blocks: its reads hold a P")
	}
	if nonblocking(t, r) {
		t.Error("the pipe it was made from became non-blocking: a plugin's own read of stdin would fail with EAGAIN")
	}
	ended := make(chan error, 1)
	go func() {
		_, err := io.Copy(io.Discard, lifeline)
		ended <- err
	}()
	if _, err := w.Write([]byte("ignored")); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-ended:
		t.Fatalf("the lifeline ended while the host's end was open: %v", err)
	default:
	}
	_ = w.Close()
	if err := <-ended; err != nil {
		t.Errorf("the lifeline ended with %v, want EOF", err)
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

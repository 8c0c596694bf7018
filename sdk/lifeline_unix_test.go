//go:build unix

package sdk

import (
	"io"
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

// TestLifelineIsReadThroughThePoller: the lifeline reader waits in the
// runtime's poller (its descriptor is non-blocking), so a plugin on one
// CPU is never held up by a read of it, and it still ends when the host's
// end of the pipe closes, and not before.
func TestLifelineIsReadThroughThePoller(t *testing.T) {
	t.Parallel()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Close() })
	lifeline := pollable(r)
	f, ok := lifeline.(*os.File)
	if !ok || f == r {
		t.Fatalf("pollable returned %T, the pipe itself: %v", lifeline, f == r)
	}
	t.Cleanup(func() { _ = f.Close() })
	rc, err := f.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	nonblocking := false
	if err := rc.Control(func(fd uintptr) {
		flags, err := unix.FcntlInt(fd, unix.F_GETFL, 0)
		nonblocking = err == nil && flags&unix.O_NONBLOCK != 0
	}); err != nil {
		t.Fatal(err)
	}
	if !nonblocking {
		t.Error("the lifeline's descriptor blocks: its reads hold a P")
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

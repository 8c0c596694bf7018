//go:build unix

package sdk

import (
	"io"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// pollable returns a reader of the pipe f whose reads wait in the
// runtime's network poller rather than in a blocking read(2): a copy of
// f's descriptor, with f's description put in non-blocking mode. A
// goroutine blocked in read(2) keeps its P until the runtime's monitor
// takes it back, and the monitor, asleep for up to 10 ms at a plugin's
// start, was that late: a plugin on one CPU (Serve) stood still for as
// long, between its handshake and its first call. f is returned as it is
// when that cannot be done.
func pollable(f *os.File) io.Reader {
	rc, err := f.SyscallConn()
	if err != nil {
		return f
	}
	dup := -1
	_ = rc.Control(func(fd uintptr) {
		if syscall.SetNonblock(int(fd), true) != nil {
			return
		}
		if d, err := unix.FcntlInt(fd, unix.F_DUPFD_CLOEXEC, 0); err == nil {
			dup = d
		}
	})
	if dup < 0 {
		return f
	}
	return os.NewFile(uintptr(dup), f.Name())
}

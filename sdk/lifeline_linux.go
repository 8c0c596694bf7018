package sdk

import (
	"fmt"
	"io"
	"os"
	"syscall"
)

// pollable returns a reader of the pipe f whose reads wait in the
// runtime's network poller rather than in a blocking read(2): the pipe
// opened again through /proc, which gives an open file description of its
// own, non-blocking, and leaves f's as it was (code of the plugin's that
// reads os.Stdin itself still gets blocking reads). A goroutine blocked in
// read(2) keeps its P until the runtime's monitor takes it back, and the
// monitor, asleep for up to 10 ms at a plugin's start, was that late: a
// plugin on one CPU (Serve) stood still for as long, between its handshake
// and its first call. f is returned as it is when that cannot be done.
func pollable(f *os.File) io.Reader {
	rc, err := f.SyscallConn()
	if err != nil {
		return f
	}
	path := ""
	_ = rc.Control(func(fd uintptr) { path = fmt.Sprintf("/proc/self/fd/%d", fd) })
	if path == "" {
		return f
	}
	// Opened non-blocking, the new description is read through the
	// poller; opening a pipe's read end never waits for a writer then.
	g, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		return f
	}
	return g
}

package pollpipe

import (
	"fmt"
	"os"
	"syscall"
)

// Open returns the pipe f opened again, non-blocking, through
// /proc/self/fd: an open file description of its own, read through the
// poller, which leaves f's as it was (code that reads f itself still gets
// blocking reads). The caller closes it; closing it ends a read under way.
// f itself is returned when it is not a pipe (a terminal or a file, which
// opened again would not be the same stream) or when that cannot be done.
func Open(f *os.File) *os.File {
	fi, err := f.Stat()
	if err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		return f
	}
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

package pollpipe

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"syscall"
)

// Open returns a reader of f, a pipe or a socket, whose reads wait in the
// runtime's poller, or f itself when f is neither (a terminal or a file),
// is read through the poller already (non-blocking from the start), or
// that cannot be done. The caller closes what it returns; closing it ends
// a read under way, and leaves f open.
//
// A pipe is opened again, non-blocking, through /proc/self/fd: an open
// file description of its own, which leaves f's as it was (code that
// reads f itself still gets blocking reads). A socket, which cannot be
// opened again (Node.js clients start their servers with socket pairs),
// is made non-blocking itself, the one description f shares, and made
// blocking again once the reader is closed; until then a blocking read of
// f would fail with EAGAIN (nothing but the reader reads it). A process
// that dies before it closes the reader leaves the socket non-blocking:
// another process reading the same socket afterwards (a wrapper script
// that did not exec the server) would have to cope. Not when another of
// the standard descriptors is the same socket (one socket for stdin and
// stdout): writes to it would fail with EAGAIN too.
func Open(f *os.File) io.ReadCloser {
	fi, err := f.Stat()
	if err != nil {
		return f
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return f
	}
	fd, flags, ok := -1, 0, false
	_ = rc.Control(func(d uintptr) {
		fd = int(d)
		flags, ok = fcntlGetfl(fd)
	})
	if !ok || flags&syscall.O_NONBLOCK != 0 {
		return f
	}
	switch {
	case fi.Mode()&os.ModeNamedPipe != 0:
		// Opened non-blocking, the new description is read through the
		// poller; opening a pipe's read end never waits for a writer then.
		g, err := os.OpenFile(fmt.Sprintf("/proc/self/fd/%d", fd), os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
		if err != nil {
			return f
		}
		if gi, err := g.Stat(); err != nil || !os.SameFile(fi, gi) {
			_ = g.Close()
			return f
		}
		return g
	case fi.Mode()&os.ModeSocket != 0:
		if sharedWithStdio(fd, fi) {
			return f
		}
		dup, err := dupCloexec(fd)
		if err != nil {
			return f
		}
		if err := syscall.SetNonblock(dup, true); err != nil {
			_ = syscall.Close(dup)
			return f
		}
		// Non-blocking now, the descriptor is read through the poller.
		return &socket{File: os.NewFile(uintptr(dup), f.Name()), orig: f}
	}
	return f
}

// socket is a socket's own descriptor, read through the poller, whose
// Close makes the socket blocking again through orig, which shares its
// open file description.
type socket struct {
	*os.File
	orig *os.File
	once sync.Once
}

// Close ends a read under way (the poller wakes it, and Close returns once
// it has), closes the descriptor and makes the socket blocking again.
func (s *socket) Close() error {
	var err error
	s.once.Do(func() {
		err = s.File.Close()
		rc, cerr := s.orig.SyscallConn()
		var serr error
		if cerr == nil {
			cerr = rc.Control(func(fd uintptr) { serr = syscall.SetNonblock(int(fd), false) })
		}
		err = errors.Join(err, cerr, serr)
	})
	return err
}

func fcntlGetfl(fd int) (int, bool) {
	r, _, errno := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_GETFL, 0)
	return int(r), errno == 0
}

func dupCloexec(fd int) (int, error) {
	r, _, errno := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_DUPFD_CLOEXEC, 0)
	if errno != 0 {
		return -1, errno
	}
	return int(r), nil
}

// sharedWithStdio says whether another of the descriptors 0, 1 and 2 is
// the socket fd is, fi its Stat.
func sharedWithStdio(fd int, fi os.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return true
	}
	for other := range 3 {
		var o syscall.Stat_t
		if other != fd && syscall.Fstat(other, &o) == nil && o.Dev == st.Dev && o.Ino == st.Ino {
			return true
		}
	}
	return false
}

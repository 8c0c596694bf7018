//go:build linux || darwin || dragonfly || freebsd || netbsd || openbsd

package cliflag

import (
	"os"

	"golang.org/x/sys/unix"
)

// IsTerminal reports whether f is a terminal: a person may be typing
// into it. It leaves f's blocking mode alone (f.Fd would not).
func IsTerminal(f *os.File) bool {
	rc, err := f.SyscallConn()
	if err != nil {
		return false
	}
	var terr error
	if err := rc.Control(func(fd uintptr) { _, terr = unix.IoctlGetTermios(int(fd), getTermios) }); err != nil {
		return false
	}
	return terr == nil
}

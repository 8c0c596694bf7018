//go:build unix

package proctest

import (
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

// Nonblocking says whether f's open file description is non-blocking (as
// another descriptor of the same pipe or socket sees it too).
func Nonblocking(t testing.TB, f *os.File) bool {
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

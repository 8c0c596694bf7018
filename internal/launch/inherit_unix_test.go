//go:build unix

package launch

import (
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

// TestCloseInheritedOnExec: a descriptor without close-on-exec (as a
// parent leaves one) has it afterwards; stdin, stdout and stderr keep
// theirs. Both ways: close_range where the kernel has it, and the listing
// of the process's descriptors it falls back to.
func TestCloseInheritedOnExec(t *testing.T) {
	for name, mark := range map[string]func() error{"CloseInheritedOnExec": CloseInheritedOnExec, "listed": markListedOnExec} {
		t.Run(name, func(t *testing.T) { testMarksOnExec(t, mark) })
	}
}

func testMarksOnExec(t *testing.T, mark func() error) {
	f, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fd := int(f.Fd())
	if _, err := unix.FcntlInt(uintptr(fd), unix.F_SETFD, 0); err != nil {
		t.Fatal(err)
	}
	std := map[int]int{}
	for i := range 3 {
		std[i], _ = unix.FcntlInt(uintptr(i), unix.F_GETFD, 0)
	}
	if err := mark(); err != nil {
		t.Fatal(err)
	}
	if flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0); err != nil || flags&unix.FD_CLOEXEC == 0 {
		t.Errorf("fd %d flags %#x, %v: want FD_CLOEXEC", fd, flags, err)
	}
	for i, before := range std {
		if after, _ := unix.FcntlInt(uintptr(i), unix.F_GETFD, 0); after != before {
			t.Errorf("fd %d flags %#x, were %#x", i, after, before)
		}
	}
}

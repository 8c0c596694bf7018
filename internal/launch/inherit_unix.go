//go:build unix

package launch

import (
	"os"
	"strconv"
	"syscall"
)

// CloseInheritedOnExec marks every file descriptor above stderr that the
// process holds close-on-exec. A process inherits whatever its parent left
// open without that flag (a make jobserver's pipe, a socket of the client
// that started it). Go opens its own descriptors close-on-exec and gives a
// child only the ones it names (stdin, stdout, stderr, ExtraFiles), but an
// inherited one would pass on to every plugin and to every command a
// plugin runs, which could then write to it. Call it first thing, before
// anything starts a process.
//
// On Linux 5.11 and later one close_range call does it; elsewhere, and on
// older kernels, the descriptors listed in /proc/self/fd (or /dev/fd) are
// marked one by one.
func CloseInheritedOnExec() error {
	if closeRangeOnExec() {
		return nil
	}
	return markListedOnExec()
}

// markListedOnExec marks close-on-exec each descriptor above stderr that
// /proc/self/fd, or else /dev/fd, lists.
func markListedOnExec() error {
	dir, err := os.Open("/proc/self/fd")
	if err != nil {
		if dir, err = os.Open("/dev/fd"); err != nil {
			return err
		}
	}
	defer dir.Close()
	names, err := dir.Readdirnames(-1)
	if err != nil {
		return err
	}
	for _, name := range names {
		if fd, err := strconv.Atoi(name); err == nil && fd > 2 {
			syscall.CloseOnExec(fd)
		}
	}
	return nil
}

package lsp

import (
	"errors"

	"golang.org/x/sys/unix"
)

// waitExit waits until pid has exited, without reaping it (so its pid,
// and its group's id, stay its own), and reports whether it could.
func waitExit(pid int) bool {
	for {
		var info unix.Siginfo
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if !errors.Is(err, unix.EINTR) {
			return err == nil
		}
	}
}

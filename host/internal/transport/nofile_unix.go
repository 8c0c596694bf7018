//go:build unix

package transport

import "syscall"

// openFileLimit is the process's soft limit on open files, 0 when unknown.
func openFileLimit() int {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil || lim.Cur > 1<<30 {
		return 0
	}
	return int(lim.Cur)
}

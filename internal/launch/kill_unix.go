//go:build unix

package launch

import (
	"errors"
	"syscall"
)

// killGroup kills the process group pid leads (procAttr made the plugin
// its leader), or pid alone when there is no such group.
func killGroup(pid int) {
	if pid <= 0 {
		return
	}
	if err := syscall.Kill(-pid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}

//go:build !unix

package launch

import (
	"os"
	"syscall"
)

// procAttr is nil: there are no process groups here, so what a plugin
// starts is not killed with it, and no parent-death signal; the lifeline
// pipe and the SDK's parent watch end the plugin when the host dies.
func procAttr() *syscall.SysProcAttr { return nil }

// killGroup kills the plugin process alone (see procAttr).
func killGroup(pid int) {
	if pid <= 0 {
		return
	}
	if p, err := os.FindProcess(pid); err == nil {
		_ = p.Kill()
	}
}

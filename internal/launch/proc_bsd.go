//go:build unix && !linux

package launch

import "syscall"

// procAttr makes the plugin lead its own process group; without a
// parent-death signal, the lifeline pipe and the SDK's parent watch end it.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

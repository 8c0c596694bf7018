package host

import "syscall"

// procAttr makes the plugin lead its own process group (so the group can be
// killed as one) and asks the kernel to SIGKILL it when the host dies.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

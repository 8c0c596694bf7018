package host

import "syscall"

// procAttr makes the plugin lead its own process group (so the group can be
// killed as one) and asks the kernel to send it SIGTERM when the host dies:
// a plugin built on the SDK then ends what it started (sdk.AtExit) and
// exits. The lifeline pipe closes at the same moment, as a second signal.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
}

//go:build unix

package upstream

import (
	"os/exec"
	"syscall"
)

func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killGroup kills every process left in the group led by pid. The leader
// has been waited for, so only its descendants can remain.
func killGroup(pid int) {
	_ = syscall.Kill(-pid, syscall.SIGKILL)
}

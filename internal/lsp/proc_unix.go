//go:build unix

package lsp

import (
	"errors"
	"os/exec"
	"syscall"
)

// setGroup makes the command lead a process group of its own.
func setGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
}

// leadsGroup reports whether pid leads its process group, as setGroup,
// Setsid or a sandbox's start made it.
func leadsGroup(pid int) bool {
	pgid, err := syscall.Getpgid(pid)
	return err == nil && pgid == pid
}

// killGroup kills every process of the group pid leads. The group's id
// cannot be reused while any of them lives, even after pid is reaped.
func killGroup(pid int) {
	if err := syscall.Kill(-pid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}

//go:build unix && !linux

package shell

import "syscall"

// sysProcAttr puts the shell in a process group of its own, so the group
// can be signalled as one.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

// groupAlive reports whether any process of the group pgid remains; without
// /proc, zombies count.
func groupAlive(pgid int) bool { return groupExists(pgid) }

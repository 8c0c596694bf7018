//go:build linux

package code

import "syscall"

// procAttr makes python3 lead its own process group, so a timeout kills
// what it started too, and dies with the plugin.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

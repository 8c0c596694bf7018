//go:build unix && !linux

package code

import "syscall"

// procAttr makes python3 lead its own process group, so a timeout kills
// what it started too.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

//go:build !unix

package code

import (
	"os"
	"syscall"
)

func procAttr() *syscall.SysProcAttr { return nil }

// killGroup kills p; without process groups, its children may survive.
func killGroup(p *os.Process) error { return p.Kill() }

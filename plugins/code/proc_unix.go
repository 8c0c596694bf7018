//go:build unix

package code

import (
	"errors"
	"os"
	"syscall"
)

// killGroup kills the process group p leads.
func killGroup(p *os.Process) error {
	if p.Pid <= 1 {
		return p.Kill()
	}
	if err := syscall.Kill(-p.Pid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
		return err
	}
	return nil
}

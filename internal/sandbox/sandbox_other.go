//go:build !unix

package sandbox

import (
	"os"
	"os/exec"
	"syscall"
	"time"
)

// Without Unix process groups, Start only starts the command; nothing
// applies.

func start(cmd *exec.Cmd, _ Policy) (Applied, error) {
	if err := cmd.Start(); err != nil {
		return Applied{}, err
	}
	return Applied{pid: cmd.Process.Pid}, nil
}

// Signal sends sig to the command's process.
func (a Applied) Signal(sig syscall.Signal) error {
	if a.pid <= 1 {
		return nil
	}
	p, err := os.FindProcess(a.pid)
	if err != nil {
		return err
	}
	return p.Signal(sig)
}

// Alive reports whether the command's process may still run.
func (a Applied) Alive() bool { return a.pid > 1 && a.Signal(syscall.Signal(0)) == nil }

func probe() Support { return Support{Reaping: ""} }

func nonDumpable() error { return nil }

// Stop kills the command's process.
func (a Applied) Stop(time.Duration) { _ = a.Signal(syscall.SIGKILL) }

//go:build unix && !linux

package sandbox

import (
	"errors"
	"os/exec"
	"syscall"
	"time"
)

// On Unix systems other than Linux, Start puts the command in a session and
// process group of its own, which Signal and Alive address; nothing else applies.

func start(cmd *exec.Cmd, _ Policy) (Applied, error) {
	attr := &syscall.SysProcAttr{}
	if cmd.SysProcAttr != nil {
		c := *cmd.SysProcAttr
		attr = &c
	}
	// A session of its own, which is also a process group of its own
	// (setpgid would fail for a session leader): without a controlling
	// terminal, the command cannot reach the caller's (see DeviceFiles).
	attr.Setsid = true
	attr.Setpgid, attr.Pgid, attr.Setctty, attr.Foreground = false, 0, false, false
	cmd.SysProcAttr = attr
	if err := cmd.Start(); err != nil {
		return Applied{}, err
	}
	return Applied{Reaping: ReapGroup, pid: cmd.Process.Pid}, nil
}

// Signal sends sig to the command's process group.
func (a Applied) Signal(sig syscall.Signal) error {
	if a.pid <= 1 {
		return nil
	}
	if err := syscall.Kill(-a.pid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		return err
	}
	return nil
}

// Alive reports whether a process of the command's group remains; zombies
// count.
func (a Applied) Alive() bool { return a.pid > 1 && syscall.Kill(-a.pid, 0) == nil }

func probe() Support { return Support{Reaping: ReapGroup} }

func nonDumpable() error { return nil }

// Stop sends SIGTERM to the command's group, then SIGKILL once the grace is
// over or the group is gone, and returns once it is gone, or a second after
// the SIGKILL at most.
func (a Applied) Stop(grace time.Duration) {
	_ = a.Signal(syscall.SIGTERM)
	for deadline := time.Now().Add(grace); time.Now().Before(deadline) && a.Alive(); {
		time.Sleep(20 * time.Millisecond)
	}
	_ = a.Signal(syscall.SIGKILL)
	for i := 0; i < 50 && a.Alive(); i++ {
		time.Sleep(20 * time.Millisecond)
	}
}

package launch

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// procAttr makes the plugin lead its own process group (so the group can be
// killed as one) and asks the kernel to send it SIGTERM when the host dies:
// a plugin built on the SDK then ends what it started (sdk.AtExit) and
// exits. The lifeline pipe closes at the same moment, as a second signal.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
}

// processEnded reports whether the child pid has ended or is ending: it is
// reaped already (ECHILD), a zombie not yet reaped, or being torn down
// (its main thread is a zombie while its other threads die: a killed
// multi-threaded process, which serves nothing more). It reaps nothing
// (WNOWAIT), so the Wait that owns the process still gets its status.
func processEnded(pid int) bool {
	// A zeroed siginfo stays zeroed when no child is waitable: si_signo
	// turns SIGCHLD only when pid has ended (x/sys's Siginfo has no si_pid,
	// whose offset differs between 32- and 64-bit kernels).
	var info unix.Siginfo
	err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOHANG|unix.WNOWAIT, nil)
	switch {
	case errors.Is(err, unix.ECHILD):
		return true
	case err == nil && info.Signo != 0:
		return true
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return errors.Is(err, fs.ErrNotExist)
	}
	i := bytes.LastIndexByte(b, ')')
	return i >= 0 && i+2 < len(b) && (b[i+2] == 'Z' || b[i+2] == 'X')
}

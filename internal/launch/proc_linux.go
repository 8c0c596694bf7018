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

// procWatch tells whether a child has ended without reaping it. It holds
// the child's /proc/<pid>/stat open: the host asks before every call, and
// reading an open file again costs one system call where opening it by
// path cost four and a path walk (17 µs a call, a sixth of the host's own
// share of a trivial call).
type procWatch struct {
	pid  int
	stat *os.File // nil when it could not be opened: read by path then
}

func newProcWatch(pid int) *procWatch {
	w := &procWatch{pid: pid}
	if f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil {
		w.stat = f
	}
	return w
}

// close lets go of the stat file, once the child is reaped.
func (w *procWatch) close() {
	if w.stat != nil {
		_ = w.stat.Close()
	}
}

// ended reports whether the child has ended or is ending: it is reaped
// already (ECHILD), a zombie not yet reaped, or being torn down (its main
// thread is a zombie while its other threads die: a killed multi-threaded
// process, which serves nothing more). It reaps nothing (WNOWAIT), so the
// Wait that owns the process still gets its status.
func (w *procWatch) ended() bool {
	// A zeroed siginfo stays zeroed when no child is waitable: si_signo
	// turns SIGCHLD only when pid has ended (x/sys's Siginfo has no si_pid,
	// whose offset differs between 32- and 64-bit kernels).
	var info unix.Siginfo
	err := unix.Waitid(unix.P_PID, w.pid, &info, unix.WEXITED|unix.WNOHANG|unix.WNOWAIT, nil)
	switch {
	case errors.Is(err, unix.ECHILD):
		return true
	case err == nil && info.Signo != 0:
		return true
	}
	// "pid (comm) S ...": comm is at most 16 bytes and the numbers after
	// the state hold no ')', so the first 64 bytes hold the state.
	var buf [64]byte
	var b []byte
	if w.stat != nil {
		n, err := w.stat.ReadAt(buf[:], 0)
		if n == 0 && err != nil {
			return errors.Is(err, unix.ESRCH) || errors.Is(err, os.ErrClosed)
		}
		b = buf[:n]
	} else {
		var err error
		if b, err = os.ReadFile("/proc/" + strconv.Itoa(w.pid) + "/stat"); err != nil {
			return errors.Is(err, fs.ErrNotExist)
		}
	}
	i := bytes.LastIndexByte(b, ')')
	return i >= 0 && i+2 < len(b) && (b[i+2] == 'Z' || b[i+2] == 'X')
}

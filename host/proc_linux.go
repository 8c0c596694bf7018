package host

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"strconv"
	"syscall"
	"unsafe"
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
	const pPID, wExited, wNoHang, wNoWait = 1, 4, 1, 0x01000000
	var info [128]byte // siginfo_t; si_pid is the int32 at offset 16
	_, _, errno := syscall.Syscall6(syscall.SYS_WAITID, pPID, uintptr(pid), uintptr(unsafe.Pointer(&info[0])), wExited|wNoHang|wNoWait, 0, 0)
	switch {
	case errno == syscall.ECHILD:
		return true
	case errno == 0 && *(*int32)(unsafe.Pointer(&info[16])) == int32(pid):
		return true
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return errors.Is(err, fs.ErrNotExist)
	}
	i := bytes.LastIndexByte(b, ')')
	return i >= 0 && i+2 < len(b) && (b[i+2] == 'Z' || b[i+2] == 'X')
}

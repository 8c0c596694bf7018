package pluginstore

import (
	"fmt"
	"os"

	"golang.org/x/sys/windows"
)

// flock locks f's first byte, exclusive or shared, with LockFileEx, the
// Windows counterpart of flock, and returns its release.
func flock(f *os.File, exclusive bool) (func(), error) {
	var flags uint32
	if exclusive {
		flags = windows.LOCKFILE_EXCLUSIVE_LOCK
	}
	h := windows.Handle(f.Fd())
	if err := windows.LockFileEx(h, flags, 0, 1, 0, new(windows.Overlapped)); err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("lock plugin dir: %w", err)
	}
	return func() {
		_ = windows.UnlockFileEx(h, 0, 1, 0, new(windows.Overlapped))
		_ = f.Close()
	}, nil
}

//go:build unix

package proctest

import (
	"os"
	"syscall"
)

// canLock says lockFile holds a lock other processes see.
const canLock = true

// lockFile takes an exclusive lock on the file at path (made if missing),
// waiting for another process's, and returns its release. The kernel
// lets go of it if the process dies.
func lockFile(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}

//go:build unix

package pluginstore

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// flock takes an flock on f, exclusive or shared, and returns its release.
func flock(f *os.File, exclusive bool) (func(), error) {
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	for {
		err := syscall.Flock(int(f.Fd()), how)
		if err == nil {
			break
		}
		if !errors.Is(err, syscall.EINTR) {
			_ = f.Close()
			return nil, fmt.Errorf("lock plugin dir: %w", err)
		}
	}
	return func() { _ = f.Close() }, nil // closing the file releases the lock
}

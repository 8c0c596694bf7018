//go:build unix

package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// nonblock keeps an open of a FIFO from blocking; the file is checked to
// be regular before it is read.
const nonblock = syscall.O_NONBLOCK

// tryLock takes an exclusive advisory lock on f without waiting; busy
// reports that another open file holds it.
func tryLock(f *os.File) (busy bool, err error) {
	err = control(f, func(fd int) error {
		for {
			err := unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB)
			if err != unix.EINTR {
				return err
			}
		}
	})
	if errors.Is(err, unix.EWOULDBLOCK) {
		return true, nil
	}
	return false, err
}

func keepOwner(tmp *os.File, fi fs.FileInfo) error {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	err := tmp.Chown(int(st.Uid), int(st.Gid))
	if errors.Is(err, fs.ErrPermission) {
		err = tmp.Chown(-1, int(st.Gid))
	}
	if err != nil && !errors.Is(err, fs.ErrPermission) {
		return err
	}
	return nil
}

func control(f *os.File, fn func(fd int) error) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var ferr error
	if err := rc.Control(func(fd uintptr) { ferr = fn(int(fd)) }); err != nil {
		return err
	}
	return ferr
}

// fileKey orders files for locking: the device and inode of fi.
func fileKey(fi fs.FileInfo) (dev, ino uint64) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Dev), uint64(st.Ino) // Dev is int32 on some systems
	}
	return 0, 0
}

//go:build unix

package launch

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
)

// The plugins' sockets live under one folder per host process,
// $TMPDIR/ramabana-<uid>/<host pid>, mode 0700: go-plugin makes a
// plugin-dir* folder in it for each plugin (PLUGIN_UNIX_SOCKET_DIR in the
// plugin's environment) and removes that when it kills the plugin. A host
// that is SIGKILLed cannot remove anything; the next host to start removes
// the folders of the hosts that are gone. A host holds an flock on
// <host pid>/lock for its life (the kernel drops it when the process dies,
// however it dies), so a folder is known abandoned when its lock can be
// taken, whatever pid namespace its host ran in.
var sockDir struct {
	once sync.Once
	path string
	lock *os.File
	err  error
}

// maxSocketDir leaves room for go-plugin's "/plugin-dirNNNNNNNNNN/pluginNNNNNNNNNN"
// under the 104 bytes a socket path may have (macOS; Linux allows 108).
const maxSocketDir = 104 - 1 - 38

// socketDir is this host process's plugin socket folder, made (and the
// abandoned ones of other hosts removed) at the first call. An error means
// plugins fall back to go-plugin's own folder in $TMPDIR.
func socketDir() (string, error) {
	sockDir.once.Do(func() {
		sockDir.path, sockDir.lock, sockDir.err = makeSocketDir(os.TempDir())
	})
	return sockDir.path, sockDir.err
}

// RemoveSocketDir removes this host process's plugin socket folder; the
// server calls it at exit, after the plugins are stopped. Nothing may
// launch a plugin after it.
func RemoveSocketDir() {
	sockDir.once.Do(func() { sockDir.err = errors.New("removed") })
	if sockDir.path != "" {
		_ = os.RemoveAll(sockDir.path)
		_ = sockDir.lock.Close()
	}
}

// makeSocketDir makes tmp/ramabana-<uid>/<pid> with its lock held, after
// removing the abandoned folders beside it.
func makeSocketDir(tmp string) (string, *os.File, error) {
	base := filepath.Join(tmp, "ramabana-"+strconv.Itoa(os.Getuid()))
	if len(base)+len("/4194304") > maxSocketDir {
		return "", nil, fmt.Errorf("plugin socket dir: %s is too long a path for sockets", base)
	}
	if err := ownPrivateDir(base); err != nil {
		return "", nil, fmt.Errorf("plugin socket dir: %w", err)
	}
	cleanSocketDirs(base)
	dir := filepath.Join(base, strconv.Itoa(os.Getpid()))
	// Between the lock's creation and its flock, another host cleaning up
	// may take the lock and remove the folder: the flock then holds a file
	// no longer there, and the folder is made again.
	for range lockTries {
		lock, err := lockedSocketDir(dir)
		if errors.Is(err, errLockLost) {
			continue
		}
		if err != nil {
			return "", nil, fmt.Errorf("plugin socket dir: %w", err)
		}
		return dir, lock, nil
	}
	return "", nil, fmt.Errorf("plugin socket dir: %s: %w %d times", dir, errLockLost, lockTries)
}

// lockTries bounds how often makeSocketDir makes the folder again.
const lockTries = 5

var errLockLost = errors.New("removed by another host as it was made")

// lockCreated, when set (by a test), runs between the lock file's creation
// and its flock: where another host's cleaning can come.
var lockCreated func(dir string)

// lockedSocketDir makes dir afresh and takes the lock in it; errLockLost:
// the folder was removed before the lock was held.
func lockedSocketDir(dir string) (*os.File, error) {
	_ = os.RemoveAll(dir) // a gone host's, with this host's pid
	if err := os.Mkdir(dir, 0o700); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, "lock")
	lock, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err == nil {
		if lockCreated != nil {
			lockCreated(dir)
		}
		err = syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	}
	if err != nil {
		if lock != nil {
			_ = lock.Close()
		}
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("lock: %w", err)
	}
	// Held, and still the folder's: no one can remove it from now on.
	held, err := lock.Stat()
	there, err2 := os.Stat(path)
	if err != nil || err2 != nil || !os.SameFile(held, there) {
		_ = lock.Close()
		return nil, errLockLost
	}
	return lock, nil
}

// ownPrivateDir makes dir (mode 0700) or checks that the one there is a
// real folder of this user that no one else may enter: in a shared /tmp,
// another user could have made it first.
func ownPrivateDir(dir string) error {
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	switch {
	case !fi.IsDir():
		return fmt.Errorf("%s is not a folder", dir)
	case !ok || int(st.Uid) != os.Getuid():
		return fmt.Errorf("%s belongs to another user", dir)
	case fi.Mode().Perm()&0o077 != 0:
		return os.Chmod(dir, 0o700)
	}
	return nil
}

// cleanSocketDirs removes the folders under base whose host is gone: its
// lock can be taken, or (a folder without a lock, which a starting host
// may have for a moment) its pid does not run.
func cleanSocketDirs(base string) {
	entries, err := os.ReadDir(base)
	if err != nil {
		return
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() || !e.IsDir() {
			continue
		}
		dir := filepath.Join(base, e.Name())
		lock, err := os.OpenFile(filepath.Join(dir, "lock"), os.O_RDWR, 0)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && !pidRuns(pid) {
				_ = os.RemoveAll(dir)
			}
			continue
		}
		if syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil {
			_ = os.RemoveAll(dir)
		}
		_ = lock.Close()
	}
}

func pidRuns(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

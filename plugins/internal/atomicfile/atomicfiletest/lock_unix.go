//go:build unix

package atomicfiletest

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// HoldLock takes path's flock through an open file description of its
// own, as another program would, and returns its release (also run on
// cleanup; releasing twice is harmless).
func HoldLock(t *testing.T, path string) (release func()) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		_ = f.Close()
		t.Fatalf("hold the lock of %s: %v", path, err)
	}
	var once sync.Once
	release = func() { once.Do(func() { _ = f.Close() }) }
	t.Cleanup(release)
	return release
}

// WaitOpened waits until this process holds more than n open files of
// path (the plugin serves in-process): a bounded poll, not a timing. It
// reads /proc, so it works on Linux only.
func WaitOpened(t *testing.T, path string, n int) {
	t.Helper()
	for range 60_000 {
		ents, _ := os.ReadDir("/proc/self/fd")
		open := 0
		for _, e := range ents {
			if l, err := os.Readlink(filepath.Join("/proc/self/fd", e.Name())); err == nil && l == path {
				open++
			}
		}
		if open > n {
			return
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatalf("the plugin never opened %s", path)
}

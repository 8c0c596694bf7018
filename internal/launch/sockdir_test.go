//go:build unix

package launch

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// shortTempDir is a temp dir with a path short enough for sockets
// (t.TempDir's, named after the test, may not be).
func shortTempDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "sd")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	return dir
}

func TestSocketDirIsPrivateAndCleansAbandonedOnes(t *testing.T) {
	t.Parallel()
	tmp := shortTempDir(t)
	base := filepath.Join(tmp, "ramabana-"+strconv.Itoa(os.Getuid()))
	mk := func(name string, lock bool) string {
		t.Helper()
		dir := filepath.Join(base, name)
		if err := os.MkdirAll(filepath.Join(dir, "plugin-dir123"), 0o700); err != nil {
			t.Fatal(err)
		}
		if lock {
			if err := os.WriteFile(filepath.Join(dir, "lock"), nil, 0o600); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	// A pid that ran and is gone.
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	goneNoLock := mk(strconv.Itoa(gone.Process.Pid), false)
	liveNoLock := mk(strconv.Itoa(os.Getppid()), false) // a host that is starting
	abandoned := mk("4194000", true)
	held := mk("4194001", true)
	notHost := mk("not-a-pid", false)
	f, err := os.OpenFile(filepath.Join(held, "lock"), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}

	dir, lock, err := makeSocketDir(tmp)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	if want := filepath.Join(base, strconv.Itoa(os.Getpid())); dir != want {
		t.Errorf("dir = %s, want %s", dir, want)
	}
	for path, want := range map[string]os.FileMode{base: 0o700, dir: 0o700} {
		if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v (%v), want %v", path, fi.Mode().Perm(), err, want)
		}
	}
	for path, kept := range map[string]bool{goneNoLock: false, abandoned: false, liveNoLock: true, held: true, notHost: true} {
		if _, err := os.Stat(path); (err == nil) != kept {
			t.Errorf("%s kept = %v, want %v", filepath.Base(path), err == nil, kept)
		}
	}
	// While this host holds its lock, another host's cleaning keeps it.
	cleanSocketDirs(base)
	if _, err := os.Stat(dir); err != nil {
		t.Errorf("a live host's folder was removed: %v", err)
	}
}

// TestSocketDirSurvivesACleaningAsItIsMade: another host cleaning up can
// take this host's lock in the moment between its creation and its flock,
// and remove the folder; the host makes it again, and ends with its folder
// there and its lock held, instead of a folder that is gone.
func TestSocketDirSurvivesACleaningAsItIsMade(t *testing.T) {
	tmp := shortTempDir(t)
	cleanings := 0
	lockCreated = func(dir string) {
		if !strings.HasPrefix(dir, tmp) || cleanings == 2 {
			return
		}
		cleanings++
		// What cleanSocketDirs does in another host that finds the lock free.
		f, err := os.OpenFile(filepath.Join(dir, "lock"), os.O_RDWR, 0)
		if err != nil {
			t.Errorf("the lock file is not there to take: %v", err)
			return
		}
		defer f.Close()
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			t.Errorf("the lock was held already: %v", err)
			return
		}
		_ = os.RemoveAll(dir)
	}
	t.Cleanup(func() { lockCreated = nil })

	dir, lock, err := makeSocketDir(tmp)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	if cleanings != 2 {
		t.Fatalf("cleaned %d times, want 2", cleanings)
	}
	there, err := os.Stat(filepath.Join(dir, "lock"))
	if err != nil {
		t.Fatalf("the folder is gone: %v", err)
	}
	if held, err := lock.Stat(); err != nil || !os.SameFile(held, there) {
		t.Errorf("the lock held is not the folder's (%v)", err)
	}
	f, err := os.OpenFile(filepath.Join(dir, "lock"), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err == nil {
		t.Error("the folder's lock is free: another host would remove it")
	}
}

func TestSocketDirRefusesAFolderItDoesNotOwn(t *testing.T) {
	t.Parallel()
	tmp := shortTempDir(t)
	elsewhere := t.TempDir()
	if err := os.Symlink(elsewhere, filepath.Join(tmp, "ramabana-"+strconv.Itoa(os.Getuid()))); err != nil {
		t.Fatal(err)
	}
	if _, _, err := makeSocketDir(tmp); err == nil || !strings.Contains(err.Error(), "not a folder") {
		t.Fatalf("a symlinked socket folder: err = %v, want a refusal", err)
	}
	if entries, _ := os.ReadDir(elsewhere); len(entries) != 0 {
		t.Errorf("something was made through the symlink: %v", entries)
	}
}

//go:build unix

package atomicfile

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ramabana/ramabana-mcp/internal/proctest"
	"github.com/ramabana/ramabana-mcp/plugins/internal/atomicfile/atomicfiletest"
)

// onBusy returns ctx with fn called each time Update finds the lock held.
func onBusy(ctx context.Context, fn func()) context.Context {
	return context.WithValue(ctx, busyHookKey{}, fn)
}

// lockedFile is a served directory with f.txt holding "old", its lock
// held by another open file description.
func lockedFile(t *testing.T) (dir string, root *os.Root, release func()) {
	dir, root = openDir(t)
	path := filepath.Join(dir, "f.txt")
	mustWrite(t, path, "old", 0o644)
	return dir, root, atomicfiletest.HoldLock(t, path)
}

// mustBeOld fails unless dir holds just f.txt, still "old".
func mustBeOld(t *testing.T, dir string) {
	t.Helper()
	if data, err := os.ReadFile(filepath.Join(dir, "f.txt")); err != nil || string(data) != "old" {
		t.Errorf("f.txt = %q (%v), want it untouched: \"old\"", data, err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("directory holds %v, want just f.txt", entries)
	}
}

// noEdit is an Edit that must not run.
func noEdit(t *testing.T) Edit {
	return func([]byte, fs.FileInfo) ([]byte, error) {
		t.Error("edit ran without the lock")
		return []byte("new"), nil
	}
}

// TestUpdateLockHeld: a lock held throughout makes Update give up after
// LockTimeout with ErrLocked, having waited (found the lock busy more than
// once) and changed nothing. An Update whose first try came only once
// LockTimeout had passed (a stalled thread on a loaded machine) rightly
// gives up without a retry, so Update is run again until one run retried:
// every run must fail with ErrLocked and change nothing.
func TestUpdateLockHeld(t *testing.T) {
	atomicfiletest.Set(t, &LockTimeout, 50*time.Millisecond)
	dir, root, _ := lockedFile(t)
	var busy []int // how often each run found the lock busy
	retried := proctest.Await(func() bool {
		n := 0
		err := Update(onBusy(t.Context(), func() { n++ }), root, "f.txt", nil, noEdit(t))
		busy = append(busy, n)
		if !errors.Is(err, ErrLocked) {
			t.Fatalf("Update = %v, want ErrLocked", err)
		}
		mustBeOld(t, dir)
		return n >= 2 || t.Failed()
	})
	if !retried {
		t.Errorf("found the lock busy %v times in %d runs, want it retried", busy, len(busy))
	}
}

// TestUpdateCancelledWhileWaiting: a ctx cancelled while Update waits for
// the lock ends the wait with ctx's error, and the file stays untouched
// once the lock is released.
func TestUpdateCancelledWhileWaiting(t *testing.T) {
	atomicfiletest.Set(t, &LockTimeout, time.Hour) // only the cancel can end the wait
	dir, root, release := lockedFile(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	err := Update(onBusy(ctx, cancel), root, "f.txt", nil, noEdit(t))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Update = %v, want context.Canceled", err)
	}
	release()
	mustBeOld(t, dir)
	// The file is free now: an Update with a live ctx goes through.
	if err := Update(t.Context(), root, "f.txt", nil, replaceWith("new")); err != nil {
		t.Fatal(err)
	}
}

// TestUpdateLockReleasedInTime: a lock released while Update waits lets
// the edit through, on the content as it is then.
func TestUpdateLockReleasedInTime(t *testing.T) {
	atomicfiletest.Set(t, &LockTimeout, time.Hour) // the release, not the bound, ends the wait
	dir, root, release := lockedFile(t)
	busy := 0
	ctx := onBusy(t.Context(), func() {
		if busy++; busy == 1 {
			mustWrite(t, filepath.Join(dir, "f.txt"), "older", 0o644)
			release()
		}
	})
	err := Update(ctx, root, "f.txt", nil, func(cur []byte, _ fs.FileInfo) ([]byte, error) {
		return append(cur, '+'), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if busy != 1 {
		t.Errorf("found the lock busy %d times, want 1", busy)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "f.txt")); string(data) != "older+" {
		t.Errorf("f.txt = %q, want %q", data, "older+")
	}
}

// TestCancelledChangesNothing: a ctx that ends before Update starts, or
// while it computes the edit (after the lock is taken, before the
// rename), and a Create whose ctx ended, change nothing and leave no
// temporary file.
func TestCancelledChangesNothing(t *testing.T) {
	t.Parallel()
	t.Run("update before", func(t *testing.T) {
		t.Parallel()
		dir, root := openDir(t)
		mustWrite(t, filepath.Join(dir, "f.txt"), "old", 0o644)
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		if err := Update(ctx, root, "f.txt", nil, noEdit(t)); !errors.Is(err, context.Canceled) {
			t.Errorf("Update = %v, want context.Canceled", err)
		}
		mustBeOld(t, dir)
	})
	t.Run("update during the edit", func(t *testing.T) {
		t.Parallel()
		dir, root := openDir(t)
		mustWrite(t, filepath.Join(dir, "f.txt"), "old", 0o644)
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		err := Update(ctx, root, "f.txt", nil, func([]byte, fs.FileInfo) ([]byte, error) {
			cancel()
			return []byte("new"), nil
		})
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Update = %v, want context.Canceled", err)
		}
		mustBeOld(t, dir)
	})
	t.Run("create", func(t *testing.T) {
		t.Parallel()
		dir, root := openDir(t)
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		if err := Create(ctx, root, "f.txt", []byte("new"), 0o644); !errors.Is(err, context.Canceled) {
			t.Errorf("Create = %v, want context.Canceled", err)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 0 {
			t.Errorf("directory holds %v, want nothing", entries)
		}
	})
}

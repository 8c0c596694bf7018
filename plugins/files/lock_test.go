//go:build linux

package files_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/ramabana/ramabana-mcp/plugins/internal/atomicfile"
	"github.com/ramabana/ramabana-mcp/sdk"
)

// holdLock takes path's flock through an open file description of its
// own, as another program would, and returns its release (also run on
// cleanup; releasing twice is harmless).
func holdLock(t *testing.T, path string) (release func()) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		_ = f.Close()
		t.Fatalf("hold the lock of %s: %v", path, err)
	}
	release = func() { _ = f.Close() }
	t.Cleanup(release)
	return release
}

// setLockTimeout sets atomicfile.LockTimeout for one test, which must not
// run in parallel, and restores it after.
func setLockTimeout(t *testing.T, d time.Duration) {
	old := atomicfile.LockTimeout
	atomicfile.LockTimeout = d
	t.Cleanup(func() { atomicfile.LockTimeout = old })
}

// waitOpened waits until this process holds more than n open files of
// path (the plugin serves in-process): a bounded poll, not a timing.
func waitOpened(t *testing.T, path string, n int) {
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

// TestLockedFile: every write tool on a file another program keeps locked
// fails, once the bound passes, with a message the model can act on, and
// writes nothing.
func TestLockedFile(t *testing.T) {
	setLockTimeout(t, 20*time.Millisecond)
	const content = "one\ntwo\n"
	tests := map[string]struct {
		tool string
		args map[string]any
	}{
		"replace_text": {"replace_text", map[string]any{"path": "f.txt", "old": "one", "new": "ONE"}},
		"edit_file":    {"edit_file", map[string]any{"path": "f.txt", "edits": []map[string]any{ed("replace", 1, h("one"), "text", "ONE")}}},
		"create_file":  {"create_file", map[string]any{"path": "f.txt", "content": "new\n", "overwrite": true}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			e := newEnv(t, map[string]string{"f.txt": content}, false)
			holdLock(t, e.path("f.txt"))
			msg, isErr := e.call(t, tc.tool, tc.args)
			const want = "f.txt is locked by another program; try again later (nothing was written)"
			if !isErr || msg != want {
				t.Errorf("%s = %q (error %v), want the error %q", tc.tool, msg, isErr, want)
			}
			if got := readString(t, e.path("f.txt")); got != content {
				t.Errorf("f.txt = %q, want it untouched", got)
			}
			noTempFiles(t, e.dir)
		})
	}
}

// TestCancelledWhileLocked: a replace_text cancelled while it waits for a
// file another program keeps locked returns the cancellation, and its edit
// is not applied when the lock is released: the next edit, which the
// plugin runs only after the cancelled one has ended, finds the file as
// it was.
func TestCancelledWhileLocked(t *testing.T) {
	setLockTimeout(t, time.Hour) // only the cancel can end the wait
	e := newEnv(t, map[string]string{"f.txt": "one\ntwo\n"}, false)
	path := e.path("f.txt")
	release := holdLock(t, path)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	args, _ := json.Marshal(map[string]any{"path": "f.txt", "old": "one", "new": "ONE"})
	done := make(chan error, 1)
	go func() {
		_, err := e.g.Call(ctx, &sdk.Call{Tool: "replace_text", Arguments: args}, nil)
		done <- err
	}()
	waitOpened(t, path, 1)
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled replace_text = %v, want context.Canceled", err)
	}
	release()
	if msg, isErr := e.call(t, "replace_text", map[string]any{"path": "f.txt", "old": "two", "new": "TWO"}); isErr {
		t.Fatalf("replace_text after the release: %s", msg)
	}
	if got := readString(t, path); got != "one\nTWO\n" {
		t.Errorf("f.txt = %q, want %q: the cancelled edit was applied", got, "one\nTWO\n")
	}
	noTempFiles(t, e.dir)
}

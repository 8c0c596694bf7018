//go:build unix

package atomicfile

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/sys/unix"

	"github.com/ramabana/ramabana-mcp/plugins/internal/atomicfile/atomicfiletest"
)

// TestUpdateAllOppositeOrders runs UpdateAlls over the same two files,
// half of them naming the files in the opposite order, each appending its
// line to both: all complete (none waits for another in a cycle; a
// deadlock would end with the ctx, as a failure), and both files get the
// lines in the same order, each UpdateAll having held both locks.
func TestUpdateAllOppositeOrders(t *testing.T) {
	// Only a deadlock may end a wait: then the ctx ends it.
	atomicfiletest.Set(t, &LockTimeout, time.Hour)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	m := newMulti(t)
	yield := func(fs.FileInfo) error { runtime.Gosched(); return nil }
	const n = 16
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			line := fmt.Sprintf("%d\n", i)
			cs := []Change{
				{Dir: m.roots[0], Name: "a.txt", Check: yield, Edit: appendEdit(line)},
				{Dir: m.roots[1], Name: "c.txt", Check: yield, Edit: appendEdit(line)},
			}
			if i%2 == 1 {
				slices.Reverse(cs)
			}
			if err := UpdateAll(ctx, cs); err != nil {
				t.Errorf("UpdateAll %d: %v", i, err)
			}
		})
	}
	wg.Wait()
	a, _ := os.ReadFile(m.path(0, "a.txt"))
	c, _ := os.ReadFile(m.path(1, "c.txt"))
	linesA := strings.Split(strings.TrimPrefix(string(a), "a\n"), "\n")
	linesC := strings.Split(strings.TrimPrefix(string(c), "c\n"), "\n")
	if diff := cmp.Diff(linesA, linesC); diff != "" {
		t.Errorf("lines of a.txt and c.txt differ (-a +c):\n%s", diff)
	}
	if got := len(linesA) - 1; got != n {
		t.Errorf("a.txt has %d lines appended, want %d:\n%s", got, n, a)
	}
}

// TestUpdateAllLockOrder: two UpdateAlls over files x and y, the first
// naming them x, y and the second y, x, are made to meet where locking in
// the order given would deadlock: the first holds x and waits for y (held
// by another program) when the second starts, and y is free by then. Both
// lock x first (x has the lower inode), so both complete.
func TestUpdateAllLockOrder(t *testing.T) {
	atomicfiletest.Set(t, &LockTimeout, time.Hour) // a deadlock would end with ctx
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	m := newMulti(t)
	x := Change{Dir: m.roots[0], Name: "a.txt", Edit: appendEdit("1")}
	y := Change{Dir: m.roots[1], Name: "c.txt", Edit: appendEdit("1")}
	if inode(t, m, x) > inode(t, m, y) {
		x, y = y, x
	}
	releaseY := atomicfiletest.HoldLock(t, filepath.Join(dirOf(m, y), y.Name))
	second := make(chan error, 1)
	secondBusy := make(chan struct{})
	var once sync.Once
	first := 0
	err := UpdateAll(onBusy(ctx, func() {
		if first++; first > 1 {
			return
		}
		// The first holds x and found y busy.
		releaseY()
		x2, y2 := x, y
		x2.Edit, y2.Edit = appendEdit("2"), appendEdit("2")
		go func() {
			second <- UpdateAll(onBusy(ctx, func() { once.Do(func() { close(secondBusy) }) }), []Change{y2, x2})
		}()
		select {
		case <-secondBusy: // waiting for x, or, in the order given, holding y
		case err := <-second:
			second <- err
		}
	}), []Change{x, y})
	if err != nil {
		t.Fatalf("the first UpdateAll: %v", err)
	}
	if err := <-second; err != nil {
		t.Fatalf("the second UpdateAll: %v", err)
	}
	for _, c := range []Change{x, y} {
		if data, _ := os.ReadFile(filepath.Join(dirOf(m, c), c.Name)); !strings.HasSuffix(string(data), "\n12") {
			t.Errorf("%s = %q, want both edits, in order", c.Name, data)
		}
	}
}

// inode is the inode of the file of c, a change of m.
func inode(t *testing.T, m *multi, c Change) uint64 {
	fi, err := os.Stat(filepath.Join(dirOf(m, c), c.Name))
	if err != nil {
		t.Fatal(err)
	}
	_, ino := fileKey(fi)
	return ino
}

// dirOf is the directory of c, a change of m.
func dirOf(m *multi, c Change) string {
	if c.Dir == m.roots[0] {
		return m.dirs[0]
	}
	return m.dirs[1]
}

// TestUpdateAllLockHeld: a lock of one file held throughout makes
// UpdateAll give up after LockTimeout with ErrLocked, having edited and
// changed nothing.
func TestUpdateAllLockHeld(t *testing.T) {
	atomicfiletest.Set(t, &LockTimeout, 50*time.Millisecond)
	m := newMulti(t)
	atomicfiletest.HoldLock(t, m.path(0, "b.txt"))
	want := m.state(t)
	err := UpdateAll(t.Context(), m.changes(func(int) Edit { return noEdit(t) }))
	if !errors.Is(err, ErrLocked) {
		t.Fatalf("UpdateAll = %v, want ErrLocked", err)
	}
	if diff := cmp.Diff(want, m.state(t)); diff != "" {
		t.Errorf("directories (-want +got):\n%s", diff)
	}
}

// TestUpdateAllCancelledWhileWaiting: a ctx cancelled while UpdateAll
// waits for a lock ends the wait with ctx's error, and nothing changes.
func TestUpdateAllCancelledWhileWaiting(t *testing.T) {
	atomicfiletest.Set(t, &LockTimeout, time.Hour) // only the cancel can end the wait
	m := newMulti(t)
	release := atomicfiletest.HoldLock(t, m.path(1, "c.txt"))
	want := m.state(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	err := UpdateAll(onBusy(ctx, cancel), m.changes(func(int) Edit { return noEdit(t) }))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("UpdateAll = %v, want context.Canceled", err)
	}
	release()
	if diff := cmp.Diff(want, m.state(t)); diff != "" {
		t.Errorf("directories (-want +got):\n%s", diff)
	}
}

// TestUpdateAllReplacedWhileWaiting: a file replaced (by its lock's holder)
// while UpdateAll waits for its lock is opened again, and every edit is
// made once, on the content as it is then.
func TestUpdateAllReplacedWhileWaiting(t *testing.T) {
	atomicfiletest.Set(t, &LockTimeout, time.Hour) // the release, not the bound, ends the wait
	m := newMulti(t)
	release := atomicfiletest.HoldLock(t, m.path(1, "c.txt"))
	busy := 0
	ctx := onBusy(t.Context(), func() {
		if busy++; busy == 1 {
			other := filepath.Join(m.dirs[1], "other")
			mustWrite(t, other, "C\n", 0o600)
			if err := os.Rename(other, m.path(1, "c.txt")); err != nil {
				t.Fatal(err)
			}
			release()
		}
	})
	edits := 0
	err := UpdateAll(ctx, m.changes(func(int) Edit {
		return func(cur []byte, _ fs.FileInfo) ([]byte, error) {
			edits++
			return append(cur, '+'), nil
		}
	}))
	if err != nil {
		t.Fatal(err)
	}
	if busy != 1 || edits != 3 {
		t.Errorf("found a lock busy %d times, made %d edits; want 1 and 3", busy, edits)
	}
	want := map[string]string{
		"0/a.txt": "-rwxr-x--x a\n+",
		"0/b.txt": "-rw-r--r-- b\n+",
		"1/c.txt": "-rw------- C\n+",
	}
	if diff := cmp.Diff(want, m.state(t)); diff != "" {
		t.Errorf("directories (-want +got):\n%s", diff)
	}
}

// TestUpdateAllHoldsNewFiles: a file renamed into place stays locked until
// UpdateAll returns, so that a writer that locks waits for the restore a
// later failure may bring.
func TestUpdateAllHoldsNewFiles(t *testing.T) {
	t.Parallel()
	m := newMulti(t)
	a := m.path(0, "a.txt")
	ctx := context.WithValue(t.Context(), renameHookKey{}, func(i int) error {
		if i == 2 {
			if err := tryFlock(a); !errors.Is(err, unix.EWOULDBLOCK) {
				t.Errorf("a.txt renamed into place: flock = %v, want it held (EWOULDBLOCK)", err)
			}
		}
		return nil
	})
	if err := UpdateAll(ctx, m.changes(func(int) Edit { return replaceWith("new") })); err != nil {
		t.Fatal(err)
	}
	if err := tryFlock(a); err != nil {
		t.Errorf("a.txt after UpdateAll: flock = %v, want it free", err)
	}
}

// tryFlock takes and releases the lock of path, without waiting.
func tryFlock(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
}

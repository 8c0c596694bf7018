package atomicfile

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"
	"time"
)

// Change is one file of an UpdateAll: the regular file Name in the
// directory Dir (an os.Root), with Check and Edit as Update takes them.
type Change struct {
	Dir   *os.Root
	Name  string
	Check func(fs.FileInfo) error
	Edit  Edit
}

// ErrPartial is the error of an UpdateAll that renamed some files into
// place, failed to rename a later one, and could not restore all of the
// first ones: the error names those left with their new content.
var ErrPartial = errors.New("some files keep their new content: restoring them failed")

// renameHookKey is the context key of a func(i int) error that UpdateAll
// calls before it renames the temporary file of changes[i] over its
// target, an error standing for that rename's, so that a test can make a
// rename fail. Only this package's tests set it.
type renameHookKey struct{}

// UpdateAll replaces every file of changes with what its Edit makes of its
// content, or none of them: a language-server rename is written entirely
// or not at all.
//
// It opens every file as Update does: a symlink in place is an error
// matching ErrSymlink, a missing file one matching fs.ErrNotExist, a file
// that is not regular an error, and so is a Check error (returned as is).
// Two changes naming the same file (the same inode, through whatever name
// or root) are an error too. It then locks the files in the order of their
// device and inode, whatever the order of changes, so that UpdateAlls over
// overlapping files never wait for each other in a cycle; the waits share
// one LockTimeout and end with ctx, as Update's. When a file was replaced
// while it waited for its lock, it releases every lock and starts again
// (reopening the files, at most as often as Update).
//
// Under all the locks, in the order of changes, it calls each Check on its
// file's info, reads the file and calls Edit, then writes each new content
// to a temporary file beside its target with the owner, group, mode and
// extended attributes of the old file, synced. The first error of a Check
// or Edit is returned as is, and so is the first other error. Before the
// first rename it checks that no writer that does not lock changed or
// replaced one of the files meanwhile (else an error matching ErrChanged,
// naming the file), and ctx last: an UpdateAll whose ctx ended returns
// ctx's error. In all these cases no file is changed and no temporary file
// is left.
//
// It then renames each temporary file over its target, in the order of
// changes, and syncs the directories. Should a rename fail, it restores
// the files renamed before it (writes their old content to a temporary
// file, with their attributes, and renames it over them) and returns an
// error that wraps the failure, names its file and says the others were
// restored. When one could not be restored, or was
// changed by another program since it was renamed in (that change is
// kept), the error also matches ErrPartial and names the files left with
// their new content. Until UpdateAll returns it holds the lock of every
// new file too, so a writer that locks never edits a file that may yet be
// restored. No temporary file is left.
//
// Each rename gives its file a new inode, as Update's does. An empty
// changes is a no-op.
func UpdateAll(ctx context.Context, changes []Change) error {
	if len(changes) == 0 {
		return nil
	}
	deadline := time.Now().Add(LockTimeout)
	ts := make([]target, len(changes))
	for i, c := range changes {
		ts[i].Change = c
	}
	defer func() {
		for i := range ts {
			ts[i].release()
		}
	}()
	if err := lockAll(ctx, deadline, ts); err != nil {
		return err
	}
	for i := range ts {
		t := &ts[i]
		if t.Check != nil {
			if err := t.Check(t.fi); err != nil {
				return err
			}
		}
		old, err := io.ReadAll(t.f)
		if err != nil {
			return fmt.Errorf("read %s: %w", t.Name, err)
		}
		if t.data, err = t.Edit(old, t.fi); err != nil {
			return err
		}
		t.old = old
	}
	for i := range ts {
		if err := ts[i].writeNew(); err != nil {
			return err
		}
	}
	for i := range ts {
		t := &ts[i]
		if err := unchanged(t.Dir, t.Name, t.f, t.fi); err != nil {
			return err
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	hook, _ := ctx.Value(renameHookKey{}).(func(int) error)
	for k := range ts {
		t := &ts[k]
		var err error
		if hook != nil {
			err = hook(k)
		}
		if err == nil {
			err = t.Dir.Rename(t.tmp, t.Name)
		}
		if err != nil {
			return restore(ts[:k], fmt.Errorf("update %s: %w", t.Name, err))
		}
		t.tmp = ""
	}
	syncDirs(ts)
	return nil
}

// target is the state of one Change in an UpdateAll.
type target struct {
	Change
	f      *os.File    // the file, opened and then locked
	fi     fs.FileInfo // its info, under the lock
	key    [2]uint64   // its device and inode, the order of the locks
	old    []byte      // its content, for a restore
	data   []byte      // the new content, until written
	tmp    string      // the temporary file with data, until renamed
	held   *os.File    // the temporary file, open and locked
	heldFi fs.FileInfo // its info once written
}

// release closes the files of t, releasing their locks, and removes its
// temporary file if it was not renamed.
func (t *target) release() {
	if t.tmp != "" {
		_ = t.Dir.Remove(t.tmp)
		t.tmp = ""
	}
	for _, f := range []*os.File{t.f, t.held} {
		if f != nil {
			_ = f.Close()
		}
	}
	t.f, t.held = nil, nil
}

// lockAll opens and locks every file of ts (see UpdateAll). On error the
// caller releases ts.
func lockAll(ctx context.Context, deadline time.Time, ts []target) error {
	replaced := ""
	for range maxAttempts {
		if err := ctx.Err(); err != nil {
			return err
		}
		for i := range ts {
			ts[i].release() // a previous attempt's
		}
		for i := range ts {
			t := &ts[i]
			f, fi, err := openTarget(t.Dir, t.Name, t.Check)
			if err != nil {
				return err
			}
			t.f, t.fi = f, fi
			t.key[0], t.key[1] = fileKey(fi)
		}
		order := make([]int, len(ts))
		for i := range order {
			order[i] = i
		}
		slices.SortFunc(order, func(i, j int) int {
			return cmp.Or(cmp.Compare(ts[i].key[0], ts[j].key[0]), cmp.Compare(ts[i].key[1], ts[j].key[1]), cmp.Compare(i, j))
		})
		// Two opens of one file would wait for each other's lock.
		for a, i := range order {
			for _, j := range order[a+1:] {
				if ts[j].key != ts[i].key {
					break
				}
				if os.SameFile(ts[i].fi, ts[j].fi) {
					if ts[i].Name == ts[j].Name {
						return fmt.Errorf("update %s: two changes name this file", ts[i].Name)
					}
					return fmt.Errorf("update %s and %s: two changes name the same file", ts[i].Name, ts[j].Name)
				}
			}
		}
		replaced = ""
		for _, i := range order {
			t := &ts[i]
			fi, same, err := lockTarget(ctx, deadline, t.Dir, t.Name, t.f)
			if err != nil {
				return err
			}
			if !same {
				replaced = t.Name
				break
			}
			t.fi = fi
		}
		if replaced == "" {
			return nil
		}
	}
	return fmt.Errorf("update %s: %w (files were replaced %d times while waiting for their locks)", replaced, ErrChanged, maxAttempts)
}

// writeNew writes t's new content to a temporary file beside it, with the
// attributes of the old file, and keeps it open and locked.
func (t *target) writeNew() error {
	tmp, f, err := createTemp(t.Dir, t.Name, t.data, func(n *os.File) error { return keepAttrs(t.f, n, t.fi) })
	if err != nil {
		return err
	}
	t.tmp, t.held, t.data = tmp, f, nil
	// Nobody else has this file yet: the lock is free.
	if busy, err := tryLock(f); err != nil || busy {
		return fmt.Errorf("lock the new %s: %w", t.Name, cmp.Or(err, ErrLocked))
	}
	t.heldFi, err = f.Stat()
	return err
}

// restore writes back the old content of the files of done, already
// renamed into place, after err, the failure of the next rename, and
// returns the error of UpdateAll.
func restore(done []target, err error) error {
	if len(done) == 0 {
		return err
	}
	var restored, kept []string
	for j := range done {
		t := &done[j]
		if rerr := t.restore(); rerr != nil {
			kept = append(kept, fmt.Sprintf("%s (%v)", t.Name, rerr))
		} else {
			restored = append(restored, t.Name)
		}
	}
	syncDirs(done)
	if len(kept) == 0 {
		return fmt.Errorf("%w; the files renamed before it were restored to their old content (%s), so none is changed", err, strings.Join(restored, ", "))
	}
	msg := strings.Join(kept, ", ")
	if len(restored) > 0 {
		msg += "; restored: " + strings.Join(restored, ", ")
	}
	return fmt.Errorf("%w; %w: %s", err, ErrPartial, msg)
}

// restore renames a copy of t's old content, with its attributes, over
// t's new file, unless a writer that does not lock changed that since.
func (t *target) restore() error {
	if unchanged(t.Dir, t.Name, t.held, t.heldFi) != nil {
		return errors.New("changed by another program since it was written")
	}
	tmp, err := writeTemp(t.Dir, t.Name, t.old, func(n *os.File) error { return keepAttrs(t.f, n, t.fi) })
	if err != nil {
		return err
	}
	if err := t.Dir.Rename(tmp, t.Name); err != nil {
		_ = t.Dir.Remove(tmp)
		return err
	}
	return nil
}

// syncDirs syncs the directory of each of ts, once each.
func syncDirs(ts []target) {
	seen := make(map[*os.Root]bool)
	for i := range ts {
		if d := ts[i].Dir; !seen[d] {
			seen[d] = true
			syncDir(d)
		}
	}
}

// Package atomicfile replaces files inside a directory held open, so that a
// reader sees the old content or the new, never a mix, and two writers
// never lose each other's update.
//
// Every operation names a single entry of a directory given as an os.Root
// (the parent directory of the file, opened through the served folder's
// root by sdk/roots): the temporary file, the rename over the target and
// the directory sync all happen in that directory, whatever its path
// leads to by then.
//
// Update is a read-modify-write under an advisory lock (flock) on the
// target: the edit is computed from the content read under the lock, so a
// second writer that also locks (another ramabana server, or this one)
// applies its edit on top of the first one's result. A writer that does
// not lock and changes the file during the edit makes Update fail with
// ErrChanged; it never silently loses that change. The wait for another
// holder's lock is bounded (LockTimeout) and ends with the caller's
// context: a cancelled Update changes nothing, even once the lock is free.
//
// UpdateAll is Update for several files, all or nothing (a rename across a
// project): it locks them all, in an order that cannot deadlock, before it
// edits any, renames none into place before all are written, and restores
// those renamed should a later rename fail.
package atomicfile

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"strconv"
	"time"
)

// KeptMode is the part of a file's mode a rewrite keeps.
func KeptMode(m fs.FileMode) fs.FileMode {
	return m & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky)
}

var (
	// ErrChanged is the error of an Update (or UpdateAll) whose file was
	// changed or replaced by a writer that does not lock, while the edit
	// was computed.
	ErrChanged = errors.New("the file was changed by another program during the edit")
	// ErrSymlink is the error of an Update (or UpdateAll) whose target is
	// a symlink: the path was resolved to a file, and a link took its
	// place since.
	ErrSymlink = errors.New("the file was replaced by a symlink since its path was checked")
)

// maxAttempts bounds how often Update reopens a target that was replaced
// while it waited for the lock.
const maxAttempts = 64

// Edit computes the new content of a file from its current content and
// info, read under the lock. An error leaves the file untouched and is
// what Update returns.
type Edit func(cur []byte, fi fs.FileInfo) ([]byte, error)

// Update replaces the regular file name in dir with what edit makes of its
// content. It opens the file, locks it (waiting for another locker, see
// below), makes
// sure name still is the locked file (else starts again), calls check on
// its info (a check error is returned as is: directories, special files,
// sizes) and reads it, calls edit, and writes the result to a temporary
// file in dir with the owner, group, mode and extended attributes of the
// old file, synced, renamed over name, and the directory synced. On any
// error the file is unchanged and no temporary file is left.
//
// A missing file is an error matching fs.ErrNotExist. The rename gives the
// file a new inode: hard links to the old one keep the old content.
//
// Update waits for another holder of the lock until ctx ends or
// LockTimeout passes (in all, across reopens), whichever is first: then it
// fails with ctx's error, or with an error matching ErrLocked. It checks
// ctx once more right before the rename, so an Update whose ctx ended
// returns ctx's error and leaves the file unchanged.
func Update(ctx context.Context, dir *os.Root, name string, check func(fs.FileInfo) error, edit Edit) error {
	deadline := time.Now().Add(LockTimeout)
	for range maxAttempts {
		if err := ctx.Err(); err != nil {
			return err
		}
		done, err := updateOnce(ctx, deadline, dir, name, check, edit)
		if done {
			return err
		}
	}
	return fmt.Errorf("update %s: %w (it was replaced %d times while waiting for its lock)", name, ErrChanged, maxAttempts)
}

// updateOnce is one attempt of Update; done is false when the file was
// replaced while it waited for the lock.
func updateOnce(ctx context.Context, deadline time.Time, dir *os.Root, name string, check func(fs.FileInfo) error, edit Edit) (done bool, err error) {
	f, _, err := openTarget(dir, name, check)
	if err != nil {
		return true, err
	}
	defer f.Close() // also releases the lock
	fi, same, err := lockTarget(ctx, deadline, dir, name, f)
	if err != nil || !same {
		return err != nil, err
	}
	if check != nil {
		if err := check(fi); err != nil {
			return true, err
		}
	}
	old, err := io.ReadAll(f)
	if err != nil {
		return true, fmt.Errorf("read %s: %w", name, err)
	}
	data, err := edit(old, fi)
	if err != nil {
		return true, err
	}
	tmp, err := writeTemp(dir, name, data, func(t *os.File) error { return keepAttrs(f, t, fi) })
	if err != nil {
		return true, err
	}
	if err := unchanged(dir, name, f, fi); err != nil {
		_ = dir.Remove(tmp)
		return true, err
	}
	if err := ctx.Err(); err != nil {
		_ = dir.Remove(tmp)
		return true, err
	}
	if err := dir.Rename(tmp, name); err != nil {
		_ = dir.Remove(tmp)
		return true, err
	}
	syncDir(dir)
	return true, nil
}

// openTarget opens the regular file name in dir for reading, without
// locking it, and calls check on its info (a check error is returned as
// is). A symlink in place of name is an error matching ErrSymlink, a
// missing file one matching fs.ErrNotExist. On error no file is open.
func openTarget(dir *os.Root, name string, check func(fs.FileInfo) error) (*os.File, fs.FileInfo, error) {
	if li, err := dir.Lstat(name); err != nil {
		return nil, nil, err
	} else if li.Mode()&fs.ModeSymlink != 0 {
		return nil, nil, fmt.Errorf("update %s: %w", name, ErrSymlink)
	}
	f, err := dir.OpenFile(name, os.O_RDONLY|nonblock, 0)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err == nil && check != nil {
		err = check(fi)
	}
	if err == nil && !fi.Mode().IsRegular() {
		err = fmt.Errorf("update %s: not a regular file", name)
	}
	if err != nil {
		_ = f.Close()
		return nil, nil, err
	}
	return f, fi, nil
}

// lockTarget locks f, opened as name in dir by openTarget (waiting as lock
// does), and returns its info once locked; same is false when name no
// longer is f, the lock then being of no use. Closing f releases the lock.
func lockTarget(ctx context.Context, deadline time.Time, dir *os.Root, name string, f *os.File) (fi fs.FileInfo, same bool, err error) {
	if err := lock(ctx, f, deadline); err != nil {
		return nil, false, fmt.Errorf("lock %s: %w", name, err)
	}
	// The lock is on the inode opened: a writer that held it may have
	// renamed a new file over name meanwhile.
	if fi, err = f.Stat(); err != nil {
		return nil, false, err
	}
	if cur, err := dir.Lstat(name); err != nil || !os.SameFile(fi, cur) {
		return nil, false, nil
	}
	return fi, true, nil
}

// unchanged fails with an error matching ErrChanged unless f, locked with
// info fi, still has fi's size and modification time and still is name in
// dir. A writer that does not lock may have written in place or renamed a
// file over name while the edit was computed: refuse rather than lose its
// change.
func unchanged(dir *os.Root, name string, f *os.File, fi fs.FileInfo) error {
	if now, err := f.Stat(); err != nil || now.Size() != fi.Size() || !now.ModTime().Equal(fi.ModTime()) {
		return fmt.Errorf("update %s: %w", name, ErrChanged)
	}
	if cur, err := dir.Lstat(name); err != nil || !os.SameFile(fi, cur) {
		return fmt.Errorf("update %s: %w", name, ErrChanged)
	}
	return nil
}

// Create writes a new file name in dir with data and mode (exactly, whatever
// the umask): to a temporary file first, synced, then linked in place, so
// that it fails with an error matching fs.ErrExist, and changes nothing,
// when any entry named name exists, a dangling symlink included. On any
// error no temporary file is left. Create takes no lock, so it does not
// wait; it checks ctx right before linking the file in place, so a Create
// whose ctx ended returns ctx's error and creates nothing.
func Create(ctx context.Context, dir *os.Root, name string, data []byte, mode fs.FileMode) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	tmp, err := writeTemp(dir, name, data, func(t *os.File) error { return t.Chmod(mode) })
	if err != nil {
		return err
	}
	defer func() { _ = dir.Remove(tmp) }()
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := dir.Link(tmp, name); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return &fs.PathError{Op: "create", Path: name, Err: fs.ErrExist}
		}
		// A file system without hard links: rename, after a last check.
		if _, lerr := dir.Lstat(name); !errors.Is(lerr, fs.ErrNotExist) {
			return err
		}
		if err := dir.Rename(tmp, name); err != nil {
			return err
		}
	}
	syncDir(dir)
	return nil
}

// writeTemp writes data to a new temporary file in dir beside name, lets
// attrs set its attributes, syncs and closes it, and returns its name. On
// error the file is gone.
func writeTemp(dir *os.Root, name string, data []byte, attrs func(*os.File) error) (tmp string, err error) {
	tmp, f, err := createTemp(dir, name, data, attrs)
	if err != nil {
		return "", err
	}
	if err := f.Close(); err != nil {
		_ = dir.Remove(tmp)
		return "", err
	}
	return tmp, nil
}

// createTemp is writeTemp leaving the file open (read-write) for the
// caller to close.
func createTemp(dir *os.Root, name string, data []byte, attrs func(*os.File) error) (tmp string, f *os.File, err error) {
	for range 16 {
		tmp = tempName(name)
		f, err = dir.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if !errors.Is(err, fs.ErrExist) {
			break
		}
	}
	if err != nil {
		return "", nil, err
	}
	defer func() {
		if err != nil {
			_ = f.Close()
			_ = dir.Remove(tmp)
		}
	}()
	if _, err = f.Write(data); err != nil {
		return "", nil, err
	}
	if err = attrs(f); err != nil {
		return "", nil, err
	}
	if err = f.Sync(); err != nil {
		return "", nil, err
	}
	return tmp, f, nil
}

// tempName is a hidden name beside name, short enough for any file system.
func tempName(name string) string {
	if len(name) > 200 {
		name = name[:200]
	}
	return "." + name + "." + strconv.FormatUint(rand.Uint64(), 36) + ".tmp"
}

// keepAttrs gives tmp the owner, group, extended attributes and mode of
// the old file (info fi).
func keepAttrs(old, tmp *os.File, fi fs.FileInfo) error {
	if err := keepOwner(tmp, fi); err != nil {
		return err
	}
	if err := copyXattrs(old, tmp); err != nil {
		return err
	}
	// Last: a chown clears the setuid and setgid bits.
	return tmp.Chmod(KeptMode(fi.Mode()))
}

// syncDir makes a rename in dir durable; a failure leaves a correct file.
func syncDir(dir *os.Root) {
	if d, err := dir.Open("."); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
}

package roots

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// Target is a path resolved by Read or Write, and the only way plugins
// reach it: every method performs its access through the os.Root of the
// served folder that contains the path, so the access stays inside that
// folder whatever changed on disk since the path was resolved. A Target
// outside the roots (a read with read-outside) is reached by its absolute
// name. A Target holds no open file; it is safe for concurrent use.
type Target struct {
	// Abs is the resolved absolute path, to show and to record; plugins
	// never open it by name.
	Abs string
	// root is the served folder containing Abs; nil when Abs is outside.
	root *handle
	// rel is Abs relative to root, "." for the root itself.
	rel string
}

// Read resolves a path to read, as ResolveRead does, into a Target.
func (r *Roots) Read(p string) (*Target, error) {
	abs, err := r.ResolveRead(p)
	if err != nil {
		return nil, err
	}
	return r.target(abs), nil
}

// Write resolves a path to write, as ResolveWrite does, into a Target,
// which is always inside a root.
func (r *Roots) Write(p string) (*Target, error) {
	abs, err := r.ResolveWrite(p)
	if err != nil {
		return nil, err
	}
	return r.target(abs), nil
}

// WriteEntry resolves a path to move or remove as Write does, but leaves
// its last element unresolved: the Target is the directory entry itself,
// so that a symbolic link is moved or removed, not what it points to. Its
// parent, with symlinks followed, must be inside a root.
func (r *Roots) WriteEntry(p string) (*Target, error) {
	if p == "" || strings.IndexByte(p, 0) >= 0 {
		return r.Write(p) // the same refusal
	}
	abs := lexical(p, r.roots)
	if abs == "" {
		return nil, &OutsideError{Path: p, Roots: r.List()}
	}
	for _, root := range r.roots {
		if abs == root {
			return r.target(abs), nil // a served folder itself
		}
	}
	parent, err := r.ResolveWrite(filepath.Dir(abs))
	if err != nil {
		return nil, err
	}
	return r.target(filepath.Join(parent, filepath.Base(abs))), nil
}

// target makes the Target of abs, an absolute resolved path.
func (r *Roots) target(abs string) *Target {
	i := r.index(abs)
	if i < 0 {
		return &Target{Abs: abs}
	}
	rel, err := filepath.Rel(r.roots[i], abs)
	if err != nil { // cannot happen: abs is within the root
		rel = "."
	}
	return &Target{Abs: abs, root: r.handles[i], rel: rel}
}

// Inside reports whether the Target lies inside a served folder (else it
// is a read outside them).
func (t *Target) Inside() bool { return t.root != nil }

// Join is the Target of name, a slash-separated path relative to t (as a
// walk of t reports it), without resolving it again: its accesses go
// through the same root, so they stay inside it.
func (t *Target) Join(name string) *Target {
	name = filepath.FromSlash(name)
	return &Target{Abs: filepath.Join(t.Abs, name), root: t.root, rel: filepath.Join(t.rel, name)}
}

// Open opens the Target for reading. It does not block on a FIFO or a
// device that would: callers check the opened file's Stat before reading.
func (t *Target) Open() (*os.File, error) {
	return t.OpenFile(os.O_RDONLY|nonblock, 0)
}

// OpenFile opens the Target with flag and perm, as os.OpenFile does. A
// Target outside the roots opens only for reading.
func (t *Target) OpenFile(flag int, perm fs.FileMode) (*os.File, error) {
	if t.root == nil {
		if flag&(os.O_WRONLY|os.O_RDWR|os.O_CREATE|os.O_TRUNC|os.O_APPEND) != 0 {
			return nil, t.refuseWrite()
		}
		return os.OpenFile(t.Abs, flag, perm)
	}
	if flag&(os.O_WRONLY|os.O_RDWR|os.O_CREATE|os.O_TRUNC|os.O_APPEND) == 0 {
		return t.root.open(t.rel, flag, perm)
	}
	return t.root.OpenFile(t.rel, flag, perm)
}

// Stat is os.Stat of the Target, symlinks followed inside the root.
func (t *Target) Stat() (fs.FileInfo, error) {
	if t.root == nil {
		return os.Stat(t.Abs)
	}
	return t.root.Stat(t.rel)
}

// Lstat is os.Lstat of the Target.
func (t *Target) Lstat() (fs.FileInfo, error) {
	if t.root == nil {
		return os.Lstat(t.Abs)
	}
	return t.root.Lstat(t.rel)
}

// Readlink is os.Readlink of the Target: the text of the symbolic link it
// names, read through the root (the link itself is not followed).
func (t *Target) Readlink() (string, error) {
	if t.root == nil {
		return os.Readlink(t.Abs)
	}
	return t.root.Readlink(t.rel)
}

// FS returns a file system holding the Target and the name of the Target
// in it, for walking a directory: inside the roots it is the whole served
// folder (so ignore files above the Target can be read too), confined to
// it; outside it is the Target itself, confined to it. Close the returned
// closer when done.
func (t *Target) FS() (fsys fs.FS, name string, closer func() error, err error) {
	if t.root == nil {
		r, err := os.OpenRoot(t.Abs)
		if err != nil {
			return nil, "", nil, err
		}
		return r.FS(), ".", r.Close, nil
	}
	return beneathFS{rootFS: t.root.FS().(rootFS), h: t.root}, filepath.ToSlash(t.rel), func() error { return nil }, nil
}

// Parent opens the directory holding the Target, as an os.Root, and
// returns the Target's name in it: the handle to create, replace or rename
// the Target with single-name operations that cannot leave the directory.
// With mkdir, missing directories up to it are created (mode 0755 before
// the umask), through the root. Only Targets inside the roots have one;
// the caller closes the returned root.
func (t *Target) Parent(mkdir bool) (dir *os.Root, name string, err error) {
	if t.root == nil {
		return nil, "", t.refuseWrite()
	}
	if t.rel == "." {
		return nil, "", fmt.Errorf("%q is a served folder itself, not a file in one", t.Abs)
	}
	d, name := filepath.Split(t.rel)
	d = filepath.Clean(d)
	if mkdir && d != "." {
		if err := t.root.MkdirAll(d, 0o755); err != nil {
			return nil, "", err
		}
	}
	dir, err = t.root.OpenRoot(d)
	if err != nil {
		return nil, "", err
	}
	return dir, name, nil
}

// Remove removes the Target, a file, a symbolic link (not what it points
// to) or an empty directory, through its root; all, when all is set, a
// directory with everything in it. A served folder itself is not removed.
func (t *Target) Remove(all bool) error {
	if t.root == nil {
		return t.refuseWrite()
	}
	if t.rel == "." {
		return fmt.Errorf("%q is a served folder itself: it is not removed", t.Abs)
	}
	if all {
		return t.root.RemoveAll(t.rel)
	}
	return t.root.Remove(t.rel)
}

// Rename moves the Target to dst, replacing a file there, within one
// served folder (a rename across two is refused: it would copy, not
// move). Neither may be a served folder itself.
func (t *Target) Rename(dst *Target) error {
	if t.root == nil || dst.root == nil {
		return t.refuseWrite()
	}
	if t.root != dst.root {
		return fmt.Errorf("%q and %q are in different served folders: a move stays within one", t.Abs, dst.Abs)
	}
	if t.rel == "." || dst.rel == "." {
		return fmt.Errorf("a served folder itself is not moved, nor replaced")
	}
	return t.root.Rename(t.rel, dst.rel)
}

func (t *Target) refuseWrite() error {
	return fmt.Errorf("write %q: %w; writes stay inside them", t.Abs, ErrOutside)
}

// PseudoDirs lists the kernel's pseudo file systems (/proc, /sys, /dev)
// under dir, an absolute resolved directory, as slash-separated paths
// relative to it. A walk of dir leaves them out: they hold no code, and
// /proc alone has hundreds of thousands of entries, some of them endless.
func PseudoDirs(dir string) []string {
	var out []string
	for _, p := range []string{"/proc", "/sys", "/dev"} {
		rel, err := filepath.Rel(dir, p)
		if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			continue
		}
		out = append(out, path.Clean(filepath.ToSlash(rel)))
	}
	return out
}

// Package roots confines the paths a tool takes to the folders the host
// serves.
//
// A path is resolved to an absolute path with every symlink followed, and
// the result must lie inside one of the roots. Symlinks anywhere in the path
// count, the last component and dangling links included: a link whose target
// is outside the roots is refused even when the target does not exist, so a
// write through it cannot create a file outside. Relative paths are relative
// to the first root.
//
// Resolving is the check; the access itself goes through a Target, which
// reaches the path through an os.Root opened on the served folder that
// contains it, with the path relative to that folder. os.Root refuses
// absolute symlinks and symlinks that leave the folder, and holds the
// folder by a file descriptor, so a directory swapped for a symlink to
// outside between the check and the access (or during a walk) leads
// nowhere: the access fails instead of leaving the folder. Plugins open no
// path by its absolute name, except reads outside the roots that
// --read-outside allows.
package roots

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ErrChanged is matched (errors.Is) by New's error for a served folder that
// is not the folder it was when the host resolved it.
var ErrChanged = errors.New("the served folder changed")

// ErrOutside is matched (errors.Is) by every error for a path outside the
// served folders.
var ErrOutside = errors.New("outside the served folders")

// OutsideError is the error for a path outside the served folders.
type OutsideError struct {
	// Path as the caller gave it.
	Path string
	// Resolved is the absolute path with symlinks followed.
	Resolved string
	Roots    []string
}

func (e *OutsideError) Error() string {
	msg := fmt.Sprintf("path %q is outside the served folders (%s)", e.Path, strings.Join(e.Roots, ", "))
	if len(e.Roots) == 0 {
		msg = fmt.Sprintf("path %q is outside the served folders (none are served)", e.Path)
	}
	if e.Resolved != "" && e.Resolved != lexical(e.Path, e.Roots) {
		msg += fmt.Sprintf("; it resolves to %q through a symlink", e.Resolved)
	}
	return msg
}

// Unwrap makes errors.Is(err, ErrOutside) true.
func (e *OutsideError) Unwrap() error { return ErrOutside }

// maxLinks bounds the symlinks followed in one path, as the kernel does.
const maxLinks = 255

// Roots is a set of served folders. It is immutable and safe for concurrent
// use.
type Roots struct {
	roots []string
	// handles holds each root open, in the order of roots.
	handles     []*handle
	readOutside bool
}

// New checks and opens the served folders. Each must be an absolute path
// to an existing directory with no symbolic link in it, as the host sends
// them (resolved): a folder that resolves elsewhere is refused with
// ErrChanged. With
// readOutside, ResolveRead accepts any path; writes stay inside regardless.
// An empty list serves nothing: only reads with readOutside and absolute
// paths succeed.
func New(rootDirs []string, readOutside bool) (*Roots, error) {
	r := &Roots{readOutside: readOutside, roots: make([]string, 0, len(rootDirs))}
	for _, d := range rootDirs {
		if !filepath.IsAbs(d) {
			return nil, fmt.Errorf("served folder %q: not an absolute path", d)
		}
		real, err := filepath.EvalSymlinks(filepath.Clean(d))
		if err != nil {
			return nil, fmt.Errorf("served folder %q: %w", d, err)
		}
		if real != filepath.Clean(d) {
			// The host sends its folders resolved. One that resolves
			// elsewhere now was replaced by a link since (a nested served
			// folder swapped by a checkout or a command, say), and would
			// serve wherever the link points.
			return nil, fmt.Errorf("served folder %q: %w: it now resolves to %q through a symbolic link; restart the server to serve it anew", d, ErrChanged, real)
		}
		fi, err := os.Stat(real)
		if err != nil {
			return nil, fmt.Errorf("served folder %q: %w", d, err)
		}
		if !fi.IsDir() {
			return nil, fmt.Errorf("served folder %q: not a directory", d)
		}
		h, err := openHandle(real)
		if err != nil {
			return nil, fmt.Errorf("served folder %q: %w", d, err)
		}
		r.roots = append(r.roots, real)
		r.handles = append(r.handles, h)
	}
	return r, nil
}

// Close closes the served folders it holds open. Only for a Roots no
// Target of which is still in use; a Roots dropped without Close has its
// folders closed by the garbage collector.
func (r *Roots) Close() error {
	var errs []error
	for _, h := range r.handles {
		errs = append(errs, h.close())
	}
	return errors.Join(errs...)
}

// List returns the served folders, resolved, in the order given to New.
func (r *Roots) List() []string {
	return append([]string(nil), r.roots...)
}

// ReadOutside reports whether reads may leave the roots.
func (r *Roots) ReadOutside() bool { return r.readOutside }

// ResolveRead resolves a path to read: inside the roots, or anywhere when
// reads outside are allowed. The path need not exist.
func (r *Roots) ResolveRead(p string) (string, error) {
	return r.resolve(p, r.readOutside)
}

// ResolveWrite resolves a path to write, which is always confined to the
// roots. The path need not exist; its deepest existing ancestor, with
// symlinks followed, must be inside a root, as must any symlink target on
// the way, dangling or not.
func (r *Roots) ResolveWrite(p string) (string, error) {
	return r.resolve(p, false)
}

func (r *Roots) resolve(p string, anywhere bool) (string, error) {
	if p == "" {
		return "", errors.New("empty path")
	}
	if strings.IndexByte(p, 0) >= 0 {
		return "", fmt.Errorf("path %q contains a NUL byte", p)
	}
	abs := lexical(p, r.roots)
	if abs == "" {
		return "", &OutsideError{Path: p, Roots: r.List()}
	}
	real, err := follow(abs)
	if err != nil {
		return "", fmt.Errorf("resolve %q: %w", p, err)
	}
	if !anywhere {
		if _, ok := r.Root(real); !ok {
			return "", &OutsideError{Path: p, Resolved: real, Roots: r.List()}
		}
	}
	return real, nil
}

// lexical makes p absolute against the first root, without touching the
// file system; "" when p is relative and there is no root.
func lexical(p string, roots []string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	if len(roots) == 0 {
		return ""
	}
	return filepath.Join(roots[0], p)
}

// Root returns the first served folder containing abs, an absolute resolved
// path; a folder contains itself.
func (r *Roots) Root(abs string) (string, bool) {
	if i := r.index(abs); i >= 0 {
		return r.roots[i], true
	}
	return "", false
}

func (r *Roots) index(abs string) int {
	for i, root := range r.roots {
		if within(root, abs) {
			return i
		}
	}
	return -1
}

// Rel is the path to show for abs, an absolute resolved path. It is relative
// to the first root when abs is inside it ("." for the root itself), and
// absolute otherwise, for a path in a later root as well as outside: a
// relative path always means the first root, so what Rel shows resolves back
// to abs.
func (r *Roots) Rel(abs string) string {
	if len(r.roots) > 0 && within(r.roots[0], abs) {
		if rel, err := filepath.Rel(r.roots[0], abs); err == nil {
			return rel
		}
	}
	return abs
}

func within(root, p string) bool {
	if p == root {
		return true
	}
	if strings.HasSuffix(root, string(filepath.Separator)) {
		return strings.HasPrefix(p, root)
	}
	return len(p) > len(root) && p[len(root)] == filepath.Separator && strings.HasPrefix(p, root)
}

// follow resolves every symlink in abs, a clean absolute path, one component
// at a time. Unlike filepath.EvalSymlinks it succeeds for paths that do not
// exist: from the first component that cannot be read on, the rest is joined
// lexically, and a dangling link is replaced by its target.
func follow(abs string) (string, error) {
	vol := filepath.VolumeName(abs)
	resolved := vol + string(filepath.Separator)
	rest := splitPath(abs[len(vol):])
	links := 0
	for len(rest) > 0 {
		c := rest[0]
		rest = rest[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			resolved = filepath.Dir(resolved)
			continue
		}
		next := filepath.Join(resolved, c)
		fi, err := os.Lstat(next)
		if err != nil {
			// Missing, not a directory, or not searchable: nothing below can
			// be a symlink the kernel would follow for us either.
			return filepath.Join(append([]string{next}, rest...)...), nil
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			resolved = next
			continue
		}
		links++
		if links > maxLinks {
			return "", fmt.Errorf("too many levels of symbolic links at %q", next)
		}
		target, err := os.Readlink(next)
		if err != nil {
			return "", err
		}
		if filepath.IsAbs(target) {
			tv := filepath.VolumeName(target)
			resolved = tv + string(filepath.Separator)
			target = target[len(tv):]
		}
		rest = append(splitPath(target), rest...)
	}
	return resolved, nil
}

func splitPath(p string) []string {
	return strings.FieldsFunc(p, func(r rune) bool { return r == filepath.Separator || r == '/' })
}

var _ error = (*OutsideError)(nil)

package roots

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"
	"sync/atomic"
)

// handle is a served folder held open: an os.Root for every access, and,
// where the kernel has openat2, the folder's own descriptor, through which
// reads open in one system call with RESOLVE_BENEATH: the kernel keeps the
// lookup inside the folder, racing renames included, as os.Root does by
// walking one component at a time (several system calls a file, which made
// a search over thousands of files two to three times slower).
type handle struct {
	*os.Root
	dir *os.File // nil where openat2 is not to be had
}

func openHandle(path string) (*handle, error) {
	r, err := os.OpenRoot(path)
	if err != nil {
		return nil, err
	}
	h := &handle{Root: r}
	if beneathWorks.Load() {
		// The descriptor must be the folder the os.Root holds: opened
		// without following a link, and checked to be the same file, so
		// reads and writes cannot end up in two folders.
		if d, err := os.OpenFile(path, os.O_RDONLY|noFollowDir, 0); err == nil {
			di, err1 := d.Stat()
			ri, err2 := r.Stat(".")
			if err1 == nil && err2 == nil && os.SameFile(di, ri) && probeBeneath(d) {
				h.dir = d
			} else {
				_ = d.Close()
			}
		}
	}
	return h, nil
}

func (h *handle) close() error {
	err := h.Root.Close()
	if h.dir != nil {
		err = errors.Join(err, h.dir.Close())
	}
	return err
}

// beneathWorks says whether handles use openat2 (tests turn it off to try
// the os.Root path); each handle also probes it once when it opens.
var beneathWorks atomic.Bool

func init() { beneathWorks.Store(haveBeneath) }

// errRacing is openBeneath's word that this open should take os.Root.
var errRacing = errors.New("openat2 lookup kept racing renames")

// errEscapes is os.Root's wording for a path that leaves its folder.
var errEscapes = errors.New("path escapes from parent")

// open opens name, relative to the folder, for reading through openat2
// where it can, else through the os.Root.
func (h *handle) open(name string, flag int, perm fs.FileMode) (*os.File, error) {
	if h.dir != nil {
		f, err := openBeneath(h.dir, name, flag, perm)
		if !errors.Is(err, errRacing) {
			return f, err
		}
	}
	return h.Root.OpenFile(name, flag, perm)
}

// rootFS is what os.Root's FS offers beyond fs.FS.
type rootFS interface {
	fs.StatFS
	fs.ReadLinkFS
}

// beneathFS is the os.Root's FS with its opens, reads and listings made
// through handle.open; links are read and Lstat taken through the os.Root.
type beneathFS struct {
	rootFS
	h *handle
}

func (f beneathFS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	file, err := f.h.open(name, os.O_RDONLY|nonblock, 0)
	if err != nil {
		return nil, err
	}
	return file, nil
}

func (f beneathFS) ReadFile(name string) ([]byte, error) {
	file, err := f.Open(name)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	fi, err := file.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "read", Path: name, Err: errors.New("not a regular file")}
	}
	return io.ReadAll(file)
}

func (f beneathFS) ReadDir(name string) ([]fs.DirEntry, error) {
	file, err := f.Open(name)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	entries, err := file.(*os.File).ReadDir(-1)
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return entries, err
}

// Stat opens name as a path only (no read permission needed, nothing
// blocks) and stats that.
func (f beneathFS) Stat(name string) (fs.FileInfo, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrInvalid}
	}
	if f.h.dir != nil {
		file, err := openBeneath(f.h.dir, name, pathOnly, 0)
		if !errors.Is(err, errRacing) {
			if err != nil {
				return nil, err
			}
			defer file.Close()
			return file.Stat()
		}
	}
	return f.rootFS.Stat(name)
}

// Package ignore walks a directory tree as git sees it: entries matched by
// .gitignore files (at every level, each applying to its own subtree) or by
// .git/info/exclude are left out, and .git itself is never entered.
//
// Precedence follows git: a deeper .gitignore overrides a shallower one,
// within one file the last matching pattern wins, info/exclude comes last,
// and a file inside an ignored directory stays ignored (the directory is not
// entered). Global excludes (core.excludesFile) are not read.
//
// A walk reads only through the fs.FS it is given (an os.Root's, from
// sdk/roots), so a directory swapped for a symlink mid-walk cannot lead it
// out of that file system. It stops at a budget of entries and of time.
package ignore

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Options tune a Walk. The zero value walks the whole tree honouring the
// ignore files in it, without a budget.
type Options struct {
	// MaxDepth limits the depth: 1 visits the root's own entries only, 2
	// their children too; 0 means no limit.
	MaxDepth int
	// NoIgnore visits ignored entries too; .git is still skipped.
	NoIgnore bool
	// MaxEntries stops the walk after this many directory entries were
	// read (ignored ones included: they cost the same); 0 means no limit.
	MaxEntries int
	// Timeout stops the walk once this much time has passed; 0 means no
	// limit.
	Timeout time.Duration
	// Skip lists directories never entered, as slash-separated paths
	// relative to the walk root (see roots.PseudoDirs).
	Skip []string
}

// LimitError is the error of a walk stopped by its budget. The entries
// visited before it were reported.
type LimitError struct {
	// Entries is how many entries were read; Elapsed how long it ran.
	Entries int
	Elapsed time.Duration
	// Timeout is true when the time budget ran out, false for the
	// entry budget.
	Timeout bool
}

func (e *LimitError) Error() string {
	if e.Timeout {
		return fmt.Sprintf("stopped after %.1f s (time budget), %d entries read", e.Elapsed.Seconds(), e.Entries)
	}
	return fmt.Sprintf("stopped after %d entries (entry budget), %.1f s", e.Entries, e.Elapsed.Seconds())
}

// Walk calls fn for every entry under root, a slash-separated directory in
// fsys ("." for its top), that git would not ignore, with rel the
// slash-separated path relative to root; root itself is not visited. The
// ignore files of fsys's top and of every directory between it and root
// apply as well, starting at the closest git work tree top (a directory
// with a .git entry) when there is one in between. Entries come in lexical
// order, depth first, a directory just before its contents. Symlinks are
// reported, never followed.
//
// fn returning filepath.SkipDir on a directory skips its contents, and on a
// file skips the rest of its directory; filepath.SkipAll ends the walk and
// Walk returns nil. Any other error ends the walk and is returned. A walk
// past its budget ends with a *LimitError. A subdirectory that cannot be
// read is skipped; an unreadable root is an error.
func Walk(fsys fs.FS, root string, opts Options, fn func(rel string, d fs.DirEntry) error) error {
	root = path.Clean(root)
	w := &walker{fsys: fsys, opts: opts, fn: fn, start: time.Now()}
	rootRel := ""
	if !opts.NoIgnore {
		var err error
		if rootRel, err = w.loadAbove(root); err != nil {
			return err
		}
	}
	if rootRel != "" {
		w.strip = len(rootRel) + 1
	}
	err := w.dir(root, rootRel, 1, true)
	if errors.Is(err, filepath.SkipAll) || errors.Is(err, filepath.SkipDir) {
		return nil
	}
	return err
}

type walker struct {
	fsys fs.FS
	opts Options
	// entries counts the entries read, for the budget.
	entries int
	start   time.Time
	fn      func(rel string, d fs.DirEntry) error
	// levels are the ignore files in force, shallowest first.
	levels []level
	// strip is what to cut from a path relative to the top to make it
	// relative to the walk root.
	strip int
}

// level is one ignore file; prefix is its directory relative to the top
// ("" for the top itself), where paths are matched from.
type level struct {
	prefix string
	m      *Matcher
}

// loadAbove loads the ignore files from the top down to root's parent and
// returns root's path relative to the top.
func (w *walker) loadAbove(root string) (string, error) {
	if root == ".." || strings.HasPrefix(root, "../") || strings.HasPrefix(root, "/") {
		return "", fmt.Errorf("walk %q: not inside the file system walked", root)
	}
	// The chain of directories from the top down to root.
	chain := []string{"."}
	if root != "." {
		for _, c := range strings.Split(root, "/") {
			chain = append(chain, path.Join(chain[len(chain)-1], c))
		}
	}
	// Start at the closest work tree top, since git reads nothing above it.
	top := 0
	for i := len(chain) - 1; i >= 0; i-- {
		if _, err := fs.Stat(w.fsys, path.Join(chain[i], ".git")); err == nil {
			top = i
			if data, err := readRules(w.fsys, path.Join(chain[i], ".git", "info", "exclude")); err == nil {
				w.levels = append(w.levels, level{m: Parse(data)})
			}
			break
		}
	}
	prefix := ""
	for i := top; i < len(chain)-1; i++ {
		if i > top {
			prefix = join(prefix, path.Base(chain[i]))
		}
		if data, err := readRules(w.fsys, path.Join(chain[i], ".gitignore")); err == nil {
			w.levels = append(w.levels, level{prefix: prefix, m: Parse(data)})
		}
	}
	if len(chain)-1 > top {
		prefix = join(prefix, path.Base(root))
	}
	return prefix, nil
}

func join(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}

// dir walks the directory name (in fsys); rel is its path relative to
// the top, walked the relative path to the walk root.
func (w *walker) dir(dirName, rel string, depth int, isRoot bool) error {
	entries, err := fs.ReadDir(w.fsys, dirName)
	if err != nil {
		if isRoot {
			return fmt.Errorf("walk %q: %w", dirName, err)
		}
		return nil
	}
	if err := w.budget(len(entries)); err != nil {
		return err
	}
	if !w.opts.NoIgnore {
		if m := w.readIgnore(dirName, entries); m != nil {
			w.levels = append(w.levels, level{prefix: rel, m: m})
			defer func(n int) { w.levels = w.levels[:n] }(len(w.levels) - 1)
		}
	}
	for _, e := range entries {
		name := e.Name()
		if name == ".git" {
			continue
		}
		isDir := e.IsDir()
		p := join(rel, name)
		if !w.opts.NoIgnore && w.ignored(p, isDir) {
			continue
		}
		err := w.fn(p[w.strip:], e)
		if errors.Is(err, filepath.SkipDir) {
			if isDir {
				continue
			}
			return nil
		}
		if err != nil {
			return err
		}
		if isDir && (w.opts.MaxDepth <= 0 || depth < w.opts.MaxDepth) && !slices.Contains(w.opts.Skip, p[w.strip:]) {
			if err := w.dir(path.Join(dirName, name), p, depth+1, false); err != nil {
				return err
			}
		}
	}
	return nil
}

// budget counts n more entries read and says whether the walk is over its
// budget.
func (w *walker) budget(n int) error {
	w.entries += n
	if w.opts.MaxEntries > 0 && w.entries >= w.opts.MaxEntries {
		return &LimitError{Entries: w.entries, Elapsed: time.Since(w.start)}
	}
	if w.opts.Timeout > 0 {
		if el := time.Since(w.start); el >= w.opts.Timeout {
			return &LimitError{Entries: w.entries, Elapsed: el, Timeout: true}
		}
	}
	return nil
}

// maxRules bounds an ignore file read: git's own limit is 100 MiB, real
// ones are kilobytes.
const maxRules = 1 << 20

// readRules reads an ignore file, if it is a regular file (through a
// symbolic link, as git follows them): a repository's .gitignore that
// leads to /dev/zero or a FIFO is no ignore file, and would otherwise be
// read forever. Past maxRules the rest is left out.
func readRules(fsys fs.FS, name string) ([]byte, error) {
	fi, err := fs.Stat(fsys, name)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", name)
	}
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, maxRules))
}

// readIgnore parses the directory's .gitignore, if it has one.
func (w *walker) readIgnore(dir string, entries []fs.DirEntry) *Matcher {
	for _, e := range entries {
		if e.Name() != ".gitignore" {
			continue
		}
		if e.IsDir() {
			return nil
		}
		data, err := readRules(w.fsys, path.Join(dir, ".gitignore"))
		if err != nil || len(data) == 0 {
			return nil
		}
		return Parse(data)
	}
	return nil
}

// ignored asks the ignore files, deepest first, about path (relative to the
// top); the first that decides wins.
func (w *walker) ignored(path string, isDir bool) bool {
	for i := len(w.levels) - 1; i >= 0; i-- {
		lv := &w.levels[i]
		sub := path
		if lv.prefix != "" {
			sub = path[len(lv.prefix)+1:]
		}
		if ign, ok := lv.m.Match(sub, isDir); ok {
			return ign
		}
	}
	return false
}

// The walk budget of the tools that walk (list_files, search_code): a
// default and a hard cap for the entries read and the seconds spent.
const (
	DefaultMaxFiles   = 20000
	MaxMaxFiles       = 200000
	DefaultMaxSeconds = 10
	MaxMaxSeconds     = 60
)

// Budget fills opts's budget from a tool's max_files and max_seconds
// arguments (0 for the default), clamped to the caps; it refuses negative
// values with a message for the model.
func Budget(opts *Options, maxFiles, maxSeconds int) error {
	if maxFiles < 0 || maxSeconds < 0 {
		return fmt.Errorf("max_files and max_seconds must not be negative (got max_files=%d, max_seconds=%d)", maxFiles, maxSeconds)
	}
	if maxFiles == 0 {
		maxFiles = DefaultMaxFiles
	}
	if maxSeconds == 0 {
		maxSeconds = DefaultMaxSeconds
	}
	opts.MaxEntries = min(maxFiles, MaxMaxFiles)
	opts.Timeout = time.Duration(min(maxSeconds, MaxMaxSeconds)) * time.Second
	return nil
}

// Note is the line a tool adds to a result cut by the budget.
func (e *LimitError) Note() string {
	what := fmt.Sprintf("the budget of max_files=%d files and directories read was reached", e.Entries)
	if e.Timeout {
		what = fmt.Sprintf("the time budget ran out after %d files and directories read", e.Entries)
	}
	return fmt.Sprintf("stopped after %d files / %.1f s (%s); narrow path or glob, or raise max_files or max_seconds (at most %d and %d)",
		e.Entries, e.Elapsed.Seconds(), what, MaxMaxFiles, MaxMaxSeconds)
}

// Package ignore walks a directory tree as git sees it: entries matched by
// .gitignore files (at every level, each applying to its own subtree) or by
// .git/info/exclude are left out, and .git itself is never entered.
//
// Precedence follows git: a deeper .gitignore overrides a shallower one,
// within one file the last matching pattern wins, info/exclude comes last,
// and a file inside an ignored directory stays ignored (the directory is not
// entered). Global excludes (core.excludesFile) are not read.
package ignore

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Options tune a Walk. The zero value walks the whole tree honouring the
// ignore files in it.
type Options struct {
	// MaxDepth limits the depth: 1 visits the root's own entries only, 2
	// their children too; 0 means no limit.
	MaxDepth int
	// Base is a directory at or above the walk root (typically the served
	// folder containing it). The .gitignore files of Base and of every
	// directory between it and the root apply as well, starting at the
	// closest git work tree top (a directory with a .git entry) when there
	// is one in between. Empty means the root itself.
	Base string
	// NoIgnore visits ignored entries too; .git is still skipped.
	NoIgnore bool
}

// Walk calls fn for every entry under root that git would not ignore, with
// rel the slash-separated path relative to root; root itself is not
// visited. Entries come in lexical order, depth first, a directory just
// before its contents. Symlinks are reported, never followed.
//
// fn returning filepath.SkipDir on a directory skips its contents, and on a
// file skips the rest of its directory; filepath.SkipAll ends the walk and
// Walk returns nil. Any other error ends the walk and is returned. A
// subdirectory that cannot be read is skipped; an unreadable root is an
// error.
func Walk(root string, opts Options, fn func(rel string, d fs.DirEntry) error) error {
	root = filepath.Clean(root)
	w := &walker{opts: opts, fn: fn}
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
	opts Options
	fn   func(rel string, d fs.DirEntry) error
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
	base := root
	if w.opts.Base != "" {
		base = filepath.Clean(w.opts.Base)
	}
	rel, err := filepath.Rel(base, root)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("walk %q: base %q does not contain it", root, base)
	}
	// The chain of directories from base down to root.
	chain := []string{base}
	if rel != "." {
		for _, c := range strings.Split(rel, string(filepath.Separator)) {
			chain = append(chain, filepath.Join(chain[len(chain)-1], c))
		}
	}
	// Start at the closest work tree top, since git reads nothing above it.
	top := 0
	for i := len(chain) - 1; i >= 0; i-- {
		if _, err := os.Lstat(filepath.Join(chain[i], ".git")); err == nil {
			top = i
			if data, err := os.ReadFile(filepath.Join(chain[i], ".git", "info", "exclude")); err == nil {
				w.levels = append(w.levels, level{m: Parse(data)})
			}
			break
		}
	}
	prefix := ""
	for i := top; i < len(chain)-1; i++ {
		if i > top {
			prefix = join(prefix, filepath.Base(chain[i]))
		}
		if data, err := os.ReadFile(filepath.Join(chain[i], ".gitignore")); err == nil {
			w.levels = append(w.levels, level{prefix: prefix, m: Parse(data)})
		}
	}
	if len(chain)-1 > top {
		prefix = join(prefix, filepath.Base(root))
	}
	return prefix, nil
}

func join(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}

func (w *walker) dir(abs, rel string, depth int, isRoot bool) error {
	entries, err := os.ReadDir(abs)
	if err != nil {
		if isRoot {
			return fmt.Errorf("walk %q: %w", abs, err)
		}
		return nil
	}
	if !w.opts.NoIgnore {
		if m := readIgnore(abs, entries); m != nil {
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
		path := join(rel, name)
		if !w.opts.NoIgnore && w.ignored(path, isDir) {
			continue
		}
		err := w.fn(path[w.strip:], e)
		if errors.Is(err, filepath.SkipDir) {
			if isDir {
				continue
			}
			return nil
		}
		if err != nil {
			return err
		}
		if isDir && (w.opts.MaxDepth <= 0 || depth < w.opts.MaxDepth) {
			if err := w.dir(filepath.Join(abs, name), path, depth+1, false); err != nil {
				return err
			}
		}
	}
	return nil
}

// readIgnore parses the directory's .gitignore, if it has one.
func readIgnore(abs string, entries []fs.DirEntry) *Matcher {
	for _, e := range entries {
		if e.Name() != ".gitignore" {
			continue
		}
		if e.IsDir() {
			return nil
		}
		data, err := os.ReadFile(filepath.Join(abs, ".gitignore"))
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

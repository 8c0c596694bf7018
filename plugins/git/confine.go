package git

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/ramabana/ramabana-mcp/sdk"
	"github.com/ramabana/ramabana-mcp/sdk/roots"
)

// maxGitDirEntries bounds the entries of a git directory searched for
// symlinks; a repository with more (refs not packed, say) is refused, not
// half-checked.
const maxGitDirEntries = 200_000

// layout is where a repository keeps its parts, all absolute with symlinks
// resolved: the work tree's top level, the git directory (a linked
// worktree's own, under the main one's worktrees/), and the common
// directory that holds objects, refs and config.
type layout struct {
	top, gitDir, commonDir string
}

// env pins git to the layout: with GIT_DIR and GIT_WORK_TREE set git does
// not discover a repository, does not read a .git file or follow a .git
// link, and ignores core.worktree; GIT_COMMON_DIR keeps it from reading a
// linked worktree's commondir file again. GIT_CEILING_DIRECTORIES stops a
// child git (a submodule's) from climbing above the repository.
//
// What remains is the race every path check has: between the checks in
// locate and git's own opens, a process that can rename directories inside
// the served folders could swap one of these paths for a link out. The
// .git file and core.worktree are no longer read, so rewriting them (which
// the files tools can do) changes nothing; renaming a directory over a
// symlink takes a program the user runs, and once the user runs programs
// (the shell group) nothing here is the last line anyway. Closing it fully
// would take git's opens confined by the kernel (Landlock read/write rules
// on the roots); the exec sandbox (sandbox.go) restricts only execution.
func (l layout) env() []string {
	return []string{
		"GIT_DIR=" + l.gitDir,
		"GIT_WORK_TREE=" + l.top,
		"GIT_COMMON_DIR=" + l.commonDir,
		"GIT_CEILING_DIRECTORIES=" + filepath.Dir(l.top),
	}
}

// locate finds the repository git discovers from dir, and checks that its
// work tree, git directory and common directory all lie inside the served
// folders (or, for reads with reads outside allowed, anywhere). A .git file
// or link, core.worktree, a linked worktree's commondir, an alternates
// file or a symlink inside the git directory that leads out is refused.
//
// Discovery is git's own (git rev-parse, which reads config but runs no
// program), so that safe.directory and every form of .git git accepts are
// honoured; what it finds is checked before any other git command runs.
func locate(ctx context.Context, r *roots.Roots, dir, shown string, write, confine bool) (layout, error) {
	// One git process: the work tree's top level comes last, since git
	// fails there (after printing the rest) when dir is inside a git
	// directory rather than a work tree.
	out, err := git(ctx, dir, run{confine: confine}, "rev-parse", "--path-format=absolute", "--absolute-git-dir", "--git-common-dir", "--is-inside-work-tree", "--show-toplevel")
	if err != nil {
		return layout{}, err
	}
	lines := strings.Split(strings.TrimSuffix(string(out.stdout), "\n"), "\n")
	if !out.ok() {
		msg := out.message()
		switch {
		case strings.Contains(msg, "not a git repository"):
			return layout{}, sdk.Failf("%s is not inside a git repository; pass repo as a path inside one, or run git init there first", shown)
		case len(lines) == 3 && lines[2] == "false":
			return layout{}, sdk.Failf("%s is inside a git directory, not a work tree; pass repo as a path in the work tree", shown)
		}
		return layout{}, sdk.Failf("cannot find the repository of %s: %s", shown, msg)
	}
	if len(lines) != 4 || lines[3] == "" {
		return layout{}, fmt.Errorf("git rev-parse printed %q", out.stdout)
	}
	if lines[2] != "true" {
		// core.worktree puts the work tree elsewhere.
		wt := lines[3]
		if real, err := filepath.EvalSymlinks(wt); err == nil {
			wt = real
		}
		if _, inside := r.Root(wt); !inside && (write || !r.ReadOutside()) {
			return layout{}, sdk.Failf("the repository found from %s has its work tree at %s (core.worktree), outside the served folders (%s); git tools refuse it, so that nothing outside is read or changed", shown, wt, strings.Join(r.List(), ", "))
		}
		return layout{}, sdk.Failf("%s is not inside the work tree of its repository, which is at %s (core.worktree); pass repo as a path in that work tree", shown, wt)
	}
	var l layout
	for _, p := range []struct {
		dst  *string
		path string
	}{
		{&l.top, lines[3]},
		{&l.gitDir, lines[0]},
		{&l.commonDir, lines[1]},
	} {
		real, err := filepath.EvalSymlinks(p.path)
		if err != nil {
			return layout{}, sdk.Failf("cannot resolve %s of the repository of %s: %v", p.path, shown, err)
		}
		*p.dst = real
	}
	allowed := func(p string) bool {
		_, inside := r.Root(p)
		return inside || (!write && r.ReadOutside())
	}
	served := strings.Join(r.List(), ", ")
	if !allowed(l.top) {
		return layout{}, sdk.Failf("the repository containing %s has its top level at %s, outside the served folders (%s); serve that folder to use it", shown, l.top, served)
	}
	for _, d := range []struct{ path, what string }{
		{l.gitDir, "git directory"},
		{l.commonDir, "common git directory (of a linked worktree)"},
	} {
		if !allowed(d.path) {
			return layout{}, sdk.Failf("the repository at %s keeps its %s at %s (through a .git file, a .git link or a worktree), outside the served folders (%s); git tools refuse it, so that nothing outside is read or changed. Serve that folder to use it", l.top, d.what, d.path, served)
		}
	}
	if err := checkGitDirs(l, allowed); err != nil {
		return layout{}, err
	}
	return l, nil
}

// checkGitDirs refuses a git or common directory that holds a symlink, or
// an alternates entry, leading where allowed says no: git would read
// objects there or, through a linked directory, write into it. Leaf files
// linked out are refused too; git replaces them on write, but reads them.
func checkGitDirs(l layout, allowed func(string) bool) error {
	n := 0
	for _, dir := range []string{l.gitDir, l.commonDir} {
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				if p == dir {
					return err
				}
				return nil // unreadable: git cannot use it either
			}
			n++
			if n > maxGitDirEntries {
				return sdk.Failf("the git directory %s has more than %d entries to check; pack its refs (git pack-refs --all) and objects (git gc) in a shell, then try again", dir, maxGitDirEntries)
			}
			rel, _ := filepath.Rel(dir, p)
			if d.Type()&fs.ModeSymlink != 0 {
				real, err := filepath.EvalSymlinks(p)
				if err != nil {
					return nil // dangling: nothing there to read or write through
				}
				if !allowed(real) {
					return sdk.Failf("%s in the git directory of %s is a link to %s, outside the served folders; git tools refuse the repository", p, l.top, real)
				}
				return nil
			}
			// Loose objects and packs are files in fixed folders; their
			// folders are checked, not each object.
			if d.IsDir() && filepath.Base(filepath.Dir(rel)) == "objects" && d.Name() != "info" {
				return filepath.SkipDir
			}
			return nil
		})
		if err != nil {
			var te *sdk.ToolError
			if errors.As(err, &te) {
				return err
			}
			return sdk.Failf("cannot check the git directory %s: %v", dir, err)
		}
		if l.commonDir == l.gitDir {
			break
		}
	}
	return checkAlternates(l, allowed)
}

// checkAlternates refuses object directories borrowed from outside
// (objects/info/alternates).
func checkAlternates(l layout, allowed func(string) bool) error {
	objects := filepath.Join(l.commonDir, "objects")
	f, err := os.Open(filepath.Join(objects, "info", "alternates"))
	if err != nil {
		return nil
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		line = strings.Trim(line, `"`)
		if !filepath.IsAbs(line) {
			line = filepath.Join(objects, line)
		}
		real, err := filepath.EvalSymlinks(line)
		if err != nil {
			continue
		}
		if !allowed(real) {
			return sdk.Failf("the repository at %s borrows objects from %s (objects/info/alternates), outside the served folders; git tools refuse it", l.top, real)
		}
	}
	return nil
}

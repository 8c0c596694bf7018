package git

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ramabana/ramabana-mcp/sdk"
	"github.com/ramabana/ramabana-mcp/sdk/roots"
)

// repo is a repository a call works on.
type repo struct {
	// top is the top level of the work tree: absolute, symlinks resolved.
	top    string
	layout layout
	roots  *roots.Roots
	write  bool
	// guard keeps programs named by the repository's config from running
	// (unless the host allows commands) and its files inside the roots
	// (unless the host allows reads outside); nil when it does neither.
	guard *guard
}

// openRepo finds the repository containing p (the first served folder when
// p is empty). p must be inside the served folders (anywhere for reads when
// the host allows reads outside), and so must the repository's top level,
// git directory and common directory (see locate). Unless commands is set
// (the user allowed programs to run), the repository's config is read and
// its programs guarded (see guard); unless reads outside are allowed, the
// files it names are confined (see files.go).
func openRepo(ctx context.Context, r *roots.Roots, p string, write, commands bool) (*repo, error) {
	if p == "" {
		list := r.List()
		if len(list) == 0 {
			return nil, sdk.Failf("no folder is served, so there is no default repository; pass repo as an absolute path")
		}
		p = list[0]
	}
	if strings.HasPrefix(p, "-") {
		return nil, sdk.Failf("repo %q begins with '-', which git would read as an option; write it as ./%s", p, p)
	}
	if !commands {
		// A git inside a served folder (a repository's bin/ on PATH) would
		// be the repository's program, not the user's.
		if bin := gitBinary(); filepath.IsAbs(bin) {
			if outside, err := r.LookPath("git"); err != nil || outside != bin {
				return nil, sdk.Failf("the git found on PATH (%s) lies inside a served folder, so it is the repository's program, not yours; git tools run it only when commands are allowed (the shell group is mounted). Put your own git earlier on PATH", bin)
			}
		}
	}
	resolve := r.ResolveRead
	if write {
		resolve = r.ResolveWrite
	}
	abs, err := resolve(p)
	if err != nil {
		if errors.Is(err, roots.ErrOutside) && write {
			return nil, sdk.Failf("%v; repositories can be changed only inside the served folders", err)
		}
		return nil, sdk.Failf("repo: %v", err)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return nil, sdk.Failf("repo %q does not exist", p)
	}
	dir := abs
	if !fi.IsDir() {
		dir = filepath.Dir(abs)
	}
	l, err := locate(ctx, r, dir, r.Rel(abs), write, !commands)
	if err != nil {
		return nil, err
	}
	rp := &repo{top: l.top, layout: l, roots: r, write: write}
	if !commands || !r.ReadOutside() {
		if rp.guard, err = loadGuard(ctx, l, r, !commands); err != nil {
			return nil, err
		}
	}
	return rp, nil
}

// git runs a git command in the repository's top level, pinned to its
// layout and guarded.
func (rp *repo) git(ctx context.Context, r run, args ...string) (*output, error) {
	r.write = r.write || rp.write
	r.env = append(append(r.env, rp.layout.env()...), rp.guardEnv()...)
	if rp.guarded() {
		// The user's own programs (a filter script in ~/.gitconfig) are
		// allowed in the sandbox; see policyFor.
		r.confine, r.trusted = true, rp.guard.trusted
	}
	return git(ctx, rp.top, r, args...)
}

func (rp *repo) guardEnv() []string {
	if rp.guard == nil {
		return nil
	}
	return rp.guard.env
}

// guarded reports that programs named by the repository may not run.
func (rp *repo) guarded() bool { return rp.guard != nil && rp.guard.programs }

// blameArgs replace blame.ignoreRevsFile when repository config names a
// file outside the roots (see files.go).
func (rp *repo) blameArgs() []string {
	if rp.guard == nil {
		return nil
	}
	return rp.guard.blame
}

// diffGuards are the flags of diff, log and show that, when guarded, keep
// them from running a textconv program or looking into submodules (whose
// config the guard never read); --no-ext-diff is always given.
func (rp *repo) diffGuards() []string {
	if rp.guarded() {
		return []string{"--no-textconv", "--ignore-submodules=all"}
	}
	return nil
}

// submodules is the --ignore-submodules value for status and diff: guarded,
// git does not look into submodules, whose own config the guard never read.
func (rp *repo) submodules() string {
	if rp.guarded() {
		return "--ignore-submodules=all"
	}
	return "--ignore-submodules=none"
}

// display is how to name the repository: relative to the first served
// folder ("." for the folder itself) or absolute.
func (rp *repo) display() string { return rp.roots.Rel(rp.top) }

// path turns a path argument into the path git is given: relative to the
// top level, slash-separated, "." for the top level itself. Relative
// arguments are relative to the top level; every argument must lie inside
// the repository, lexically, and inside the served folders with symlinks
// followed (package roots), so a link cannot lead git out.
func (rp *repo) path(p string) (string, error) {
	switch {
	case p == "":
		return "", sdk.Failf("empty path")
	case strings.HasPrefix(p, "-"):
		return "", sdk.Failf("path %q begins with '-', which git could read as an option; to name a file of that name write ./%s", p, p)
	case strings.ContainsRune(p, 0):
		return "", sdk.Failf("path %q contains a NUL byte", p)
	}
	abs := p
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(rp.top, p)
	}
	abs = filepath.Clean(abs)
	resolve := rp.roots.ResolveRead
	if rp.write {
		resolve = rp.roots.ResolveWrite
	}
	real, err := resolve(abs)
	if err != nil {
		return "", sdk.Failf("path %q: %v", p, err)
	}
	rel, ok := inside(rp.top, abs)
	if !ok {
		// An absolute path through a symlink to the repository.
		rel, ok = inside(rp.top, real)
	}
	if !ok {
		return "", sdk.Failf("path %q is outside the repository %s; paths are relative to its top level", p, rp.top)
	}
	if rel == ".git" || strings.HasPrefix(rel, ".git/") {
		return "", sdk.Failf("path %q is inside the .git directory; git tools work on the work tree", p)
	}
	return rel, nil
}

// paths turns every argument into a git path.
func (rp *repo) paths(ps []string) ([]string, error) {
	out := make([]string, 0, len(ps))
	for _, p := range ps {
		rel, err := rp.path(p)
		if err != nil {
			return nil, err
		}
		out = append(out, rel)
	}
	return out, nil
}

// inside returns p relative to dir, slash-separated, when p is dir or below.
func inside(dir, p string) (string, bool) {
	rel, err := filepath.Rel(dir, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

// checkArg refuses a value git could read as an option, or that cannot be
// a ref or date at all.
func checkArg(what, v string) error {
	switch {
	case v == "":
		return sdk.Failf("%s is empty", what)
	case strings.HasPrefix(v, "-"):
		return sdk.Failf("%s %q begins with '-', which git would read as an option; refs, branch names and dates never begin with '-'", what, v)
	case strings.ContainsAny(v, "\x00\n\r"):
		return sdk.Failf("%s %q contains a NUL or line break", what, v)
	case len(v) > 1024:
		return sdk.Failf("%s is %d bytes long; at most 1024", what, len(v))
	}
	return nil
}

// verify checks that ref names an object (a commit, unless kind says
// otherwise: "tree" for a tree-ish, "" for any object) and returns its full
// hash.
func (rp *repo) verify(ctx context.Context, what, ref, kind string) (string, error) {
	if err := checkArg(what, ref); err != nil {
		return "", err
	}
	spec := ref
	if kind != "" {
		spec += "^{" + kind + "}"
	}
	out, err := rp.git(ctx, run{}, "rev-parse", "--verify", "--quiet", "--end-of-options", spec)
	if err != nil {
		return "", err
	}
	if out.code != 0 {
		noun := "a commit"
		switch kind {
		case "tree":
			noun = "a commit or tree"
		case "":
			noun = "an object"
		}
		return "", sdk.Failf("%s %q does not name %s in %s; list branches with git_branch and commits with git_log", what, ref, noun, rp.display())
	}
	return strings.TrimSpace(string(out.stdout)), nil
}

// checkBranchName refuses a name git would not accept for a new branch.
func (rp *repo) checkBranchName(ctx context.Context, name string) error {
	if err := checkArg("branch name", name); err != nil {
		return err
	}
	if name == "@" || name == "HEAD" {
		return sdk.Failf("%q is not a valid branch name: git reads it as the current commit", name)
	}
	out, err := rp.git(ctx, run{}, "check-ref-format", "--branch", name)
	if err != nil {
		return err
	}
	if out.code != 0 || strings.TrimSpace(string(out.stdout)) != name {
		return sdk.Failf("%q is not a valid branch name (see git check-ref-format: no spaces, '..', '~', '^', ':', '?', '*', '[', '\\', no leading '-' or '.', no trailing '/' or '.lock')", name)
	}
	return nil
}

// head describes HEAD in one line: "abc1234 subject", or why there is none.
func (rp *repo) head(ctx context.Context) string {
	out, err := rp.git(ctx, run{limit: 4 << 10}, "log", "-1", "--format=%h %s", "--end-of-options", "HEAD", "--")
	if err != nil || out.code != 0 {
		return "(no commits yet)"
	}
	return strings.TrimSpace(string(out.stdout))
}

// detached reports whether HEAD names a commit rather than a branch.
func (rp *repo) detached(ctx context.Context) bool {
	out, err := rp.git(ctx, run{limit: 4 << 10}, "symbolic-ref", "-q", "HEAD")
	return err == nil && out.code == 1
}

func (rp *repo) String() string { return fmt.Sprintf("repository %s", rp.top) }

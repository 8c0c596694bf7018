// Package git is the git tool group: status, diff, log, show and blame to
// read a repository, and add, commit, branch and checkout to change it.
//
// Its main is one call:
//
//	func main() { sdk.Serve(git.New()) }
//
// Every tool runs the git binary directly (no shell) and takes an optional
// repo: a path inside the served folders, the first served folder by
// default. The repository is the one git finds from there, and its top
// level, its git directory and (for a linked worktree) its common directory
// must all lie inside the served folders (for the read tools, anywhere when
// the host allows reads outside), with symlinks, .git files, core.worktree
// and alternates followed; git then runs pinned to them (GIT_DIR,
// GIT_WORK_TREE, GIT_COMMON_DIR), so it cannot find another repository. Relative paths in arguments are relative to that top level, as
// in git's own output; every path goes through package roots and must lie
// inside the repository, and is passed after "--" as a literal pathspec.
//
// No argument can become an option: refs, branch names, dates and paths
// that begin with '-' are refused, refs are checked with git rev-parse
// --verify --end-of-options and branch names with git check-ref-format.
// git runs with LC_ALL=C, no terminal prompts, no pager, no external diff,
// core.quotepath=off, and, for the read tools, GIT_OPTIONAL_LOCKS=0 so that
// reading never writes the index. Repository-locating variables from the
// environment (GIT_DIR, GIT_WORK_TREE, GIT_INDEX_FILE, ...) are dropped.
//
// No program named by the repository's own config (or a file it includes)
// or by its hooks runs unless the host says the user allows commands
// (sdk.Host.Commands, the shell group is mounted): hooks are off, and
// fsmonitor, filters, textconv, diff and merge drivers, signing programs,
// credential helpers, pagers, editors and ssh commands set by the
// repository get the user's global value or a value that runs nothing
// (guard.go). Staging a path through a filter so turned off is refused.
// With commands allowed, git behaves as the user's own git.
//
// Output is capped at 100 KiB; a cut result ends with a note saying what was
// left out and how to narrow the call. A failure the model can act on (not
// a repository, an unknown ref, nothing to commit, local changes in the way
// of a checkout) is an error result carrying git's own message.
package git

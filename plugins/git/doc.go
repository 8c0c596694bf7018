// Package git is the git tool group: status, diff, log, show and blame to
// read a repository, and add, commit, branch and checkout to change it.
//
// Its main is one call:
//
//	func main() { sdk.Serve(git.New()) }
//
// Every tool runs the git binary directly (no shell) and takes an optional
// repo: a path inside the served folders, the first served folder by
// default. The repository is the one git finds from there (git rev-parse
// --show-toplevel), and its top level must itself lie inside the served
// folders (for the read tools, anywhere when the host allows reads
// outside). Relative paths in arguments are relative to that top level, as
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
// Output is capped at 100 KiB; a cut result ends with a note saying what was
// left out and how to narrow the call. A failure the model can act on (not
// a repository, an unknown ref, nothing to commit, local changes in the way
// of a checkout) is an error result carrying git's own message.
package git

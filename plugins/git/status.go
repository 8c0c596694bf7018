package git

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/ramabana/ramabana-mcp/plugins/internal/wording"
	"github.com/ramabana/ramabana-mcp/sdk"
)

type statusArgs struct {
	repoArg
}

var statusSpec = sdk.ToolSpec{
	Name:        "git_status",
	Title:       "Git status",
	Kind:        sdk.KindRead,
	Description: `Show a repository's branch, upstream, any merge or rebase in progress, stash, and its staged, unstaged, untracked and conflicted files as "<change>: <path>".`,
}

var statusSchema = schemaFor[statusArgs](nil)

// statusEntry is one changed path.
type statusEntry struct {
	change string
	path   string
}

type statusReport struct {
	oid, head, upstream string
	ahead, behind       int
	hasAB               bool
	stash               int
	staged, unstaged    []statusEntry
	untracked           []string
	conflicts           []statusEntry
}

func (s *server) status(ctx context.Context, rp *repo, _ statusArgs) (*sdk.Result, error) {
	out, err := rp.git(ctx, run{}, "status", "--porcelain=v2", "--branch", "--show-stash", "-z", "--untracked-files=normal", rp.submodules())
	if err != nil {
		return nil, err
	}
	if !out.ok() {
		return nil, out.failure("git status")
	}
	rep := parseStatus(out.stdout)
	var b strings.Builder
	fmt.Fprintf(&b, "repository: %s\n", rp.display())
	switch {
	case rep.head == "(detached)":
		fmt.Fprintf(&b, "HEAD detached at %s\n", short(rep.oid))
	case rep.oid == "(initial)":
		fmt.Fprintf(&b, "branch: %s (no commits yet)\n", rep.head)
	default:
		fmt.Fprintf(&b, "branch: %s\n", rep.head)
	}
	switch {
	case rep.upstream != "" && rep.hasAB:
		fmt.Fprintf(&b, "upstream: %s (ahead %d, behind %d)\n", rep.upstream, rep.ahead, rep.behind)
	case rep.upstream != "":
		fmt.Fprintf(&b, "upstream: %s (gone)\n", rep.upstream)
	}
	if op := rp.inProgress(ctx); op != "" {
		fmt.Fprintf(&b, "in progress: %s\n", op)
	}
	if rep.stash > 0 {
		fmt.Fprintf(&b, "stash: %s\n", wording.Count(rep.stash, "entry"))
	}
	if len(rep.staged)+len(rep.unstaged)+len(rep.untracked)+len(rep.conflicts) == 0 {
		b.WriteString("nothing to commit, working tree clean")
		return sdk.TextResult(b.String()), nil
	}
	lines := 0
	section := func(name string, entries []string) {
		if len(entries) == 0 {
			return
		}
		fmt.Fprintf(&b, "%s (%d):\n", name, len(entries))
		for _, e := range entries {
			b.WriteString("  ")
			b.WriteString(e)
			b.WriteByte('\n')
			lines++
		}
	}
	section("conflicts", entryLines(rep.conflicts))
	section("staged", entryLines(rep.staged))
	section("unstaged", entryLines(rep.unstaged))
	section("untracked", rep.untracked)
	text := strings.TrimSuffix(b.String(), "\n")
	if cut, ok := cutText(text, maxOutput); ok {
		shown := strings.Count(cut, "\n  ")
		text = addNote(cut, fmt.Sprintf("status cut at 100 KiB: %d of %d entries not shown; use git_diff with paths to look at part of the tree", lines-shown, lines))
	}
	if out.cut {
		text = addNote(text, "git status printed more than 16 MiB; the lists are incomplete")
	}
	return sdk.TextResult(text), nil
}

func entryLines(es []statusEntry) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.change + ": " + e.path
	}
	return out
}

// parseStatus reads git status --porcelain=v2 --branch --show-stash -z.
func parseStatus(data []byte) statusReport {
	var rep statusReport
	recs := bytes.Split(data, []byte{0})
	for i := 0; i < len(recs); i++ {
		rec := string(recs[i])
		if rec == "" {
			continue
		}
		switch rec[0] {
		case '#':
			key, val, _ := strings.Cut(strings.TrimPrefix(rec, "# "), " ")
			switch key {
			case "branch.oid":
				rep.oid = val
			case "branch.head":
				rep.head = val
			case "branch.upstream":
				rep.upstream = val
			case "branch.ab":
				a, bh, _ := strings.Cut(val, " ")
				rep.ahead, _ = strconv.Atoi(strings.TrimPrefix(a, "+"))
				rep.behind, _ = strconv.Atoi(strings.TrimPrefix(bh, "-"))
				rep.hasAB = true
			case "stash":
				rep.stash, _ = strconv.Atoi(val)
			}
		case '1', '2':
			// 1 XY sub mH mI mW hH hI path
			// 2 XY sub mH mI mW hH hI Xscore path NUL origPath
			n := 9
			if rec[0] == '2' {
				n = 10
			}
			f := strings.SplitN(rec, " ", n)
			if len(f) < n {
				continue
			}
			xy, path, orig := f[1], f[n-1], ""
			if rec[0] == '2' && i+1 < len(recs) {
				i++
				orig = string(recs[i])
			}
			if len(xy) != 2 {
				continue
			}
			if e, ok := entry(xy[0], path, orig); ok {
				rep.staged = append(rep.staged, e)
			}
			// A rename is recorded in the index; the work tree side of it
			// is a plain change to the new path.
			if e, ok := entry(xy[1], path, ""); ok {
				rep.unstaged = append(rep.unstaged, e)
			}
		case 'u':
			// u XY sub m1 m2 m3 mW h1 h2 h3 path
			f := strings.SplitN(rec, " ", 11)
			if len(f) < 11 {
				continue
			}
			rep.conflicts = append(rep.conflicts, statusEntry{change: conflictNames[f[1]], path: f[10]})
		case '?':
			rep.untracked = append(rep.untracked, strings.TrimPrefix(rec, "? "))
		}
	}
	return rep
}

var changeNames = map[byte]string{
	'M': "modified", 'T': "type changed", 'A': "added", 'D': "deleted",
	'R': "renamed", 'C': "copied",
}

var conflictNames = map[string]string{
	"DD": "both deleted", "AU": "added by us", "UD": "deleted by them", "UA": "added by them",
	"DU": "deleted by us", "AA": "both added", "UU": "both modified",
}

func entry(code byte, path, orig string) (statusEntry, bool) {
	name, ok := changeNames[code]
	if !ok {
		return statusEntry{}, false
	}
	if orig != "" {
		path = orig + " -> " + path
	}
	return statusEntry{change: name, path: path}, true
}

// inProgress names a merge, rebase, cherry-pick or revert under way, with
// what to do about it; "" when there is none.
func (rp *repo) inProgress(ctx context.Context) string {
	ops := []struct{ file, what string }{
		{"rebase-merge", "rebase (finish or abort it with git rebase --continue / --abort in a shell)"},
		{"rebase-apply", "rebase or am (finish or abort it in a shell)"},
		{"MERGE_HEAD", "merge (resolve the conflicts, git_add the files, then git_commit)"},
		{"CHERRY_PICK_HEAD", "cherry-pick (resolve, git_add, then git_commit)"},
		{"REVERT_HEAD", "revert (resolve, git_add, then git_commit)"},
	}
	// These files are per work tree: they live in the git directory the
	// layout checked, so no git process is needed to find them.
	for _, op := range ops {
		if _, err := os.Stat(filepath.Join(rp.layout.gitDir, op.file)); err == nil {
			return op.what
		}
	}
	return ""
}

// short abbreviates a full hash for display.
func short(oid string) string {
	if len(oid) > 7 {
		return oid[:7]
	}
	return oid
}

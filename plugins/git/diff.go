package git

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/ramabana/ramabana-mcp/sdk"
)

const (
	defaultContext = 3
	maxContext     = 10000
	// maxCutFiles bounds the files listed in the note of a cut diff.
	maxCutFiles = 50
)

type diffArgs struct {
	repoArg
	Staged       bool     `json:"staged,omitempty" jsonschema:"Show staged changes (the index against HEAD, or against ref) instead of unstaged ones. Default false."`
	Ref          string   `json:"ref,omitempty" jsonschema:"Compare against this commit (branch, tag, hash, HEAD~2, ...). Alone: the work tree (or with staged the index) against ref. With ref2: ref against ref2. \"A...B\" compares B with the point where it branched from A."`
	Ref2         string   `json:"ref2,omitempty" jsonschema:"Second commit: the diff shows the change from ref to ref2. Needs ref; not with staged."`
	Paths        []string `json:"paths,omitempty" jsonschema:"Limit the diff to these files or folders, relative to the repository's top level. Default: the whole repository."`
	ContextLines *int     `json:"context_lines,omitempty" jsonschema:"Unchanged lines shown around each change. Default 3."`
	Stat         bool     `json:"stat,omitempty" jsonschema:"Show only which files changed and by how many lines (git diff --stat), not the changes themselves. Default false."`
}

var diffSpec = sdk.ToolSpec{
	Name:  "git_diff",
	Title: "Git diff",
	Kind:  sdk.KindRead,
	Description: `Show changes as a unified diff (git diff), paths relative to the repository's top level.

What is compared:
  (no arguments)     unstaged changes: the work tree against the index
  staged: true       staged changes: the index against HEAD (what git_commit would commit)
  ref                the work tree against ref (with staged: true, the index against ref)
  ref + ref2         commit ref against commit ref2
  ref: "A...B"       B against the commit where it branched from A

Untracked files are not in any diff (git_status lists them; git_add makes them part of the staged diff). paths narrows the diff to files or folders; context_lines sets the unchanged lines around each change (default 3); stat: true shows only a per-file summary of lines added and removed.

Output is capped at 100 KiB. A cut diff ends at a file boundary where possible, with a note listing the files not shown and their added/removed line counts, so that you can ask for them with paths, or use stat: true or context_lines: 0. No differences gives a one-line note saying what was compared.`,
}

var diffSchema = schemaFor[diffArgs](func(p map[string]*jsonschema.Schema) {
	sdk.IntDefault(p["context_lines"], defaultContext, 0, maxContext)
	p["staged"].Default = []byte("false")
	p["stat"].Default = []byte("false")
})

func (s *server) diff(ctx context.Context, rp *repo, args diffArgs) (*sdk.Result, error) {
	n := defaultContext
	if args.ContextLines != nil {
		n = *args.ContextLines
	}
	if n < 0 || n > maxContext {
		return nil, sdk.Failf("context_lines must be between 0 and %d (got %d)", maxContext, n)
	}
	if args.Ref2 != "" && args.Ref == "" {
		return nil, sdk.Failf("ref2 needs ref: the diff goes from ref to ref2")
	}
	if args.Ref2 != "" && args.Staged {
		return nil, sdk.Failf("staged compares the index; it cannot be combined with ref2, which compares two commits")
	}
	var revs []string
	what := "the work tree and the index (unstaged changes; use staged: true for staged ones)"
	if args.Staged {
		what = "the index and HEAD (staged changes)"
	}
	if args.Ref != "" {
		a, b, sep, err := rp.verifyRange(ctx, "ref", args.Ref, "tree")
		if err != nil {
			return nil, err
		}
		switch {
		case sep != "" && args.Ref2 != "":
			return nil, sdk.Failf("ref %q is already a range; leave ref2 empty", args.Ref)
		case sep == "...":
			what = fmt.Sprintf("%s and where it branched from %s", orHEAD(b), orHEAD(a))
		case sep == "..":
			what = fmt.Sprintf("%s and %s", orHEAD(a), orHEAD(b))
		case args.Staged:
			what = fmt.Sprintf("the index and %s", args.Ref)
		default:
			what = fmt.Sprintf("the work tree and %s", args.Ref)
		}
		revs = append(revs, args.Ref)
	}
	if args.Ref2 != "" {
		if _, err := rp.verify(ctx, "ref2", args.Ref2, "tree"); err != nil {
			return nil, err
		}
		revs = append(revs, args.Ref2)
		what = fmt.Sprintf("%s and %s", args.Ref, args.Ref2)
	}
	paths, err := rp.paths(args.Paths)
	if err != nil {
		return nil, err
	}
	opts := append([]string{"diff", "--no-color", "--no-ext-diff"}, rp.diffGuards()...)
	if args.Staged {
		opts = append(opts, "--cached")
	}
	tail := append(append([]string{"--end-of-options"}, revs...), "--")
	tail = append(tail, paths...)
	if args.Stat {
		out, err := rp.git(ctx, run{limit: maxOutput + 1}, append(append(opts, "--stat=200"), tail...)...)
		if err != nil {
			return nil, err
		}
		if !out.ok() {
			return nil, out.failure("git diff")
		}
		if len(out.stdout) == 0 {
			return sdk.TextResult("no differences between " + what), nil
		}
		text, cut := cutText(string(out.stdout), maxOutput)
		if cut || out.cut {
			text = addNote(text, "summary cut at 100 KiB; narrow it with paths")
		}
		return sdk.TextResult(strings.TrimSuffix(text, "\n")), nil
	}
	// -U implies a patch, so it is left out of --stat and --numstat.
	out, err := rp.git(ctx, run{limit: maxOutput + 1}, append(append(opts, "-U"+strconv.Itoa(n)), tail...)...)
	if err != nil {
		return nil, err
	}
	if !out.ok() {
		return nil, out.failure("git diff")
	}
	if len(out.stdout) == 0 {
		return sdk.TextResult("no differences between " + what), nil
	}
	if !out.cut && len(out.stdout) <= maxOutput {
		return sdk.TextResult(strings.TrimSuffix(string(out.stdout), "\n")), nil
	}
	// Cut: end at a file boundary when at least one file fits, and say
	// which files were left out.
	full := string(out.stdout)
	text, partial := full[:maxOutput], false
	if i := strings.LastIndex(text, "\ndiff --"); i > 0 {
		text = text[:i+1]
	} else {
		text, _ = cutText(full, maxOutput)
		partial = true
	}
	shown := strings.Count(text, "\ndiff --")
	if strings.HasPrefix(text, "diff --") {
		shown++
	}
	stat, err := rp.git(ctx, run{}, append(append(opts, "--numstat", "-z"), tail...)...)
	if err != nil {
		return nil, err
	}
	files := parseNumstat(stat.stdout)
	var note strings.Builder
	note.WriteString("(diff cut at 100 KiB: ")
	if partial {
		fmt.Fprintf(&note, "the first file's diff alone is larger and is shown only in part; %d of %d files are not shown", max(len(files)-1, 0), len(files))
	} else {
		fmt.Fprintf(&note, "%d of %d files are not shown", max(len(files)-shown, 0), len(files))
	}
	note.WriteString(". Narrow it with paths, context_lines: 0, or stat: true.")
	rest := files
	if !partial && shown <= len(files) {
		rest = files[shown:]
	} else if partial && len(files) > 0 {
		rest = files[1:]
	}
	if len(rest) > 0 {
		note.WriteString(" Not shown:")
		for i, f := range rest {
			if i == maxCutFiles {
				fmt.Fprintf(&note, "\n  ... and %d more", len(rest)-maxCutFiles)
				break
			}
			fmt.Fprintf(&note, "\n  %s (%s)", f.path, f.counts)
		}
	}
	note.WriteString(")")
	return sdk.TextResult(text + note.String()), nil
}

// verifyRange verifies ref, which may be a range "A..B" or "A...B" (an
// empty side means HEAD; the sides must be commits). It returns the sides
// and the separator, "" for a single ref of the given kind.
func (rp *repo) verifyRange(ctx context.Context, what, ref, kind string) (a, b, sep string, err error) {
	if err := checkArg(what, ref); err != nil {
		return "", "", "", err
	}
	for _, sep = range []string{"...", ".."} {
		if a, b, ok := strings.Cut(ref, sep); ok {
			for _, side := range []string{a, b} {
				if side == "" {
					continue
				}
				if _, err := rp.verify(ctx, what, side, "commit"); err != nil {
					return "", "", "", err
				}
			}
			return a, b, sep, nil
		}
	}
	_, err = rp.verify(ctx, what, ref, kind)
	return ref, "", "", err
}

func orHEAD(ref string) string {
	if ref == "" {
		return "HEAD"
	}
	return ref
}

type numstat struct {
	path   string
	counts string // "+12 -3" or "binary"
}

// parseNumstat reads git diff --numstat -z: "added TAB deleted TAB path NUL",
// or for a rename "added TAB deleted TAB NUL old NUL new NUL"; binary files
// count "-".
func parseNumstat(data []byte) []numstat {
	var out []numstat
	recs := bytes.Split(data, []byte{0})
	for i := 0; i < len(recs); i++ {
		f := strings.SplitN(string(recs[i]), "\t", 3)
		if len(f) != 3 {
			continue
		}
		path := f[2]
		if path == "" && i+2 < len(recs) {
			path = string(recs[i+1]) + " -> " + string(recs[i+2])
			i += 2
		}
		counts := "+" + f[0] + " -" + f[1]
		if f[0] == "-" {
			counts = "binary"
		}
		out = append(out, numstat{path: path, counts: counts})
	}
	return out
}

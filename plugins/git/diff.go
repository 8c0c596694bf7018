package git

import (
	"bytes"
	"context"
	"fmt"
	"slices"
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
	Staged       bool     `json:"staged,omitempty" jsonschema:"the index, not the work tree"`
	Ref          string   `json:"ref,omitempty" jsonschema:"commit to compare with"`
	Ref2         string   `json:"ref2,omitempty" jsonschema:"second commit"`
	Paths        []string `json:"paths,omitempty" jsonschema:"only these files or folders"`
	ContextLines *int     `json:"context_lines,omitempty" jsonschema:"lines around each change"`
	Stat         bool     `json:"stat,omitempty" jsonschema:"only per-file line counts"`
}

var diffSpec = sdk.ToolSpec{
	Name:        "git_diff",
	Title:       "Git diff",
	Kind:        sdk.KindRead,
	Description: `Show a unified diff: the work tree against the index; with staged, the index against HEAD; with ref, against ref; with ref2, ref against ref2 ("A...B": B against where it left A). Untracked files are left out. Long output is cut, with a note.`,
}

var diffSchema = schemaFor[diffArgs](func(p map[string]*jsonschema.Schema) {
	sdk.IntDefault(p["context_lines"], defaultContext, 0, maxContext)
	p["staged"].Default = []byte("false")
	p["stat"].Default = []byte("false")
})

// diffQuery is a validated git_diff call.
type diffQuery struct {
	// what names what is compared, for the note on no differences.
	what string
	// opts are "diff" and its options; tail the revisions and paths. The
	// output format goes between them.
	opts, tail []string
	context    int
	stat       bool
}

// args is the git command line that prints the diff in format.
func (q diffQuery) args(format ...string) []string {
	return append(append(slices.Clip(q.opts), format...), q.tail...)
}

func (s *server) diff(ctx context.Context, rp *repo, args diffArgs) (*sdk.Result, error) {
	q, err := rp.newDiffQuery(ctx, args)
	if err != nil {
		return nil, err
	}
	body, sum, err := rp.runDiff(ctx, q)
	if err != nil {
		return nil, err
	}
	return sdk.TextResult(sum.render(body)), nil
}

// newDiffQuery applies git_diff's defaults and bounds and verifies its refs
// and paths. Its errors are tool failures that say what to change.
func (rp *repo) newDiffQuery(ctx context.Context, args diffArgs) (diffQuery, error) {
	n := defaultContext
	if args.ContextLines != nil {
		n = *args.ContextLines
	}
	if n < 0 || n > maxContext {
		return diffQuery{}, sdk.Failf("context_lines must be between 0 and %d (got %d)", maxContext, n)
	}
	if args.Ref2 != "" && args.Ref == "" {
		return diffQuery{}, sdk.Failf("ref2 needs ref: the diff goes from ref to ref2")
	}
	if args.Ref2 != "" && args.Staged {
		return diffQuery{}, sdk.Failf("staged compares the index; it cannot be combined with ref2, which compares two commits")
	}
	revs, what, err := rp.diffRevs(ctx, args)
	if err != nil {
		return diffQuery{}, err
	}
	paths, err := rp.paths(args.Paths)
	if err != nil {
		return diffQuery{}, err
	}
	opts := append([]string{"diff", "--no-color", "--no-ext-diff"}, rp.diffGuards()...)
	if args.Staged {
		opts = append(opts, "--cached")
	}
	tail := append(append([]string{"--end-of-options"}, revs...), "--")
	tail = append(tail, paths...)
	return diffQuery{what: what, opts: opts, tail: tail, context: n, stat: args.Stat}, nil
}

// diffRevs verifies ref and ref2 and returns them as git's revision
// arguments, with the words that name what they compare.
func (rp *repo) diffRevs(ctx context.Context, args diffArgs) ([]string, string, error) {
	var revs []string
	what := "the work tree and the index (unstaged changes; use staged: true for staged ones)"
	if args.Staged {
		what = "the index and HEAD (staged changes)"
	}
	if args.Ref != "" {
		a, b, sep, err := rp.verifyRange(ctx, "ref", args.Ref, "tree")
		if err != nil {
			return nil, "", err
		}
		switch {
		case sep != "" && args.Ref2 != "":
			return nil, "", sdk.Failf("ref %q is already a range; leave ref2 empty", args.Ref)
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
			return nil, "", err
		}
		revs = append(revs, args.Ref2)
		what = fmt.Sprintf("%s and %s", args.Ref, args.Ref2)
	}
	return revs, what, nil
}

// runDiff runs git diff for q and returns its output, cut to maxOutput,
// and what the note after it reports. A patch is cut at a file boundary
// where one fits; numstat then lists every file, for the note to name
// those left out.
func (rp *repo) runDiff(ctx context.Context, q diffQuery) (string, diffSummary, error) {
	// -U implies a patch, so it is left out of --stat and --numstat.
	format := "-U" + strconv.Itoa(q.context)
	if q.stat {
		format = "--stat=200"
	}
	out, err := rp.git(ctx, run{limit: maxOutput + 1}, q.args(format)...)
	if err != nil {
		return "", diffSummary{}, err
	}
	if !out.ok() {
		return "", diffSummary{}, out.failure("git diff")
	}
	sum := diffSummary{what: q.what, empty: len(out.stdout) == 0, stat: q.stat}
	full := string(out.stdout)
	if q.stat {
		text, cut := cutText(full, maxOutput)
		sum.cut = cut || out.cut
		return text, sum, nil
	}
	if sum.empty || !out.cut && len(full) <= maxOutput {
		return full, sum, nil
	}
	text := full[:maxOutput]
	if i := strings.LastIndex(text, "\ndiff --"); i > 0 {
		text = text[:i+1]
	} else {
		text, _ = cutText(full, maxOutput)
		sum.partial = true
	}
	sum.cut = true
	sum.shown = strings.Count(text, "\ndiff --")
	if strings.HasPrefix(text, "diff --") {
		sum.shown++
	}
	stat, err := rp.git(ctx, run{}, q.args("--numstat", "-z")...)
	if err != nil {
		return "", diffSummary{}, err
	}
	sum.files = parseNumstat(stat.stdout)
	return text, sum, nil
}

// diffSummary is what git_diff says besides the diff: that there is none,
// or what a cut left out.
type diffSummary struct {
	// what names what was compared.
	what string
	// empty is true when git printed nothing.
	empty bool
	// stat is true for a --stat summary, which is cut without a list.
	stat bool
	// cut is true when the output was cut at maxOutput.
	cut bool
	// partial is true when the first file's patch alone was over the cap
	// and is shown in part.
	partial bool
	// shown counts the files whose patch is shown in full.
	shown int
	// files are all the files the cut patch changes, in order.
	files []numstat
}

// render is the tool's text: the diff body, with its line end trimmed or
// the note on the cut, or the note on no differences.
func (d diffSummary) render(body string) string {
	switch {
	case d.empty:
		return "no differences between " + d.what
	case d.stat && d.cut:
		return addNote(body, "summary cut at 100 KiB; narrow it with paths")
	case d.cut:
		return body + d.cutNote()
	}
	return strings.TrimSuffix(body, "\n")
}

// cutNote says how much of a cut patch is not shown, and lists the files
// left out (at most maxCutFiles) with their line counts.
func (d diffSummary) cutNote() string {
	var note strings.Builder
	note.WriteString("(diff cut at 100 KiB: ")
	rest := d.files
	if d.partial {
		fmt.Fprintf(&note, "the first file's diff alone is larger and is shown only in part; %d of %d files are not shown", max(len(d.files)-1, 0), len(d.files))
		if len(d.files) > 0 {
			rest = d.files[1:]
		}
	} else {
		fmt.Fprintf(&note, "%d of %d files are not shown", max(len(d.files)-d.shown, 0), len(d.files))
		if d.shown <= len(d.files) {
			rest = d.files[d.shown:]
		}
	}
	note.WriteString(". Narrow it with paths, context_lines: 0, or stat: true.")
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
	return note.String()
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

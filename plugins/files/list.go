package files

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/google/jsonschema-go/jsonschema"

	"github.com/ramabana/ramabana-mcp/plugins/internal/ignore"
	"github.com/ramabana/ramabana-mcp/plugins/internal/wording"
	"github.com/ramabana/ramabana-mcp/sdk"
	"github.com/ramabana/ramabana-mcp/sdk/roots"
)

const (
	defaultMaxResults = 1000
	maxMaxResults     = 10000
	// maxCounted bounds the walk after the cap, which only counts what is
	// left out.
	maxCounted = 100000
	// maxListOutput is a listing's byte budget, as maxViewOutput is a
	// page's: the listing stops before the entry that would pass it.
	maxListOutput = 32 << 10
)

type listArgs struct {
	Path       string `json:"path,omitempty" jsonschema:"directory, relative to the first served folder"`
	Glob       string `json:"glob,omitempty" jsonschema:"only paths matching, e.g. \"**/*_test.go\", \"*.go\""`
	Depth      int    `json:"depth,omitempty" jsonschema:"1: only direct entries; 0: all"`
	Limit      int    `json:"limit,omitempty" jsonschema:"most entries"`
	MaxFiles   int    `json:"max_files,omitempty"`
	MaxSeconds int    `json:"max_seconds,omitempty"`
	Start      int    `json:"start,omitempty" jsonschema:"first entry to show, from 1"`
}

var listSpec = sdk.ToolSpec{
	Name:        "list_files",
	Title:       "List files",
	Kind:        sdk.KindRead,
	Description: `List the files and directories under path, recursively, one relative path per line (directories end in "/"), leaving out what git ignores. A last line says what was left out and how to continue.`,
}

var listSchema = sdk.LazySchemaFor[listArgs](func(p map[string]*jsonschema.Schema) {
	p["path"].Default = []byte(`"."`)
	sdk.IntDefault(p["depth"], 0, 0, 0)
	sdk.IntDefault(p["limit"], defaultMaxResults, 1, maxMaxResults)
	sdk.IntDefault(p["max_files"], ignore.DefaultMaxFiles, 1, ignore.MaxMaxFiles)
	sdk.IntDefault(p["max_seconds"], ignore.DefaultMaxSeconds, 1, ignore.MaxMaxSeconds)
	sdk.IntDefault(p["start"], 1, 1, 0)
})

// listQuery is a validated list_files call.
type listQuery struct {
	// t is the directory listed, shown as root.
	t    *roots.Target
	root string
	glob string
	// baseNames is true for a glob without '/', which also matches base
	// names.
	baseNames bool
	// start is the first entry shown (1-based); limit the most shown.
	start, limit int
	opts         ignore.Options
}

func (s *server) listFiles(ctx context.Context, r *roots.Roots, args listArgs) (*sdk.Result, error) {
	q, err := newListQuery(r, args)
	if err != nil {
		return nil, err
	}
	listing, sum, err := listTree(ctx, q)
	if err != nil {
		return nil, err
	}
	if sum.shown == 0 && sum.passed > 0 && sum.stopped == nil {
		what := wording.Count(sum.passed, "entry")
		if q.glob != "" {
			what += fmt.Sprintf(" matching glob %q", q.glob)
		}
		return nil, sdk.Failf("start=%d is past the end: %s lists %s", q.start, q.root, what)
	}
	return sdk.TextResult(sum.render(listing)), nil
}

// newListQuery applies list_files's defaults and bounds and resolves its
// path to a directory. Its errors are tool failures that say what to
// change.
func newListQuery(r *roots.Roots, args listArgs) (*listQuery, error) {
	if args.Path == "" {
		args.Path = "."
	}
	if args.Depth < 0 || args.Limit < 0 {
		return nil, sdk.Failf("depth and limit must not be negative (got depth=%d, limit=%d)", args.Depth, args.Limit)
	}
	if args.Start < 0 {
		return nil, sdk.Failf("start must be 1 or more (got %d)", args.Start)
	}
	limit := args.Limit
	if limit == 0 {
		limit = defaultMaxResults
	}
	limit = min(limit, maxMaxResults)
	if args.Glob != "" && !doublestar.ValidatePattern(args.Glob) {
		return nil, sdk.Failf("glob %q is not a valid pattern (check its brackets and braces)", args.Glob)
	}
	opts := ignore.Options{MaxDepth: args.Depth}
	if err := ignore.Budget(&opts, args.MaxFiles, args.MaxSeconds); err != nil {
		return nil, sdk.Failf("%v", err)
	}
	t, err := resolveRead(r, args.Path)
	if err != nil {
		return nil, err
	}
	display := r.Rel(t.Abs)
	fi, err := t.Stat()
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, sdk.Failf("%s does not exist", display)
	case err != nil:
		return nil, sdk.Failf("cannot list %s: %v", display, unwrapPath(err))
	case !fi.IsDir():
		return nil, sdk.Failf("%s is a file, not a directory; use view_file to read it", display)
	}
	opts.Skip = roots.PseudoDirs(t.Abs)
	return &listQuery{t: t, root: display, glob: args.Glob, baseNames: args.Glob != "" && !strings.Contains(args.Glob, "/"),
		start: max(args.Start, 1), limit: limit, opts: opts}, nil
}

// matches reports whether the glob, if any, selects the entry at rel.
func (q *listQuery) matches(rel string) bool {
	return q.glob == "" || doublestar.MatchUnvalidated(q.glob, rel) ||
		q.baseNames && doublestar.MatchUnvalidated(q.glob, path.Base(rel))
}

// listTree walks q's directory and returns the entries shown, one a line
// (directories ending in '/'), and what the notes after them report.
// Entries before q.start are passed over; entries past q.limit or
// maxListOutput are counted, up to maxCounted.
func listTree(ctx context.Context, q *listQuery) (string, listSummary, error) {
	// The walk reads through the served folder's root (or, outside the
	// roots, a root on the directory itself), never by absolute name.
	fsys, name, closeFS, err := q.t.FS()
	if err != nil {
		return "", listSummary{}, sdk.Failf("cannot list %s: %v", q.root, unwrapPath(err))
	}
	defer closeFS()
	var b strings.Builder
	sum := listSummary{root: q.root, glob: q.glob, start: q.start}
	seen := 0
	err = ignore.Walk(fsys, name, q.opts, func(rel string, d fs.DirEntry) error {
		if seen++; seen%1024 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		if !q.matches(rel) {
			return nil
		}
		if sum.passed < q.start-1 {
			sum.passed++
			return nil
		}
		if sum.shown > 0 && !sum.full && b.Len()+len(rel)+2 > maxListOutput {
			sum.full = true // the first entry is always shown
		}
		if sum.shown == q.limit || sum.full {
			if sum.more++; sum.more >= maxCounted {
				return filepath.SkipAll
			}
			return nil
		}
		if sum.shown > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(rel)
		if d.IsDir() {
			b.WriteByte('/')
		}
		sum.shown++
		return nil
	})
	if errors.As(err, &sum.stopped) {
		err = nil
	}
	if err != nil {
		if ctx.Err() != nil {
			return "", listSummary{}, ctx.Err()
		}
		return "", listSummary{}, sdk.Failf("cannot list %s: %v", q.root, unwrapPath(err))
	}
	return b.String(), sum, nil
}

// listSummary is what list_files says after the entries: that there are
// none, how many were left out, and whether the walk ran out of budget.
type listSummary struct {
	// root is the directory listed; glob the filter, "" for none.
	root, glob string
	// start is the first entry shown, 1-based; passed counts the entries
	// before it.
	start, passed int
	// shown counts the entries listed; more those left out after them, up
	// to maxCounted.
	shown, more int
	// full is set when the listing reached maxListOutput.
	full bool
	// stopped is set when the walk ran out of its budget.
	stopped *ignore.LimitError
}

// render is the tool's text: listing, the entries shown, followed by the
// notes, each on a line of its own.
func (s listSummary) render(listing string) string {
	var lines []string
	if listing != "" {
		lines = append(lines, listing)
	}
	switch {
	case s.shown == 0 && s.passed > 0: // the walk stopped before start
		lines = append(lines, fmt.Sprintf("(%s passed over before start=%d, and none after them)", wording.Count(s.passed, "entry"), s.start))
	case s.shown == 0 && s.glob != "":
		lines = append(lines, fmt.Sprintf("(nothing in %s matches glob %q)", s.root, s.glob))
	case s.shown == 0:
		lines = append(lines, fmt.Sprintf("(%s has no entries that git does not ignore)", s.root))
	case s.more > 0:
		first, last := max(s.start, 1), max(s.start, 1)+s.shown-1
		shown := fmt.Sprintf("entries %d-%d shown", first, last)
		if s.shown == 1 {
			shown = fmt.Sprintf("entry %d shown", first)
		}
		if s.full {
			shown += fmt.Sprintf(", up to the %d KiB output limit", maxListOutput>>10)
		}
		atLeast := ""
		if s.more >= maxCounted {
			atLeast = "at least "
		}
		lines = append(lines, fmt.Sprintf("(%s; %s%d more left out: continue with start=%d, or narrow path or glob, or set depth)", shown, atLeast, s.more, last+1))
	}
	if s.stopped != nil {
		lines = append(lines, fmt.Sprintf("(%s)", s.stopped.Note()))
	}
	return strings.Join(lines, "\n")
}

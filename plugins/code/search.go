package code

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/google/jsonschema-go/jsonschema"

	"github.com/ramabana/ramabana-mcp/plugins/internal/ignore"
	"github.com/ramabana/ramabana-mcp/plugins/internal/wording"
	"github.com/ramabana/ramabana-mcp/sdk"
	"github.com/ramabana/ramabana-mcp/sdk/roots"
)

const (
	defaultSearchResults = 200
	maxSearchResults     = 2000
	maxContextLines      = 10
	// maxLineBytes bounds a shown line; minified files have huge ones.
	maxLineBytes = 400
	// maxSearchOutput bounds the text of one call whatever limit
	// says, as view_file's page is bounded: past it the search stops as at
	// the cap, before a match, and says where to continue.
	maxSearchOutput = 32 << 10
	// lookahead is how many files past the cap are still searched, to tell
	// the model how much it is missing. It is fixed, so the counts are the
	// same on every run and machine.
	lookahead = 64
)

type searchArgs struct {
	Pattern       string `json:"pattern" jsonschema:"RE2 regex, or with literal the exact text"`
	Literal       bool   `json:"literal,omitempty" jsonschema:"pattern is plain text"`
	CaseSensitive *bool  `json:"case_sensitive,omitempty" jsonschema:"false ignores case"`
	Path          string `json:"path,omitempty" jsonschema:"directory or file, relative to the first served folder"`
	Glob          string `json:"glob,omitempty" jsonschema:"only files matching, e.g. \"*.go\", \"src/**/*.py\""`
	ContextLines  int    `json:"context_lines,omitempty" jsonschema:"lines around each match"`
	Limit         int    `json:"limit,omitempty" jsonschema:"most matching lines"`
	MaxFiles      int    `json:"max_files,omitempty"`
	MaxSeconds    int    `json:"max_seconds,omitempty"`
	Start         int    `json:"start,omitempty" jsonschema:"first match to show, from 1"`
}

var searchSpec = sdk.ToolSpec{
	Name:        "search_code",
	Title:       "Search code",
	Kind:        sdk.KindRead,
	Description: `Search file contents for a Go RE2 regex (or literal text) like ripgrep, line by line, skipping gitignored and binary files, and files over 2 MiB unless named as path. Output "path:line:content", sorted; a last line gives totals and how to continue.`,
}

var searchSchema = sdk.LazySchemaFor[searchArgs](func(p map[string]*jsonschema.Schema) {
	boolDefault(p["literal"], false)
	boolDefault(p["case_sensitive"], true)
	p["case_sensitive"].Types, p["case_sensitive"].Type = nil, "boolean"
	p["path"].Default = []byte(`"."`)
	p["pattern"].MinLength = new(1)
	sdk.IntDefault(p["context_lines"], 0, 0, maxContextLines)
	sdk.IntDefault(p["limit"], defaultSearchResults, 1, maxSearchResults)
	sdk.IntDefault(p["max_files"], ignore.DefaultMaxFiles, 1, ignore.MaxMaxFiles)
	sdk.IntDefault(p["max_seconds"], ignore.DefaultMaxSeconds, 1, ignore.MaxMaxSeconds)
	sdk.IntDefault(p["start"], 1, 1, 0)
})

// searchQuery is a validated search_code call, shared by the workers.
type searchQuery struct {
	m *matcher
	// limit is the most matches a file can show: the limit argument.
	limit int
	// skip is how many matches are passed over before the first shown:
	// start-1.
	skip    int
	context int
	// pattern, literal and caseSensitive are as given, for the totals line.
	pattern       string
	literal       bool
	caseSensitive bool
	glob          string
	opts          ignore.Options
	// t is the directory or file searched, shown as root.
	t    *roots.Target
	root string
}

func (s *server) searchCode(ctx context.Context, r *roots.Roots, args searchArgs) (*sdk.Result, error) {
	q, err := newSearchQuery(r, args)
	if err != nil {
		return nil, err
	}
	listing, sum, err := searchTree(ctx, r, q)
	if err != nil {
		return nil, err
	}
	if sum.shown == 0 && sum.passed > 0 && sum.stopped == nil {
		return nil, sdk.Failf("start=%d is past the end: %s has %s in %s", q.skip+1, describePattern(q.pattern, q.literal),
			wording.CountOf(sum.passed, "match", "matches"), wording.CountOf(sum.read, "file searched", "files searched"))
	}
	return sdk.TextResult(listing + sum.String()), nil
}

// newSearchQuery applies search_code's defaults and bounds, compiles its
// pattern and resolves its path. Its errors are tool failures that say what
// to change.
func newSearchQuery(r *roots.Roots, args searchArgs) (*searchQuery, error) {
	caseSensitive := args.CaseSensitive == nil || *args.CaseSensitive
	m, err := newMatcher(args.Pattern, args.Literal, caseSensitive)
	if err != nil {
		return nil, err
	}
	if args.ContextLines < 0 || args.ContextLines > maxContextLines {
		return nil, sdk.Failf("context_lines must be between 0 and %d (got %d)", maxContextLines, args.ContextLines)
	}
	limit, err := resultLimit(args.Limit, defaultSearchResults, maxSearchResults)
	if err != nil {
		return nil, err
	}
	if args.Start < 0 {
		return nil, sdk.Failf("start must be 1 or more (got %d)", args.Start)
	}
	if args.Glob != "" && !doublestar.ValidatePattern(args.Glob) {
		return nil, sdk.Failf("glob %q is not a valid pattern (check its brackets and braces)", args.Glob)
	}
	if args.Path == "" {
		args.Path = "."
	}
	var opts ignore.Options
	if err := ignore.Budget(&opts, args.MaxFiles, args.MaxSeconds); err != nil {
		return nil, sdk.Failf("%v", err)
	}
	t, err := resolveRead(r, args.Path)
	if err != nil {
		return nil, err
	}
	root := display(r, t.Abs)
	if _, err := t.Stat(); err != nil {
		if os.IsNotExist(err) {
			return nil, sdk.Failf("%s does not exist; give a directory or file inside the served folders", root)
		}
		return nil, sdk.Failf("cannot search %s: %v", root, unwrapPath(err))
	}
	return &searchQuery{m: m, limit: limit, skip: max(args.Start-1, 0), context: args.ContextLines,
		pattern: args.Pattern, literal: args.Literal, caseSensitive: caseSensitive,
		glob: args.Glob, opts: opts, t: t, root: root}, nil
}

// searchTree searches q's tree and returns the matching lines shown, ready
// for the totals line to follow, and what that line reports. The first
// q.skip matches are passed over; the lines stop at q.limit matches or
// maxSearchOutput; lookahead files past that are still searched, so that
// the totals can say how much was left out.
func searchTree(ctx context.Context, r *roots.Roots, q *searchQuery) (string, searchSummary, error) {
	var b strings.Builder
	sum := searchSummary{root: q.root, pattern: q.pattern, literal: q.literal, ignoreCase: !q.caseSensitive, glob: q.glob, limit: q.limit, start: q.skip + 1}
	stats, err := scanOrdered(ctx, walkSpec{r: r, t: q.t, glob: q.glob, opts: q.opts}, newWorkerState,
		func(ctx context.Context, st *workerState, job fileJob) fileHits {
			return q.searchFile(ctx, st, job)
		},
		func(job fileJob, fh fileHits) int {
			sepBefore := sum.shown > 0
			sum.cutLines += fh.cutLines
			from := 0 // the file's matches passed over, before start
			if fh.status == readOK && sum.passed < q.skip {
				from = min(q.skip-sum.passed, fh.total)
				sum.passed += from
			}
			k := sum.take(fh.status, fh.total-from, len(fh.matches)-from, q.limit)
			if k == 0 {
				return noLimit
			}
			n := fh.render(&b, job.shown, from, k, q.context, sepBefore, maxSearchOutput)
			if n < k {
				sum.giveBack(k-n, fh.total-from > k)
			}
			if n > 0 {
				sum.shownFiles++
			}
			sum.outputFull = n < k || b.Len() >= maxSearchOutput
			if sum.shown >= q.limit || sum.outputFull {
				sum.capped, sum.lastShown = true, job.shown
				return job.idx + lookahead
			}
			return noLimit
		})
	if err != nil {
		return "", searchSummary{}, scanError(ctx, q.root, err)
	}
	sum.unsearched, sum.stopped = stats.cut, stats.stopped
	return b.String(), sum, nil
}

// searchSummary is what search_code's totals line reports.
type searchSummary struct {
	scanTally
	// root, pattern, literal, ignoreCase and glob are the search made.
	root       string
	pattern    string
	literal    bool
	ignoreCase bool
	glob       string
	limit      int
	// start is the first match shown, 1-based; passed counts the matches
	// before it.
	start, passed int
	// shownFiles counts the files with matches shown.
	shownFiles int
	// outputFull is true when the output reached maxSearchOutput; the cap
	// came from it rather than from limit.
	outputFull bool
	// lastShown is the last file with matches shown, once capped.
	lastShown string
	// cutLines counts the lines of a streamed file matched only in their
	// first maxStreamLine bytes.
	cutLines int
	// stopped is set when the walk ran out of its budget.
	stopped *ignore.LimitError
}

// String is the totals line, in parentheses, without a line end.
func (s searchSummary) String() string {
	var totals string
	skipped := s.skips.String()
	switch {
	case s.read == 0 && skipped == "":
		what := "it is empty, or everything in it is ignored by git"
		if s.glob != "" {
			what = fmt.Sprintf("nothing in it matches glob %q that git does not ignore", s.glob)
		}
		totals = fmt.Sprintf("(no files searched under %s: %s)", s.root, what)
	case s.shown == 0:
		totals = fmt.Sprintf("(no matches for %s in %s searched", describePattern(s.pattern, s.literal), wording.CountOf(s.read, "file", "files"))
		if s.ignoreCase {
			totals += ", ignoring case"
		}
	case s.capped && (s.left > 0 || s.unsearched):
		totals = s.capNote()
	default:
		totals = fmt.Sprintf("(%s in %s; %s searched",
			s.matchesShown(), wording.CountOf(s.shownFiles, "file", "files"), wording.CountOf(s.read, "file", "files"))
	}
	if s.cutLines > 0 {
		totals = strings.TrimSuffix(totals, ")") + fmt.Sprintf("; only the first %d MiB of %s over %d MiB searched",
			maxStreamLine>>20, wording.CountOf(s.cutLines, "line", "lines"), maxStreamLine>>20)
	}
	if skipped != "" {
		if s.read == 0 && s.shown == 0 {
			totals = fmt.Sprintf("(no files searched under %s", s.root)
		}
		totals += "; " + skipped
	}
	if s.stopped != nil {
		totals = strings.TrimSuffix(totals, ")") + "; " + s.stopped.Note()
	}
	if !strings.HasSuffix(totals, ")") {
		totals += ")"
	}
	return totals
}

// matchesShown names the matches shown: "12 matches" from the first one,
// "matches 201-212" (or "match 201") from a later start.
func (s searchSummary) matchesShown() string {
	switch {
	case s.start <= 1:
		return wording.CountOf(s.shown, "match", "matches")
	case s.shown == 1:
		return fmt.Sprintf("match %d", s.start)
	}
	return fmt.Sprintf("matches %d-%d", s.start, s.start+s.shown-1)
}

// capNote is the open totals line of a search stopped at its cap with
// more left: what was shown, why it stopped, what was left out and where
// to continue.
func (s searchSummary) capNote() string {
	reason := fmt.Sprintf("limit=%d reached", s.limit)
	if s.outputFull {
		reason = fmt.Sprintf("output limit of %d KiB reached", maxSearchOutput>>10)
	}
	totals := fmt.Sprintf("(%s shown in %s; %s searched; %s",
		s.matchesShown(), wording.CountOf(s.shownFiles, "file", "files"), wording.CountOf(s.read, "file", "files"), reason)
	switch {
	case s.left > 0 && s.unsearched:
		totals += fmt.Sprintf(": at least %s in %s left out, and files after those were not searched",
			wording.CountOf(s.left, "more match", "more matches"), wording.CountOf(s.leftFiles, "file", "files"))
	case s.left > 0:
		totals += fmt.Sprintf(": %s in %s left out",
			wording.CountOf(s.left, "more match", "more matches"), wording.CountOf(s.leftFiles, "file", "files"))
	default:
		totals += fmt.Sprintf(" at %s; files after it were not searched and may hold more", s.lastShown)
	}
	return totals + fmt.Sprintf("; continue with start=%d, or narrow pattern, path or glob", max(s.start, 1)+s.shown)
}

// fileHits is what one file gave: its matching lines (the first skip+limit
// of them) and their context, ready to print once the buffer is reused.
type fileHits struct {
	status readStatus
	// total counts every matching line, shown or not.
	total int
	// matches are the line numbers of the first matches, ascending.
	matches []int
	// lines are the matches and their context, ascending by number.
	lines []shownLine
	// cutLines counts the lines of a streamed file matched only in their
	// first maxStreamLine bytes.
	cutLines int
}

type shownLine struct {
	no   int
	text string
}

// searchFile searches one file: read whole, or streamed when it is too
// large for that and was named as the path to search.
func (q *searchQuery) searchFile(ctx context.Context, st *workerState, job fileJob) fileHits {
	buf, status := st.readFile(job.t)
	if status == readLarge && job.named {
		return q.searchStream(ctx, st, job.t)
	}
	if status != readOK {
		return fileHits{status: status}
	}
	var fh fileHits
	var hits []lineHit
	q.m.scan(buf, &st.folded, func(h lineHit) bool {
		fh.total++
		if len(hits) < q.keep() {
			hits = append(hits, h)
		}
		return true
	})
	if len(hits) == 0 {
		return fh
	}
	fh.matches = make([]int, len(hits))
	last := 0 // the last line number added
	for i, h := range hits {
		fh.matches[i] = h.no
		if q.context > 0 {
			// Lines before, not going back past what is already added.
			var before []shownLine
			s := h.start
			for n := h.no - 1; n > last && n >= h.no-q.context && s > 0; n-- {
				ps := bytesLastLine(buf, s-1)
				before = append(before, shownLine{no: n, text: lineText(buf[ps : s-1])})
				s = ps
			}
			for j := len(before) - 1; j >= 0; j-- {
				fh.lines = append(fh.lines, before[j])
			}
		}
		fh.lines = append(fh.lines, shownLine{no: h.no, text: lineText(buf[h.start:h.end])})
		last = h.no
		if q.context > 0 {
			// Lines after, stopping before the next match.
			stop := h.no + q.context
			if i+1 < len(hits) {
				stop = min(stop, hits[i+1].no-1)
			}
			e := h.end
			for n := h.no + 1; n <= stop && e < len(buf); n++ {
				ls := e + 1
				if ls >= len(buf) {
					break
				}
				_, le := lineBounds(buf, ls)
				fh.lines = append(fh.lines, shownLine{no: n, text: lineText(buf[ls:le])})
				last, e = n, le
			}
		}
	}
	return fh
}

// bytesLastLine returns the start of the line ending at buf[end] (a '\n'
// or the buffer's end).
func bytesLastLine(buf []byte, end int) int {
	for i := end - 1; i >= 0; i-- {
		if buf[i] == '\n' {
			return i + 1
		}
	}
	return 0
}

// render writes matches from to from+k-1 (0-based) of the file and their
// context, and returns how many of those matches it wrote: fewer than k
// when b reached budget before one (a match is always written on an empty
// b). With context, "--" separates groups that are not adjacent, within
// and across files; sepBefore says whether output from an earlier file
// precedes.
func (fh *fileHits) render(b *strings.Builder, shown string, from, k, context int, sepBefore bool, budget int) int {
	to := from + k
	begin, end := fh.matches[from]-context, fh.matches[to-1]+context
	prev, mi := -1, from
	written, lastWritten := 0, -1 // matches written; the last one's line
	for _, l := range fh.lines {
		if l.no < begin {
			continue
		}
		if l.no > end {
			break
		}
		for mi < to && fh.matches[mi] < l.no {
			mi++
		}
		match := mi < to && fh.matches[mi] == l.no
		// A match, or a context line before one, waits for room; the
		// context after a match written goes with it.
		if (match || lastWritten < 0 || l.no > lastWritten+context) && b.Len() >= budget {
			return written
		}
		if context > 0 && (prev >= 0 && l.no != prev+1 || prev < 0 && sepBefore) {
			b.WriteString("--\n")
		}
		prev = l.no
		sep := byte('-')
		if match {
			sep = ':'
			written, lastWritten = written+1, l.no
		}
		b.WriteString(shown)
		b.WriteByte(sep)
		b.WriteString(strconv.Itoa(l.no))
		b.WriteByte(sep)
		b.WriteString(l.text)
		b.WriteByte('\n')
	}
	return written
}

// keep is how many matches of a file are kept to show: those passed over
// before start, and a page's worth.
func (q *searchQuery) keep() int { return q.skip + q.limit }

// lineText is a line as shown: without a trailing \r, valid UTF-8, and cut
// at maxLineBytes.
func lineText(line []byte) string { return cutLine(trimCR(line), 0) }

// cutLine is line, without its ending, as shown: valid UTF-8, and cut at
// maxLineBytes; more counts bytes of the line past line's end, not at
// hand, for the note of how much was cut.
func cutLine(line []byte, more int) string {
	cut := more
	if len(line) > maxLineBytes {
		i := maxLineBytes
		for i > 0 && !utf8.RuneStart(line[i]) {
			i--
		}
		cut += len(line) - i
		line = line[:i]
	}
	s := string(line)
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	if cut > 0 {
		s += fmt.Sprintf("… (+%d bytes)", cut)
	}
	return s
}

// unwrapPath drops the path an *fs.PathError repeats, since messages name
// the path already.
func unwrapPath(err error) error {
	if pe := (*fs.PathError)(nil); errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

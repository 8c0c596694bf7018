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
	"github.com/ramabana/ramabana-mcp/sdk"
	"github.com/ramabana/ramabana-mcp/sdk/roots"
)

const (
	defaultSearchResults = 200
	maxSearchResults     = 2000
	maxContextLines      = 10
	// maxLineBytes bounds a shown line; minified files have huge ones.
	maxLineBytes = 400
	// maxSearchOutput bounds the text of one call whatever max_results
	// says; past it the search stops as at the cap.
	maxSearchOutput = 512 << 10
	// lookahead is how many files past the cap are still searched, to tell
	// the model how much it is missing. It is fixed, so the counts are the
	// same on every run and machine.
	lookahead = 64
)

type searchArgs struct {
	Pattern       string `json:"pattern" jsonschema:"What to find: a Go regular expression (RE2 syntax, e.g. func \\w+Handler\\(), or with literal: true the exact text. Matched within one line at a time."`
	Literal       bool   `json:"literal,omitempty" jsonschema:"Treat pattern as plain text, not a regular expression. Default false."`
	CaseSensitive *bool  `json:"case_sensitive,omitempty" jsonschema:"Match case exactly. Default true; false ignores case, as (?i) does."`
	Path          string `json:"path,omitempty" jsonschema:"Directory or file to search: relative to the first served folder, or absolute inside a served folder. Default \".\" (the first served folder)."`
	Glob          string `json:"glob,omitempty" jsonschema:"Only files whose path relative to path matches this glob (* ? [abc] {a,b} **); a glob without '/' matches base names at any depth, e.g. \"*.go\", \"*_test.{ts,tsx}\", \"src/**/*.py\". Ignored when path is a file. Default: all files."`
	ContextLines  int    `json:"context_lines,omitempty" jsonschema:"Lines of context to show before and after each match, 0 to 10. Default 0."`
	MaxResults    int    `json:"max_results,omitempty" jsonschema:"Most matching lines to show. Default 200, at most 2000."`
	MaxFiles      int    `json:"max_files,omitempty" jsonschema:"Walk budget: stop after reading this many files and directories (ignored ones included). Default 20000, at most 200000."`
	MaxSeconds    int    `json:"max_seconds,omitempty" jsonschema:"Walk budget: stop after this many seconds. Default 10, at most 60."`
}

var searchSpec = sdk.ToolSpec{
	Name:  "search_code",
	Title: "Search code",
	Kind:  sdk.KindRead,
	Description: `Search file contents for a regular expression (Go RE2 syntax) or, with literal: true, for exact text, like ripgrep: recursively, in parallel, leaving out what git ignores (.gitignore at every level, .git/info/exclude) and the .git directory, binary files (a NUL byte in the first 8 KiB) and files over 2 MiB. Symlinks to files inside the served folders are followed; other symlinks are not.

Matching is line by line: a line matches when the pattern matches inside it; a match never spans lines, and ^ and $ anchor at line start and end. Case matters unless case_sensitive is false. RE2 has no lookaround or backreferences.

Output, grep style, sorted by path then line:
  path:line:content   a matching line
  path-line-content   a context line (with context_lines)
  --                  between groups that are not adjacent (with context_lines)
Paths are relative to the first served folder (absolute for files in another one), as every tool takes them. Lines over 400 bytes are cut, with "…" and the count of bytes left out. The last line gives the totals, e.g. "(12 matches in 4 files; 230 files searched)", and says how many matches and files were left out when max_results (default 200, at most 2000) was reached; past the cap the search stops, so narrow the pattern, path or glob, or raise max_results. The walk stops after reading max_files files and directories (default 20000) or after max_seconds (default 10), and the last line then says so; /proc, /sys and /dev are never walked.

Examples: {"pattern": "func \\w+\\(ctx"}; {"pattern": "TODO", "glob": "*.py", "context_lines": 2}; {"pattern": "a.b[0]", "literal": true, "case_sensitive": false, "path": "src"}.`,
}

var searchSchema = sdk.SchemaFor[searchArgs](func(p map[string]*jsonschema.Schema) {
	boolDefault(p["literal"], false)
	boolDefault(p["case_sensitive"], true)
	p["case_sensitive"].Types, p["case_sensitive"].Type = nil, "boolean"
	p["path"].Default = []byte(`"."`)
	p["pattern"].MinLength = new(1)
	sdk.IntDefault(p["context_lines"], 0, 0, maxContextLines)
	sdk.IntDefault(p["max_results"], defaultSearchResults, 1, maxSearchResults)
	sdk.IntDefault(p["max_files"], ignore.DefaultMaxFiles, 1, ignore.MaxMaxFiles)
	sdk.IntDefault(p["max_seconds"], ignore.DefaultMaxSeconds, 1, ignore.MaxMaxSeconds)
})

// searchQuery is a validated search, shared by the workers.
type searchQuery struct {
	m *matcher
	// limit is the most matches a file can show: max_results.
	limit   int
	context int
}

func (s *server) searchCode(ctx context.Context, r *roots.Roots, args searchArgs) (*sdk.Result, error) {
	caseSensitive := args.CaseSensitive == nil || *args.CaseSensitive
	m, err := newMatcher(args.Pattern, args.Literal, caseSensitive)
	if err != nil {
		return nil, err
	}
	if args.ContextLines < 0 || args.ContextLines > maxContextLines {
		return nil, sdk.Failf("context_lines must be between 0 and %d (got %d)", maxContextLines, args.ContextLines)
	}
	if args.MaxResults < 0 {
		return nil, sdk.Failf("max_results must be at least 1 (got %d); leave it out for the default of %d", args.MaxResults, defaultSearchResults)
	}
	limit := args.MaxResults
	if limit == 0 {
		limit = defaultSearchResults
	}
	limit = min(limit, maxSearchResults)
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
	shownRoot := display(r, t.Abs)
	if _, err := t.Stat(); err != nil {
		if os.IsNotExist(err) {
			return nil, sdk.Failf("%s does not exist; give a directory or file inside the served folders", shownRoot)
		}
		return nil, sdk.Failf("cannot search %s: %v", shownRoot, unwrapPath(err))
	}

	q := &searchQuery{m: m, limit: limit, context: args.ContextLines}
	var (
		b                           strings.Builder
		skips                       skipCounts
		searched, shown, shownFiles int
		leftMatches, leftFiles      int
		capped, outputFull          bool
		lastShown                   string
	)
	stats, err := scanOrdered(ctx, walkSpec{r: r, t: t, glob: args.Glob, opts: opts}, newWorkerState,
		func(_ context.Context, st *workerState, job fileJob) fileHits {
			return q.searchFile(st, job.t)
		},
		func(job fileJob, fh fileHits) int {
			if fh.status != readOK {
				skips.add(fh.status)
				return noLimit
			}
			searched++
			if fh.total == 0 {
				return noLimit
			}
			if capped {
				leftMatches += fh.total
				leftFiles++
				return noLimit
			}
			k := min(len(fh.matches), limit-shown)
			fh.render(&b, job.shown, k, q.context, shown > 0)
			shown += k
			shownFiles++
			if fh.total > k {
				leftMatches += fh.total - k
				leftFiles++
			}
			outputFull = b.Len() >= maxSearchOutput
			if shown >= limit || outputFull {
				capped, lastShown = true, job.shown
				return job.idx + lookahead
			}
			return noLimit
		})
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, sdk.Failf("cannot search %s: %v", shownRoot, unwrapPath(err))
	}

	var totals string
	skipped := skips.String()
	switch {
	case searched == 0 && skipped == "":
		what := "it is empty, or everything in it is ignored by git"
		if args.Glob != "" {
			what = fmt.Sprintf("nothing in it matches glob %q that git does not ignore", args.Glob)
		}
		totals = fmt.Sprintf("(no files searched under %s: %s)", shownRoot, what)
	case shown == 0:
		totals = fmt.Sprintf("(no matches for %s in %s searched", describePattern(args.Pattern, args.Literal), plural(searched, "file", "files"))
		if !caseSensitive {
			totals += ", ignoring case"
		}
	default:
		totals = fmt.Sprintf("(%s in %s; %s searched",
			plural(shown, "match", "matches"), plural(shownFiles, "file", "files"), plural(searched, "file", "files"))
		if capped && shown > 0 && (leftMatches > 0 || stats.cut) {
			reason := fmt.Sprintf("max_results=%d reached", limit)
			if outputFull {
				reason = fmt.Sprintf("output limit of %d KiB reached", maxSearchOutput>>10)
			}
			totals = fmt.Sprintf("(%s shown in %s; %s searched; %s",
				plural(shown, "match", "matches"), plural(shownFiles, "file", "files"), plural(searched, "file", "files"), reason)
			switch {
			case leftMatches > 0 && stats.cut:
				totals += fmt.Sprintf(": at least %s in %s left out, and files after those were not searched",
					plural(leftMatches, "more match", "more matches"), plural(leftFiles, "file", "files"))
			case leftMatches > 0:
				totals += fmt.Sprintf(": %s in %s left out",
					plural(leftMatches, "more match", "more matches"), plural(leftFiles, "file", "files"))
			default:
				totals += fmt.Sprintf(" at %s; files after it were not searched and may hold more", lastShown)
			}
			totals += "; narrow pattern, path or glob, or raise max_results"
		}
	}
	if skipped != "" {
		if searched == 0 && shown == 0 {
			totals = fmt.Sprintf("(no files searched under %s", shownRoot)
		}
		totals += "; " + skipped
	}
	if stats.stopped != nil {
		totals = strings.TrimSuffix(totals, ")") + "; " + stats.stopped.Note()
	}
	if strings.HasPrefix(totals, "(") && !strings.HasSuffix(totals, ")") {
		totals += ")"
	}
	b.WriteString(totals)
	return sdk.TextResult(b.String()), nil
}

// fileHits is what one file gave: its matching lines (the first limit of
// them) and their context, ready to print once the buffer is reused.
type fileHits struct {
	status readStatus
	// total counts every matching line, shown or not.
	total int
	// matches are the line numbers of the first matches, ascending.
	matches []int
	// lines are the matches and their context, ascending by number.
	lines []shownLine
}

type shownLine struct {
	no   int
	text string
}

func (q *searchQuery) searchFile(st *workerState, t *roots.Target) fileHits {
	buf, status := st.readFile(t)
	if status != readOK {
		return fileHits{status: status}
	}
	var fh fileHits
	var hits []lineHit
	q.m.scan(buf, &st.folded, func(h lineHit) bool {
		fh.total++
		if len(hits) < q.limit {
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

// render writes the first k matches of the file and their context. With
// context, "--" separates groups that are not adjacent, within and across
// files; sepBefore says whether output from an earlier file precedes.
func (fh *fileHits) render(b *strings.Builder, shown string, k, context int, sepBefore bool) {
	lastMatch := fh.matches[k-1]
	end := lastMatch + context
	prev := -1
	mi := 0
	for _, l := range fh.lines {
		if l.no > end {
			break
		}
		if context > 0 && (prev >= 0 && l.no != prev+1 || prev < 0 && sepBefore) {
			b.WriteString("--\n")
		}
		prev = l.no
		for mi < k && fh.matches[mi] < l.no {
			mi++
		}
		sep := byte('-')
		if mi < k && fh.matches[mi] == l.no {
			sep = ':'
		}
		b.WriteString(shown)
		b.WriteByte(sep)
		b.WriteString(strconv.Itoa(l.no))
		b.WriteByte(sep)
		b.WriteString(l.text)
		b.WriteByte('\n')
	}
}

// lineText is a line as shown: without a trailing \r, valid UTF-8, and cut
// at maxLineBytes.
func lineText(line []byte) string {
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	cut := 0
	if len(line) > maxLineBytes {
		i := maxLineBytes
		for i > 0 && !utf8.RuneStart(line[i]) {
			i--
		}
		cut = len(line) - i
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

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// unwrapPath drops the path an *fs.PathError repeats, since messages name
// the path already.
func unwrapPath(err error) error {
	if pe := (*fs.PathError)(nil); errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

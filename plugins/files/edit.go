package files

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/ramabana/ramabana-mcp/plugins/internal/hashline"
	"github.com/ramabana/ramabana-mcp/plugins/internal/wording"
	"github.com/ramabana/ramabana-mcp/sdk"
	"github.com/ramabana/ramabana-mcp/sdk/roots"
)

// Edit operations.
const (
	opReplace     = "replace"
	opInsertAfter = "insert_after"
	opDelete      = "delete"
)

// staleContext is how many lines either side of a stale anchor the error
// shows.
const staleContext = 2

type editArgs struct {
	Path  string     `json:"path" jsonschema:"file, relative to the first served folder"`
	Edits []lineEdit `json:"edits" jsonschema:"the edits, in the forms above"`
}

type lineEdit struct {
	Op      string `json:"op"`
	Line    int    `json:"line"`
	Hash    string `json:"hash,omitempty"`
	EndLine int    `json:"end_line,omitempty"`
	EndHash string `json:"end_hash,omitempty"`
	Text    string `json:"text,omitempty"`
}

var editSpec = sdk.ToolSpec{
	Name:  "edit_file",
	Title: "Edit file by line hash",
	Kind:  sdk.KindWrite,
	Description: `Edit a text file by view_file's line numbers and hashes; edits apply together, all numbered on the file as it is now, and must not overlap:
{"op":"replace","line":L,"hash":H,"end_line":E,"end_hash":EH,"text":T} (end optional)
{"op":"insert_after","line":L,"hash":H,"text":T} (line 0, no hash: the top)
{"op":"delete","line":L,"hash":H,"end_line":E,"end_hash":EH}
T is lines joined by "\n", fully indented, without "lineno|hash|" prefixes. A stale anchor rejects the whole batch and the error shows the current lines. Returns the edited lines with fresh hashes.`,
}

var editSchema = sdk.LazySchemaFor[editArgs](func(p map[string]*jsonschema.Schema) {
	one := 1
	p["edits"].Type, p["edits"].Types = "array", nil
	p["edits"].MinItems = &one
	e := p["edits"].Items.Properties
	sdk.Enum(e["op"], opReplace, opInsertAfter, opDelete)
	zero := 0.0
	e["line"].Minimum = &zero
	e["end_line"].Minimum = &zero
	e["hash"].Pattern = "^([0-9a-fA-F]{4})?$"
	e["end_hash"].Pattern = "^([0-9a-fA-F]{4})?$"
})

// span is one edit as a replacement of lines a..b (1-based, inclusive) of
// the current file; b == a-1 is an insertion before line a.
type span struct {
	edit  int // 1-based position in the batch
	a, b  int
	lines []string // without line endings
}

// anchor is a line the model claims has hash.
type anchor struct {
	edit int
	line int
	hash string
}

func (s *server) editFile(ctx context.Context, r *roots.Roots, args editArgs) (*sdk.Result, error) {
	if len(args.Edits) == 0 {
		return nil, sdk.Failf("edits is empty; give at least one edit")
	}
	spans, anchors, err := parseEdits(args.Edits)
	if err != nil {
		return nil, err
	}
	t, err := resolveWrite(r, args.Path)
	if err != nil {
		return nil, err
	}
	display := r.Rel(t.Abs)
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	var summary string
	// The anchors are checked under the file's lock against what it holds
	// then: a concurrent change makes them stale, never lost.
	before, after, err := update(ctx, t, display, "edit_file", func(text string) (string, error) {
		body, sum, err := applyEdits(text, spans, anchors, display)
		if err != nil {
			return "", err
		}
		summary = sum
		return body, nil
	})
	if err != nil {
		return nil, err
	}
	res := sdk.TextResult(summary)
	res.Changes = []sdk.FileChange{sdk.NewFileChange(t.Abs, before, after)}
	return res, nil
}

// applyEdits checks the anchors against text (a file's content as UTF-8,
// without its BOM) and applies the spans, returning the new text and the summary to
// show. spans is sorted in place.
func applyEdits(text string, spans []span, anchors []anchor, display string) (string, string, error) {
	lines := splitLines(text)
	if err := checkAnchors(lines, anchors, display); err != nil {
		return "", "", err
	}
	slices.SortStableFunc(spans, func(x, y span) int {
		if c := cmp.Compare(x.a, y.a); c != 0 {
			return c
		}
		return cmp.Compare(x.b-x.a, y.b-y.a) // an insertion before a range at the same line
	})
	for i := 1; i < len(spans); i++ {
		p, q := spans[i-1], spans[i]
		if q.a <= p.b || (p.b < p.a && q.b < q.a && p.a == q.a) {
			return "", "", sdk.Failf("edits %d and %d overlap (%s and %s); nothing was changed. Combine them into one edit", min(p.edit, q.edit), max(p.edit, q.edit), describeSpan(p), describeSpan(q))
		}
	}
	out, regions := applySpans(lines, spans, detectEOL(text), len(text) == 0 || strings.HasSuffix(text, "\n"))
	newLines := splitLines(out)
	var b strings.Builder
	fmt.Fprintf(&b, "edited %s: %s applied, %s now (was %d). Edited regions with one line of context (lineno|hash|content):\n",
		display, wording.Count(len(spans), "edit"), wording.Count(len(newLines), "line"), len(lines))
	writeRegions(&b, newLines, regions)
	return out, b.String(), nil
}

// parseEdits checks each edit on its own and turns it into a span and the
// anchors to verify.
func parseEdits(edits []lineEdit) ([]span, []anchor, error) {
	var problems []string
	bad := func(i int, format string, args ...any) {
		problems = append(problems, fmt.Sprintf("edit %d: ", i)+fmt.Sprintf(format, args...))
	}
	var spans []span
	var anchors []anchor
	for i0, e := range edits {
		i := i0 + 1
		hash, endHash := strings.ToLower(e.Hash), strings.ToLower(e.EndHash)
		if n, p := viewPrefix(e.Text); n > 0 {
			bad(i, "%s", prefixProblem("text", n, p))
			continue
		}
		switch e.Op {
		case opReplace, opDelete:
			switch {
			case e.Line < 1:
				bad(i, "%s needs line 1 or more, got %d", e.Op, e.Line)
				continue
			case hash == "":
				bad(i, "hash is missing: give the 4-hex-digit hash view_file shows for line %d", e.Line)
				continue
			case e.EndLine != 0 && e.EndLine < e.Line:
				bad(i, "end_line %d is before line %d", e.EndLine, e.Line)
				continue
			case e.EndLine != 0 && endHash == "":
				bad(i, "end_hash is missing: give the hash view_file shows for end_line %d", e.EndLine)
				continue
			case e.EndLine == 0 && endHash != "":
				bad(i, "end_hash is set without end_line")
				continue
			case e.Op == opDelete && e.Text != "":
				bad(i, "delete takes no text; use replace to change lines")
				continue
			}
			end := max(e.Line, e.EndLine)
			anchors = append(anchors, anchor{edit: i, line: e.Line, hash: hash})
			if e.EndLine != 0 {
				anchors = append(anchors, anchor{edit: i, line: e.EndLine, hash: endHash})
			}
			sp := span{edit: i, a: e.Line, b: end}
			if e.Op == opReplace {
				sp.lines = textLines(e.Text)
			}
			spans = append(spans, sp)
		case opInsertAfter:
			switch {
			case e.Line < 0:
				bad(i, "insert_after needs line 0 or more, got %d", e.Line)
				continue
			case e.Line > 0 && hash == "":
				bad(i, "hash is missing: give the 4-hex-digit hash view_file shows for line %d", e.Line)
				continue
			case e.EndLine != 0 || endHash != "":
				bad(i, "insert_after takes no end_line or end_hash")
				continue
			case e.Text == "":
				bad(i, "insert_after needs text (use \"\\n\" for one empty line)")
				continue
			}
			if e.Line > 0 {
				anchors = append(anchors, anchor{edit: i, line: e.Line, hash: hash})
			}
			spans = append(spans, span{edit: i, a: e.Line + 1, b: e.Line, lines: textLines(e.Text)})
		default:
			bad(i, "op %q is not one of replace, insert_after, delete", e.Op)
		}
	}
	if len(problems) > 0 {
		return nil, nil, sdk.Failf("edit_file changed nothing: %s", strings.Join(problems, "; "))
	}
	return spans, anchors, nil
}

// textLines splits an edit's text into lines without endings; one final
// newline is optional.
func textLines(text string) []string {
	if text == "" {
		return nil
	}
	text = strings.ReplaceAll(text, "\r\n", "\n")
	return strings.Split(strings.TrimSuffix(text, "\n"), "\n")
}

// checkAnchors verifies every anchor against the current lines and, if any
// is stale, returns an error showing the current lines around each.
func checkAnchors(lines []string, anchors []anchor, display string) error {
	var b strings.Builder
	stale := 0
	for _, an := range anchors {
		if an.line <= len(lines) && hashline.Hash(content(lines[an.line-1])) == an.hash {
			continue
		}
		stale++
		b.WriteString("\n")
		if an.line > len(lines) {
			fmt.Fprintf(&b, "edit %d: line %d is past the end (%s has %s); its last lines:\n", an.edit, an.line, display, wording.Count(len(lines), "line"))
			writeLines(&b, lines, len(lines)-staleContext, len(lines))
			continue
		}
		fmt.Fprintf(&b, "edit %d: line %d now has hash %s, not %s", an.edit, an.line, hashline.Hash(content(lines[an.line-1])), an.hash)
		if moved := findHash(lines, an.hash, 3); len(moved) > 0 {
			fmt.Fprintf(&b, " (a line with hash %s is now at %s)", an.hash, joinInts(moved))
		}
		b.WriteString(":\n")
		writeLines(&b, lines, an.line-staleContext, an.line+staleContext)
	}
	if stale == 0 {
		return nil
	}
	return sdk.Failf("edit_file changed nothing in %s: %s the file as it is now. Current lines (lineno|hash|content):%s\nRetry the whole batch with these line numbers and hashes, or view_file again.",
		display, staleAnchors(stale, len(anchors)), b.String())
}

// staleAnchors says how many of the batch's anchors do not match.
func staleAnchors(stale, all int) string {
	switch {
	case all == 1:
		return "its anchor does not match"
	case stale == 1:
		return fmt.Sprintf("1 of its %d anchors does not match", all)
	case stale == all:
		return fmt.Sprintf("none of its %d anchors match", all)
	}
	return fmt.Sprintf("%d of its %d anchors do not match", stale, all)
}

// findHash returns up to max line numbers whose hash is h.
func findHash(lines []string, h string, limit int) []int {
	var found []int
	for i, l := range lines {
		if hashline.Hash(content(l)) == h {
			if found = append(found, i+1); len(found) == limit {
				break
			}
		}
	}
	return found
}

func joinInts(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = fmt.Sprintf("line %d", n)
	}
	return strings.Join(s, ", ")
}

func describeSpan(s span) string {
	switch {
	case s.b < s.a:
		return fmt.Sprintf("an insert after line %d", s.a-1)
	case s.a == s.b:
		return fmt.Sprintf("line %d", s.a)
	}
	return fmt.Sprintf("lines %d-%d", s.a, s.b)
}

// region is a range of new line numbers an edit produced; last < first for
// a deletion point between first-1 and first.
type region struct{ first, last int }

// applySpans builds the new file from lines and sorted, non-overlapping
// spans. Untouched lines keep their own endings; new lines get eol; the
// last line ends with a newline only if the file did (finalNL).
func applySpans(lines []string, spans []span, eol string, finalNL bool) (string, []region) {
	type outLine struct{ text, end string }
	out := make([]outLine, 0, len(lines)+8)
	keep := func(from, to int) { // 1-based, inclusive
		for n := from; n <= to; n++ {
			out = append(out, outLine{content(lines[n-1]), ending(lines[n-1])})
		}
	}
	regions := make([]region, 0, len(spans))
	next := 1
	for _, s := range spans {
		keep(next, s.a-1)
		first := len(out) + 1
		for _, l := range s.lines {
			out = append(out, outLine{l, eol})
		}
		regions = append(regions, region{first, len(out)})
		next = s.b + 1
	}
	keep(next, len(lines))

	size := 0
	for i := range out {
		switch {
		case i == len(out)-1 && !finalNL:
			out[i].end = ""
		case out[i].end == "":
			out[i].end = eol // the old last line, no longer last
		}
		size += len(out[i].text) + len(out[i].end)
	}
	var b strings.Builder
	b.Grow(size)
	for _, l := range out {
		b.WriteString(l.text)
		b.WriteString(l.end)
	}
	return b.String(), regions
}

// writeRegions shows each region with one line of context, merging regions
// that touch and separating the rest with "...".
func writeRegions(b *strings.Builder, lines []string, regions []region) {
	if len(lines) == 0 {
		b.WriteString("(the file is now empty)")
		return
	}
	shown := 0
	prevLast := 0
	for i := 0; i < len(regions); i++ {
		first, last := regions[i].first-1, regions[i].last+1
		for i+1 < len(regions) && regions[i+1].first-1 <= last+1 {
			i++
			last = max(last, regions[i].last+1)
		}
		first, last = max(first, 1), min(last, len(lines))
		if first > last {
			continue
		}
		if shown > 0 {
			if first > prevLast+1 {
				b.WriteString("\n...")
			}
			b.WriteByte('\n')
		}
		if shown >= maxShownLines || b.Len()+256 > maxViewOutput {
			fmt.Fprintf(b, "(more edited lines left out; use view_file from line %d)", first)
			return
		}
		if !writeLines(b, lines, first, min(last, first+maxShownLines-shown-1)) {
			return
		}
		shown += last - first + 1
		prevLast = last
	}
}

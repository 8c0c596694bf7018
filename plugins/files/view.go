package files

import (
	"bytes"
	"context"
	"fmt"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/ramabana/ramabana-mcp/internal/textcut"
	"github.com/ramabana/ramabana-mcp/plugins/internal/hashline"
	"github.com/ramabana/ramabana-mcp/plugins/internal/wording"
	"github.com/ramabana/ramabana-mcp/sdk"
	"github.com/ramabana/ramabana-mcp/sdk/roots"
)

const (
	defaultViewLimit = 2000
	// maxViewOutput is a page's byte budget: the page stops before the
	// line that would pass it, and a line longer than a whole page is shown
	// in parts, read on with column.
	maxViewOutput = 32 << 10
)

type viewArgs struct {
	Path   string `json:"path" jsonschema:"file, relative to the first served folder"`
	Start  int    `json:"start,omitempty" jsonschema:"first line"`
	Column int    `json:"column,omitempty" jsonschema:"first byte, to read on in a line longer than a page"`
	Limit  int    `json:"limit,omitempty" jsonschema:"most lines"`
}

var viewSpec = sdk.ToolSpec{
	Name:        "view_file",
	Title:       "View file",
	Kind:        sdk.KindRead,
	Description: `Show a text file as "lineno|hash|content" lines, e.g. "12|a3f0|    return x"; edit_file anchors on lineno and hash. Long files and lines are paged: a last line says how to continue. UTF-16, windows-1252 and ISO-8859-1 text is shown as UTF-8 (edits keep its encoding); other binary files are refused.`,
}

var viewSchema = sdk.LazySchemaFor[viewArgs](func(p map[string]*jsonschema.Schema) {
	sdk.IntDefault(p["start"], 1, 1, 0)
	sdk.IntDefault(p["column"], 1, 1, 0)
	sdk.IntDefault(p["limit"], defaultViewLimit, 1, 0)
})

func (s *server) viewFile(_ context.Context, r *roots.Roots, args viewArgs) (*sdk.Result, error) {
	if args.Start < 0 || args.Limit < 0 || args.Column < 0 {
		return nil, sdk.Failf("start, column and limit must be positive (got start=%d, column=%d, limit=%d)", args.Start, args.Column, args.Limit)
	}
	t, err := resolveRead(r, args.Path)
	if err != nil {
		return nil, err
	}
	f, err := readFile(t, r.Rel(t.Abs), "view_file")
	if err != nil {
		return nil, err
	}
	text, err := renderPage(f.text, f.display, page{start: args.Start, column: args.Column, limit: args.Limit}, maxViewOutput)
	if err != nil {
		return nil, err
	}
	if note := encodingNote(f.enc); note != "" {
		text = note + "\n" + text
	}
	return sdk.TextResult(text), nil
}

// page is the part of a file view_file shows: up to limit lines from line
// start, the first from byte column (all 1-based; 0 takes the default).
type page struct{ start, column, limit int }

// renderPage formats a page of data, a file's text as UTF-8 without its
// byte order mark, as view_file shows it, in at most budget bytes of lines
// (the notes come on top).
func renderPage(data []byte, display string, pg page, budget int) (string, error) {
	start, column, limit := max(pg.start, 1), max(pg.column, 1), pg.limit
	if limit == 0 {
		limit = defaultViewLimit
	}
	if len(data) == 0 {
		return fmt.Sprintf("(%s is empty: 0 lines, 0 bytes)", display), nil
	}
	// Find where the page starts.
	pos := 0
	for n := 1; n < start; n++ {
		i := bytes.IndexByte(data[pos:], '\n')
		if i < 0 || pos+i+1 == len(data) {
			return "", sdk.Failf("start=%d is past the end: %s has %s", start, display, wording.Count(countLines(data), "line"))
		}
		pos += i + 1
	}
	total := start - 1 + countLines(data[pos:])

	out := make([]byte, 0, min(len(data)-pos+limit*12, budget+256))
	var num decimal
	num.set(start)
	n, p := start, pos
	for ; n < start+limit && p < len(data); n++ {
		next, end := len(data), len(data)
		if i := bytes.IndexByte(data[p:], '\n'); i >= 0 {
			next, end = p+i+1, p+i
			if end > p && data[end-1] == '\r' {
				end--
			}
		}
		line := data[p:end]
		from := 0
		if n == start && column > 1 {
			if column > len(line) {
				return "", sdk.Failf("column=%d is past the end of line %d, which is %s long", column, n, wording.Count(len(line), "byte"))
			}
			from = column - 1
			for from > 0 && !utf8.RuneStart(line[from]) {
				from-- // begin at the character the byte belongs to
			}
			out = fmt.Appendf(out, "(line %d from byte %d of %d:)\n", n, from+1, len(line))
		}
		part := line[from:]
		prefix := num.n + 6
		if n > start {
			prefix++ // the newline before it
		}
		if len(out)+prefix+len(part) > budget {
			if n > start {
				break // the next page starts with this line
			}
			// A line longer than a page: show what fits, say how to go on.
			if part = textcut.Prefix(part, budget-len(out)-prefix); len(part) == 0 {
				_, size := utf8.DecodeRune(line[from:])
				part = line[from : from+size] // at least one character, to move on
			}
			out = appendLine(out, n > start, num.digits(), hashline.Sum(line), part)
			out = fmt.Appendf(out, "\n(line %d of %d is %s long; bytes %d-%d are shown: continue with start=%d, column=%d)",
				n, total, wording.Count(len(line), "byte"), from+1, from+len(part), n, from+len(part)+1)
			return bytesToString(out), nil
		}
		out = appendLine(out, n > start, num.digits(), hashline.Sum(line), part)
		num.inc()
		p = next
	}
	if last := n - 1; last < total {
		out = fmt.Appendf(out, "\n(lines %d-%d of %d; continue with start=%d)", start, last, total, last+1)
	}
	return bytesToString(out), nil
}

// appendLine appends "<digits>|<hash>|<content>" to out, after a newline
// unless it is the first.
func appendLine(out []byte, newline bool, digits []byte, h uint16, content []byte) []byte {
	if newline {
		out = append(out, '\n')
	}
	out = append(out, digits...)
	out = append(out, '|', 0, 0, 0, 0, '|')
	hashline.Put(out[len(out)-5:], h)
	return append(out, content...)
}

// decimal is a line number kept as ASCII digits, so that counting up costs
// no formatting.
type decimal struct {
	buf [20]byte
	n   int // digits in use, at the end of buf
}

func (d *decimal) set(v int) {
	d.n = 0
	for {
		d.n++
		d.buf[len(d.buf)-d.n] = byte('0' + v%10)
		if v /= 10; v == 0 {
			return
		}
	}
}

func (d *decimal) digits() []byte { return d.buf[len(d.buf)-d.n:] }

func (d *decimal) inc() {
	for i := len(d.buf) - 1; i >= 0; i-- {
		if d.buf[i] < '9' && i >= len(d.buf)-d.n {
			d.buf[i]++
			return
		}
		if i < len(d.buf)-d.n {
			d.buf[i] = '1'
			d.n++
			return
		}
		d.buf[i] = '0'
	}
}

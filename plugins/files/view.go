package files

import (
	"bytes"
	"context"
	"fmt"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/ramabana/ramabana-mcp/plugins/internal/wording"
	"github.com/ramabana/ramabana-mcp/sdk"
	"github.com/ramabana/ramabana-mcp/sdk/roots"
)

const (
	defaultViewLimit = 2000
	// maxViewOutput cuts a page; at least one line is always shown.
	maxViewOutput = 1 << 20
)

type viewArgs struct {
	Path  string `json:"path" jsonschema:"File to show: relative to the first served folder, or absolute inside a served folder."`
	Start int    `json:"start,omitempty" jsonschema:"First line to show, counting from 1. Default 1."`
	Limit int    `json:"limit,omitempty" jsonschema:"Most lines to show. Default 2000."`
}

var viewSpec = sdk.ToolSpec{
	Name:  "view_file",
	Title: "View file",
	Kind:  sdk.KindRead,
	Description: `Show a text file as numbered, hashed lines, one output line per file line:

  <lineno>|<hash>|<content>

for example "12|a3f0|    return x". lineno counts from 1; hash is 4 lowercase hex digits identifying the line's content (FNV-1a of the line without its line ending, folded to 16 bits), which edit_file uses to check that a line has not changed; content is the line without its line ending ("\n" or "\r\n").

Shows at most limit lines (default 2000) starting at line start (default 1), and at most 1 MiB of output. When the page stops before the end of the file, a last line says where to continue, e.g. "(lines 1-2000 of 10000; continue with start=2001)". A start past the last line is an error that says how many lines the file has. An empty file gives a note saying so.

Refuses directories (use list_files) and binary files (a NUL byte in the first 8 KiB, or invalid UTF-8).`,
}

var viewSchema = sdk.SchemaFor[viewArgs](func(p map[string]*jsonschema.Schema) {
	sdk.IntDefault(p["start"], 1, 1, 0)
	sdk.IntDefault(p["limit"], defaultViewLimit, 1, 0)
})

func (s *server) viewFile(_ context.Context, r *roots.Roots, args viewArgs) (*sdk.Result, error) {
	if args.Start < 0 || args.Limit < 0 {
		return nil, sdk.Failf("start and limit must be positive (got start=%d, limit=%d)", args.Start, args.Limit)
	}
	t, err := resolveRead(r, args.Path)
	if err != nil {
		return nil, err
	}
	f, err := readFile(t, r.Rel(t.Abs), "view_file")
	if err != nil {
		return nil, err
	}
	text, err := renderPage(f.data, f.display, args.Start, args.Limit)
	if err != nil {
		return nil, err
	}
	return sdk.TextResult(text), nil
}

// renderPage formats lines start.. of data as view_file shows them; start
// and limit of 0 take their defaults. A leading BOM is not shown, nor part
// of line 1's hash: the edit tools keep it in place.
func renderPage(data []byte, display string, start, limit int) (string, error) {
	data = bytes.TrimPrefix(data, []byte(bom))
	if start == 0 {
		start = 1
	}
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
	// First pass: where the page ends and how much it will print. The
	// common case, the rest of the file in one page, needs only a count.
	end, shown, size := len(data), countLines(data[pos:]), 0
	if shown <= limit {
		size = len(data) - pos + shown*(7+digits(start+shown))
	}
	if shown > limit || size > maxViewOutput {
		end, shown, size = pos, 0, 0
		for shown < limit && end < len(data) {
			next := len(data)
			if i := bytes.IndexByte(data[end:], '\n'); i >= 0 {
				next = end + i + 1
			}
			lineSize := next - end + 7 + digits(start+shown)
			if shown > 0 && size+lineSize > maxViewOutput {
				break
			}
			size += lineSize
			end = next
			shown++
		}
	}
	last := start + shown - 1
	total := last
	if end < len(data) {
		total += countLines(data[end:])
	}

	// Second pass: one buffer of the right size, no allocation per line.
	// The line's end is found while hashing it, in one loop.
	out := make([]byte, 0, size+128)
	var num decimal
	num.set(start)
	cut := false
	for p := pos; p < end; {
		h, prev := uint32(fnvOffset), uint32(fnvOffset)
		i := p
		for ; i < end && data[i] != '\n'; i++ {
			prev = h
			h = (h ^ uint32(data[i])) * fnvPrime
		}
		line, next := data[p:i], i+1
		if i < end && i > p && data[i-1] == '\r' {
			line, h = data[p:i-1], prev
		}
		if len(line) > maxViewOutput {
			line, cut = truncateUTF8(line, maxViewOutput), true
		}
		if p > pos {
			out = append(out, '\n')
		}
		out = append(out, num.digits()...)
		out = append(out, '|', 0, 0, 0, 0, '|')
		putHash(out[len(out)-5:], fold(h))
		out = append(out, line...)
		num.inc()
		p = next
	}
	if cut {
		out = fmt.Appendf(out, "\n(line %d is longer than 1 MiB; only its start is shown)", last)
	}
	if last < total {
		out = fmt.Appendf(out, "\n(lines %d-%d of %d; continue with start=%d)", start, last, total, last+1)
	}
	return bytesToString(out), nil
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

func digits(n int) int {
	d := 1
	for n >= 10 {
		n /= 10
		d++
	}
	return d
}

// truncateUTF8 cuts b to at most n bytes without splitting a character.
func truncateUTF8(b []byte, n int) []byte {
	if len(b) <= n {
		return b
	}
	for n > 0 && !utf8.RuneStart(b[n]) {
		n--
	}
	return b[:n]
}

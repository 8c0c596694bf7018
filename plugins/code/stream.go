package code

import (
	"bufio"
	"context"
	"errors"
	"io"
	"unicode/utf8"

	"github.com/ramabana/ramabana-mcp/internal/textcut"
	"github.com/ramabana/ramabana-mcp/plugins/internal/textenc"
	"github.com/ramabana/ramabana-mcp/sdk/roots"
)

// maxStreamLine bounds the part of one line a streamed search holds and
// matches; the rest of a longer line is read past, and counted.
const maxStreamLine = 1 << 20

// streamBuffer is the read buffer of a streamed search.
const streamBuffer = 64 << 10

// searchStream searches the file t line by line, for a file too large to
// read whole that was named as the path to search. It holds one line (at
// most maxStreamLine bytes of it) and the context lines before it, so its
// memory does not grow with the file, and gives what searchFile gives for
// a file read whole. Text in another encoding than UTF-8 is converted as
// package textenc reads it, judged from the file's first 8 KiB.
func (q *searchQuery) searchStream(ctx context.Context, st *workerState, t *roots.Target) fileHits {
	f, err := t.Open()
	if err != nil {
		return fileHits{status: readFailed}
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, streamBuffer)
	sample, err := br.Peek(textenc.SniffLen)
	if err != nil && !errors.Is(err, io.EOF) {
		return fileHits{status: readFailed}
	}
	lines := lineReader{r: br, max: maxStreamLine}
	switch enc, err := textenc.Sniff(sample, len(sample) == textenc.SniffLen); {
	case err == nil && enc != textenc.UTF8:
		lines.r = bufio.NewReaderSize(enc.NewReader(br), streamBuffer)
	case err != nil && isBinary(sample):
		return fileHits{status: readBinary}
	}

	var fh fileHits
	before := newLineRing(q.context)
	last := 0       // the last line number added to fh.lines
	afterUntil := 0 // the last context line after the last match shown
	for no := 1; ; no++ {
		if no%4096 == 0 && ctx.Err() != nil {
			return fileHits{status: readFailed} // the call ended; nothing shows it
		}
		line, dropped, err := lines.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fileHits{status: readFailed}
		}
		if dropped > 0 {
			fh.cutLines++
		}
		matched := q.m.matchLine(line, &st.folded)
		if matched {
			fh.total++
		}
		switch {
		case matched && len(fh.matches) < q.keep():
			for n := max(no-q.context, last+1); n < no; n++ {
				fh.lines = append(fh.lines, shownLine{no: n, text: before.text(n)})
			}
			fh.matches = append(fh.matches, no)
			fh.lines = append(fh.lines, shownLine{no: no, text: cutLine(trimCR(line), dropped)})
			last, afterUntil = no, no+q.context
		case no <= afterUntil:
			fh.lines = append(fh.lines, shownLine{no: no, text: cutLine(trimCR(line), dropped)})
			last = no
		case len(fh.matches) < q.keep():
			before.put(no, line, dropped)
		}
	}
	return fh
}

// shownPart is the start of a line that cutLine can show: without a
// trailing "\r", and at most a character past maxLineBytes.
func shownPart(line []byte) []byte {
	line = trimCR(line)
	return line[:min(len(line), maxLineBytes+utf8.UTFMax)]
}

// matchLine reports whether the pattern matches line, which holds no
// newline (a trailing "\r" is not part of it).
func (m *matcher) matchLine(line []byte, folded *[]byte) bool {
	if len(trimCR(line)) == 0 {
		return m.re.Match(nil)
	}
	matched := false
	m.scan(line, folded, func(lineHit) bool {
		matched = true
		return false
	})
	return matched
}

// lineRing keeps the shown part of the last lines read, for the context
// before a match.
type lineRing struct {
	slots []ringLine
}

type ringLine struct {
	no   int
	part []byte // shownPart of the line
	more int    // bytes of the line past part
}

func newLineRing(n int) *lineRing { return &lineRing{slots: make([]ringLine, n)} }

// put keeps line number no, dropping the oldest line kept; dropped counts
// bytes of the line already read past.
func (r *lineRing) put(no int, line []byte, dropped int) {
	if len(r.slots) == 0 {
		return
	}
	s := &r.slots[no%len(r.slots)]
	part := shownPart(line)
	s.no, s.part, s.more = no, append(s.part[:0], part...), len(trimCR(line))-len(part)+dropped
}

// text is line no as shown; "" when it is no longer kept.
func (r *lineRing) text(no int) string {
	if len(r.slots) == 0 {
		return ""
	}
	s := r.slots[no%len(r.slots)]
	if s.no != no {
		return ""
	}
	return cutLine(s.part, s.more)
}

// lineReader reads lines of at most max bytes with a buffer of its own.
type lineReader struct {
	r    *bufio.Reader
	max  int
	line []byte
}

// next returns the next line, without its "\n" but with a "\r" before it,
// cut at max bytes (at a character's start), and how many bytes of it were
// read past; io.EOF after the last line. The line is valid until the next
// call.
func (lr *lineReader) next() (line []byte, dropped int, err error) {
	lr.line = lr.line[:0]
	full, read := false, false
	for {
		part, err := lr.r.ReadSlice('\n')
		read = read || len(part) > 0
		end := len(part) > 0 && part[len(part)-1] == '\n'
		if end {
			part = part[:len(part)-1]
		}
		if room := lr.max - len(lr.line); !full && len(part) > room {
			kept := textcut.Prefix(part, room)
			lr.line = append(lr.line, kept...)
			dropped += len(part) - len(kept)
			full = true
		} else if full {
			dropped += len(part)
		} else {
			lr.line = append(lr.line, part...)
		}
		switch {
		case end:
			return lr.line, dropped, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && read:
			return lr.line, dropped, nil // a last line without a newline
		case err != nil:
			return nil, 0, err
		}
	}
}

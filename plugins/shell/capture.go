package shell

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"
)

// headShare is the part of a stream's limit kept from its start; the rest
// is kept from its end, where errors and summaries usually are.
const headShare = 0.6

// capture is an io.Writer that counts every byte of a stream and keeps its
// head and its tail, at most limit bytes in all. It is safe for one writer
// and concurrent readers of Total.
type capture struct {
	total atomic.Int64

	mu               sync.Mutex
	headMax, tailMax int
	head             []byte
	// tail holds at least the last tailMax bytes written after the head
	// filled up; it is compacted when it grows to twice that.
	tail []byte
}

func newCapture(limit int) *capture {
	h := int(float64(limit) * headShare)
	return &capture{headMax: h, tailMax: limit - h}
}

func (c *capture) Write(p []byte) (int, error) {
	n := len(p)
	c.total.Add(int64(n))
	c.mu.Lock()
	defer c.mu.Unlock()
	if room := c.headMax - len(c.head); room > 0 {
		k := min(room, len(p))
		c.head = append(c.head, p[:k]...)
		p = p[k:]
	}
	switch {
	case len(p) == 0 || c.tailMax == 0:
	case len(p) >= c.tailMax:
		c.tail = append(c.tail[:0], p[len(p)-c.tailMax:]...)
	default:
		if c.tail == nil {
			c.tail = make([]byte, 0, 2*c.tailMax)
		}
		if len(c.tail)+len(p) > 2*c.tailMax {
			c.tail = append(c.tail[:0], c.tail[len(c.tail)-c.tailMax:]...)
		}
		c.tail = append(c.tail, p...)
	}
	return n, nil
}

// Total is the number of bytes written so far.
func (c *capture) Total() int64 { return c.total.Load() }

// parts returns what was kept: the whole stream as head when nothing was
// cut, or its head, its tail and the number of bytes cut between them. A
// cut falls on a line break when one is near, and never inside a UTF-8
// sequence.
func (c *capture) parts() (head, tail []byte, cut int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	total := c.total.Load()
	if total <= int64(c.headMax+c.tailMax) {
		rest := int(total) - len(c.head)
		return append(append([]byte(nil), c.head...), c.tail[len(c.tail)-rest:]...), nil, 0
	}
	head = c.head
	tail = c.tail[max(0, len(c.tail)-c.tailMax):]
	if i := bytes.LastIndexByte(head, '\n'); i >= 0 && i >= len(head)*3/4 {
		head = head[:i+1]
	} else {
		head = trimRuneEnd(head)
	}
	if i := bytes.IndexByte(tail, '\n'); i >= 0 && i < len(tail)/4 {
		tail = tail[i+1:]
	} else {
		tail = trimRuneStart(tail)
	}
	head = append([]byte(nil), head...)
	tail = append([]byte(nil), tail...)
	return head, tail, total - int64(len(head)) - int64(len(tail))
}

// trimRuneEnd drops an incomplete UTF-8 sequence at the end of b.
func trimRuneEnd(b []byte) []byte {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				return b[:i]
			}
			break
		}
	}
	return b
}

// trimRuneStart drops continuation bytes at the start of b, the rest of a
// sequence cut off before it.
func trimRuneStart(b []byte) []byte {
	for i := 0; i < len(b) && i < utf8.UTFMax; i++ {
		if utf8.RuneStart(b[i]) {
			return b[i:]
		}
	}
	return b
}

// writeSection writes a stream as "--- name ---" and its text, ending with
// a newline; nothing for an empty stream. Invalid UTF-8 becomes U+FFFD.
func (c *capture) writeSection(b *strings.Builder, name string) {
	total := c.Total()
	if total == 0 {
		return
	}
	head, tail, cut := c.parts()
	if cut == 0 {
		fmt.Fprintf(b, "--- %s ---\n", name)
		writeText(b, head)
		return
	}
	fmt.Fprintf(b, "--- %s (%d bytes in all; the first %d and the last %d shown) ---\n", name, total, len(head), len(tail))
	writeText(b, head)
	fmt.Fprintf(b, "[... %d bytes cut ...]\n", cut)
	writeText(b, tail)
}

func writeText(b *strings.Builder, p []byte) {
	if len(p) == 0 {
		return
	}
	b.WriteString(strings.ToValidUTF8(string(p), "\uFFFD"))
	if p[len(p)-1] != '\n' {
		b.WriteByte('\n')
	}
}

// formatBytes is a byte count for people: "512 B", "1.2 KiB", "3.0 MiB".
func formatBytes(n int64) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	case n < 1<<30:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
}

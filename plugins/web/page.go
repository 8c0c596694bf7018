package web

import (
	"fmt"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/ramabana/ramabana-mcp/sdk"
)

// document is what a fetch produced: header lines and the text to page
// through.
type document struct {
	// header is the lines shown before every page: status, URL, type; the
	// title; notes. It holds no blank line.
	header string
	text   string
	// chars counts the runes of text; offsets are in runes.
	chars int
	// empty explains a document without text.
	empty string
}

func newDocument(header, text, empty string) *document {
	return &document{header: header, text: text, chars: utf8.RuneCountInString(text), empty: empty}
}

// render formats the page of at most maxLen chars from start: the header, a
// blank line, the text, and, unless the page reaches the end, a line saying
// where to continue. A page that would cut a line ends after the last
// newline of its final fifth instead, so lines stay whole when they can.
func (d *document) render(start, maxLen int) (string, error) {
	if d.chars == 0 {
		if start > 0 {
			return "", sdk.Failf("start=%d is past the end: there is no text; call again with start=0", start)
		}
		return d.header + "\n\n(" + d.empty + ")", nil
	}
	if start >= d.chars {
		return "", sdk.Failf("start=%d is past the end: the text has %d chars, so start must be below %d", start, d.chars, d.chars)
	}
	b0 := 0
	for range start {
		_, size := utf8.DecodeRuneInString(d.text[b0:])
		b0 += size
	}
	b1, end := b0, start
	for b1 < len(d.text) && end-start < maxLen {
		_, size := utf8.DecodeRuneInString(d.text[b1:])
		b1 += size
		end++
	}
	if b1 < len(d.text) {
		if i := strings.LastIndexByte(d.text[b0:b1], '\n'); i >= 0 {
			cut := b0 + i + 1
			if n := utf8.RuneCountInString(d.text[cut:b1]); n <= maxLen/5 {
				b1, end = cut, end-n
			}
		}
	}
	var b strings.Builder
	b.Grow(len(d.header) + b1 - b0 + 80)
	b.WriteString(d.header)
	b.WriteString("\n\n")
	b.WriteString(d.text[b0:b1])
	switch {
	case b1 < len(d.text):
		fmt.Fprintf(&b, "\n(chars %d-%d of %d; continue with start=%d)", start, end, d.chars, end)
	case start > 0:
		fmt.Fprintf(&b, "\n(chars %d-%d of %d; end of text)", start, end, d.chars)
	}
	return b.String(), nil
}

// pageCache keeps recent documents so that a call continuing a page
// (start > 0) reads the same text as the call before it, without fetching
// again. It is bounded in entries, bytes and age.
type pageCache struct {
	maxEntries int
	maxBytes   int
	ttl        time.Duration

	mu      sync.Mutex
	entries []cacheEntry // oldest first
	bytes   int
}

type cacheEntry struct {
	key  string
	doc  *document
	at   time.Time
	size int
}

func (c *pageCache) get(key string, now time.Time) (*document, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.expire(now)
	for _, e := range c.entries {
		if e.key == key {
			return e.doc, true
		}
	}
	return nil, false
}

func (c *pageCache) put(key string, d *document, now time.Time) {
	size := len(d.header) + len(d.text)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.remove(func(e cacheEntry) bool { return e.key == key })
	if size > c.maxBytes {
		return
	}
	c.expire(now)
	for len(c.entries) > 0 && (len(c.entries) >= c.maxEntries || c.bytes+size > c.maxBytes) {
		c.bytes -= c.entries[0].size
		c.entries[0] = cacheEntry{}
		c.entries = c.entries[1:]
	}
	c.entries = append(c.entries, cacheEntry{key: key, doc: d, at: now, size: size})
	c.bytes += size
}

func (c *pageCache) expire(now time.Time) {
	c.remove(func(e cacheEntry) bool { return now.Sub(e.at) > c.ttl })
}

func (c *pageCache) remove(match func(cacheEntry) bool) {
	kept := c.entries[:0]
	for _, e := range c.entries {
		if match(e) {
			c.bytes -= e.size
			continue
		}
		kept = append(kept, e)
	}
	clear(c.entries[len(kept):])
	c.entries = kept
}

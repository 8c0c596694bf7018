// Package hashline is the "lineno|hash|content" line format: view_file
// shows a file's lines so, e.g. "12|a3f0|    return x", and edit_file
// anchors an edit on a line's number and hash, refusing it when the line's
// hash has changed since. Every tool that shows lines for an edit to follow
// (view_file, the edit tools' context, a language server's references and
// definitions) formats them here, so that a hash shown by one is accepted
// by the others.
//
// A line's hash is 4 lowercase hex digits of the 32-bit FNV-1a hash of its
// content, without its line ending ("\n" or "\r\n"), folded to 16 bits as
// the xor of its high and low halves. The line number is decimal, 1-based,
// without padding.
package hashline

import (
	"strconv"
	"strings"
	"unsafe"
)

// FNV-1a, 32 bits.
const (
	fnvOffset = 2166136261
	fnvPrime  = 16777619
)

// Hash is the hash view_file shows for a line and edit_file checks: 4
// lowercase hex digits of the 32-bit FNV-1a hash of the line's content,
// without its line ending ("\n" or "\r\n"), folded to 16 bits as the xor of
// its high and low halves. A line without an ending (the last line of a file
// that lacks a final newline) hashes as is; a lone "\r" at its end is
// content.
func Hash(line string) string {
	if strings.HasSuffix(line, "\n") {
		line = strings.TrimSuffix(line[:len(line)-1], "\r")
	}
	var b [4]byte
	Put(b[:], Sum(line))
	return string(b[:])
}

// Sum is Hash's number for content, a line without its ending: Hash is
// its 4 hex digits (see Put). It does not allocate.
func Sum[T string | []byte](content T) uint16 {
	h := uint32(fnvOffset)
	for i := 0; i < len(content); i++ {
		h = (h ^ uint32(content[i])) * fnvPrime
	}
	return fold(h)
}

// fold folds a 32-bit hash to 16 bits.
func fold(h uint32) uint16 { return uint16(h>>16) ^ uint16(h) }

const hexDigits = "0123456789abcdef"

// Put writes h as Hash shows it, 4 lowercase hex digits, to dst[0:4]; dst
// must be at least 4 bytes long.
func Put(dst []byte, h uint16) {
	_ = dst[3]
	dst[0] = hexDigits[h>>12]
	dst[1] = hexDigits[h>>8&0xf]
	dst[2] = hexDigits[h>>4&0xf]
	dst[3] = hexDigits[h&0xf]
}

// Line is "<n>|<hash>|<content>", line n as view_file shows it; content is
// the line without its ending, and the result has none either.
func Line(n int, content string) string {
	var b strings.Builder
	b.Grow(maxPrefix + len(content))
	writeLine(&b, n, content)
	return b.String()
}

// Write appends "<n>|<hash>|<content>" to b, line n as view_file shows it;
// content is the line without its ending, and none is written.
func Write[T string | []byte](b *strings.Builder, n int, content T) {
	writeLine(b, n, view(content))
}

// WritePart appends "<n>|<h>|<part>" to b: part is all or the start of
// line n, whose content (without its ending) has the Sum h. A line cut for
// display keeps its whole content's hash, so that an edit can anchor on it.
func WritePart[T string | []byte](b *strings.Builder, n int, h uint16, part T) {
	writePart(b, n, h, view(part))
}

// view is s as a string, without copying. The generic functions above are
// thin wrappers that pass it to the string functions below, so that they
// inline, need no dictionary nor interface, and a []byte line costs no
// copy; the string must not be kept past the call, as a []byte may change.
func view[T string | []byte](s T) string {
	// A string's header is a []byte's without its capacity.
	return *(*string)(unsafe.Pointer(&s))
}

func writeLine(b *strings.Builder, n int, content string) {
	writePart(b, n, Sum(content), content)
}

// maxPrefix bounds the length of a "<n>|<hash>|" prefix: 20 bytes for any
// int (19 digits and a minus sign), 2 bars and the hash.
const maxPrefix = 20 + 6

func writePart(b *strings.Builder, n int, h uint16, part string) {
	var buf [maxPrefix]byte
	p := strconv.AppendInt(buf[:0], int64(n), 10)
	p = append(p, '|', 0, 0, 0, 0, '|')
	Put(p[len(p)-5:], h)
	b.Write(p)
	b.WriteString(part)
}

// Prefix is the "<lineno>|<hash>|" prefix view_file puts before a line's
// content, if line starts with one, or "": 1 to 20 ASCII digits, a bar, 4
// hex digits (lowercase as Hash writes them, or uppercase), a bar. The
// content after it is not looked at, nor whether the hash is the content's.
func Prefix(line string) string {
	d := 0
	for d < len(line) && d < 20 && line[d] >= '0' && line[d] <= '9' {
		d++
	}
	if d == 0 || len(line) < d+6 || line[d] != '|' || line[d+5] != '|' {
		return ""
	}
	for _, c := range []byte(line[d+1 : d+5]) {
		if !isHex(c) {
			return ""
		}
	}
	return line[:d+6]
}

// isHex reports whether c is a hex digit, in either case.
func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

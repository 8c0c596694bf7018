package code

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/ramabana/ramabana-mcp/sdk"
)

// matcher finds the lines of a buffer that a pattern matches. Matching is
// line by line, as grep's: a line matches when the pattern matches inside
// it, and no match spans lines.
//
// Most patterns hold literals one of which every match must contain
// ("func" in `func \w+\(`, "Error" in `\w+Error`, "server" or "client" in
// `(server|client)\d+`). The matcher looks for them with bytes.Index, many
// times faster than the regexp engine, and runs the regexp only on the
// lines that hold one; a pattern that is a plain literal needs no regexp
// at all. Other patterns run the regexp over the whole buffer at once.
type matcher struct {
	// re is the pattern with (?m), for lines the literals cannot decide.
	re *regexp.Regexp
	// lits are the literals one of which every matching line holds; empty
	// when the pattern has no usable set.
	lits []literal
	// anyFold says some literal is looked for ignoring ASCII case.
	anyFold bool
	// foldUnsafe means a line with non-ASCII bytes may match a folded
	// literal under Unicode case folding without matching it under ASCII
	// folding (k matches the Kelvin sign, s the long s).
	foldUnsafe bool
	// complete means finding the one literal is a match: the pattern is
	// that literal.
	complete bool
}

// literal is a string to look for; fold means it is lower-case ASCII and
// compared ignoring ASCII case.
type literal struct {
	b    []byte
	fold bool
}

const (
	// minLiteral is the shortest literal worth a prefilter; shorter ones
	// hit on most lines and leave the regexp to do the work anyway.
	minLiteral = 3
	// maxLiterals bounds an alternation's set: each literal is one more
	// pass over the buffer.
	maxLiterals = 8
)

// newMatcher compiles a pattern as search_code reads it: a Go regexp (RE2
// syntax) or, with literal, the text itself; ignoring case unless
// caseSensitive.
func newMatcher(pattern string, isLiteral, caseSensitive bool) (*matcher, error) {
	if pattern == "" {
		return nil, sdk.Failf("pattern is empty; give a regular expression or, with literal: true, the text to find")
	}
	expr := pattern
	if isLiteral {
		expr = regexp.QuoteMeta(pattern)
	}
	flags := syntax.Perl
	if !caseSensitive {
		flags |= syntax.FoldCase
	}
	tree, err := syntax.Parse(expr, flags)
	if err != nil {
		return nil, sdk.Failf("pattern %q is not a valid regular expression (Go RE2 syntax): %v; set literal: true to search for the text as is", pattern, syntaxDetail(err))
	}
	tree = tree.Simplify()
	if hasNewline(tree) {
		return nil, sdk.Failf("pattern %q contains a newline; search_code matches one line at a time, so search for one line of the text", pattern)
	}
	prefix := "(?m)"
	if !caseSensitive {
		prefix = "(?mi)"
	}
	re, err := regexp.Compile(prefix + expr)
	if err != nil {
		return nil, sdk.Failf("pattern %q is not a valid regular expression (Go RE2 syntax): %v; set literal: true to search for the text as is", pattern, syntaxDetail(err))
	}
	m := &matcher{re: re}
	whole := tree.Op == syntax.OpLiteral
	set, ok := requiredLiterals(tree)
	if !ok {
		return m, nil
	}
	var lits []literal
	anyFold, foldUnsafe := false, false
	for _, l := range set {
		b := []byte(string(l.runes))
		if len(b) == 0 || len(b) < minLiteral && !whole {
			return m, nil
		}
		if !l.fold {
			lits = append(lits, literal{b: b})
			continue
		}
		for _, r := range l.runes {
			if r >= utf8.RuneSelf {
				return m, nil // Unicode folding: leave it to the regexp
			}
		}
		b = bytes.ToLower(b)
		lits = append(lits, literal{b: b, fold: true})
		anyFold = true
		foldUnsafe = foldUnsafe || bytes.ContainsAny(b, "ks")
	}
	m.lits, m.anyFold, m.foldUnsafe = lits, anyFold, foldUnsafe
	// A pattern that is a literal is found with bytes.Index at any length.
	m.complete = whole && len(m.lits) == 1
	return m, nil
}

func syntaxDetail(err error) string {
	if se := (*syntax.Error)(nil); errors.As(err, &se) {
		return fmt.Sprintf("%s in %q", se.Code, se.Expr)
	}
	return err.Error()
}

// reqLiteral is a literal found in a parsed regexp.
type reqLiteral struct {
	runes []rune
	fold  bool
}

// requiredLiterals finds a set of literals one of which every match of re
// contains; ok is false when there is none worth looking for.
func requiredLiterals(re *syntax.Regexp) (set []reqLiteral, ok bool) {
	switch re.Op {
	case syntax.OpLiteral:
		return []reqLiteral{{re.Rune, re.Flags&syntax.FoldCase != 0}}, true
	case syntax.OpCapture, syntax.OpPlus:
		return requiredLiterals(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return requiredLiterals(re.Sub[0])
		}
	case syntax.OpAlternate:
		for _, sub := range re.Sub {
			s, ok := requiredLiterals(sub)
			if !ok || len(set)+len(s) > maxLiterals {
				return nil, false
			}
			set = append(set, s...)
		}
		return set, true
	case syntax.OpConcat:
		best := -1
		for _, sub := range re.Sub {
			s, ok := requiredLiterals(sub)
			if !ok {
				continue
			}
			if score := setScore(s); score > best {
				best, set = score, s
			}
		}
		return set, best >= 0
	}
	return nil, false
}

// setScore ranks literal sets: the longer the shortest literal, the fewer
// false hits; fewer literals mean fewer passes; case-sensitive ones need no
// folded copy of the buffer.
func setScore(set []reqLiteral) int {
	shortest, folds := math.MaxInt, 0
	for _, l := range set {
		shortest = min(shortest, len(string(l.runes)))
		if l.fold {
			folds = 1
		}
	}
	return shortest*64 - len(set)*2 - folds
}

func hasNewline(re *syntax.Regexp) bool {
	if re.Op == syntax.OpLiteral {
		for _, r := range re.Rune {
			if r == '\n' {
				return true
			}
		}
	}
	for _, sub := range re.Sub {
		if hasNewline(sub) {
			return true
		}
	}
	return false
}

// lineHit is one matching line: its number (1-based) and byte bounds,
// without the newline.
type lineHit struct {
	no         int
	start, end int
}

// scan calls hit for each matching line of buf, in order, until hit
// returns false. folded is scratch space for case-insensitive literals. A
// line's "\r\n" ending is not part of it, so $ matches before it.
func (m *matcher) scan(buf []byte, folded *[]byte, hit func(lineHit) bool) {
	if len(buf) == 0 {
		return
	}
	lines := lineCounter{buf: buf}
	crlf := bytes.IndexByte(buf, '\r') >= 0
	if len(m.lits) > 0 && !(m.foldUnsafe && !isASCII(buf)) {
		var low []byte
		if m.anyFold {
			*folded = lowerASCII((*folded)[:0], buf)
			low = *folded
		}
		check := func(ls, le int) bool {
			return m.complete && !crlf || m.re.Match(trimCR(buf[ls:le]))
		}
		if len(m.lits) == 1 {
			hay := buf
			if m.lits[0].fold {
				hay = low
			}
			for pos := 0; pos < len(buf); {
				i := bytes.Index(hay[pos:], m.lits[0].b)
				if i < 0 {
					return
				}
				ls, le := lineBounds(buf, pos+i)
				if check(ls, le) && !hit(lineHit{no: lines.at(ls), start: ls, end: le}) {
					return
				}
				pos = le + 1
			}
			return
		}
		// Several literals: the lines holding any of them, in order.
		var starts []int
		for _, l := range m.lits {
			hay := buf
			if l.fold {
				hay = low
			}
			for pos := 0; pos < len(buf); {
				i := bytes.Index(hay[pos:], l.b)
				if i < 0 {
					break
				}
				ls, le := lineBounds(buf, pos+i)
				starts = append(starts, ls)
				pos = le + 1
			}
		}
		slices.Sort(starts)
		starts = slices.Compact(starts)
		for _, ls := range starts {
			_, le := lineBounds(buf, ls)
			if m.re.Match(trimCR(buf[ls:le])) && !hit(lineHit{no: lines.at(ls), start: ls, end: le}) {
				return
			}
		}
		return
	}
	if crlf {
		// (?m)$ does not match before "\r": match line by line.
		for ls := 0; ls < len(buf); {
			le := bytes.IndexByte(buf[ls:], '\n')
			if le < 0 {
				le = len(buf)
			} else {
				le += ls
			}
			if m.re.Match(trimCR(buf[ls:le])) && !hit(lineHit{no: lines.at(ls), start: ls, end: le}) {
				return
			}
			ls = le + 1
		}
		return
	}
	for pos := 0; pos < len(buf); {
		loc := m.re.FindIndex(buf[pos:])
		if loc == nil {
			return
		}
		s, e := pos+loc[0], pos+loc[1]
		if s == len(buf) && buf[s-1] == '\n' {
			return // an empty match after the last line's newline
		}
		ls, le := lineBounds(buf, s)
		// A match running past the line end (through \s or [^x]) counts
		// only if the line matches on its own.
		if (e <= le || m.re.Match(buf[ls:le])) && !hit(lineHit{no: lines.at(ls), start: ls, end: le}) {
			return
		}
		pos = le + 1
	}
}

func trimCR(line []byte) []byte {
	if n := len(line); n > 0 && line[n-1] == '\r' {
		return line[:n-1]
	}
	return line
}

// lineBounds returns the start and end (before the newline) of the line
// holding buf[at].
func lineBounds(buf []byte, at int) (int, int) {
	ls := bytes.LastIndexByte(buf[:at], '\n') + 1
	le := bytes.IndexByte(buf[at:], '\n')
	if le < 0 {
		return ls, len(buf)
	}
	return ls, at + le
}

// lineCounter turns offsets into line numbers, counting newlines only
// between the offsets asked for, which must not decrease.
type lineCounter struct {
	buf  []byte
	pos  int
	line int
}

func (c *lineCounter) at(off int) int {
	c.line += bytes.Count(c.buf[c.pos:off], []byte{'\n'})
	c.pos = off
	return c.line + 1
}

func isASCII(b []byte) bool {
	for len(b) >= 8 {
		if (uint64(b[0])|uint64(b[1])|uint64(b[2])|uint64(b[3])|
			uint64(b[4])|uint64(b[5])|uint64(b[6])|uint64(b[7]))&0x80 != 0 {
			return false
		}
		b = b[8:]
	}
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// lowerASCII appends b to dst with ASCII letters lowered; other bytes,
// UTF-8 included, are kept, so offsets stay the same.
func lowerASCII(dst, b []byte) []byte {
	dst = append(dst, b...)
	for i, c := range dst {
		if 'A' <= c && c <= 'Z' {
			dst[i] = c + ('a' - 'A')
		}
	}
	return dst
}

// describePattern is how the totals line names the pattern.
func describePattern(pattern string, literal bool) string {
	if literal {
		return fmt.Sprintf("%q", pattern)
	}
	return "/" + strings.ReplaceAll(pattern, "/", `\/`) + "/"
}

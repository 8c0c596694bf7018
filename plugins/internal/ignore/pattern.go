package ignore

import (
	"bytes"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Matcher holds the patterns of one ignore file. A nil or empty Matcher
// matches nothing.
type Matcher struct {
	patterns []pattern
}

type patternKind uint8

const (
	kindGlob    patternKind = iota // full wildmatch
	kindLiteral                    // no wildcards: compare
	kindSuffix                     // "*" followed by a literal: HasSuffix
)

type pattern struct {
	glob     string // without "!", a leading "/" and a trailing "/"
	lit      string // the literal part for kindLiteral and kindSuffix
	kind     patternKind
	negate   bool
	dirOnly  bool
	anchored bool // matched against the whole relative path, not the base name
}

// Parse reads a .gitignore file. Lines are patterns in git's syntax:
// '#' comments, blank lines, '!' to re-include, a trailing '/' for
// directories only, a '/' at the start or in the middle to anchor the
// pattern to the file's directory (otherwise it matches a name at any
// depth), '*', '?', '[...]' (with '!' or '^' negation, ranges and
// [:class:]), "**" as whole path components, and '\' escapes. Trailing
// spaces are dropped unless escaped.
func Parse(data []byte) *Matcher {
	m := &Matcher{}
	for len(data) > 0 {
		var line []byte
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			line, data = data, nil
		}
		if p, ok := parseLine(string(bytes.TrimSuffix(line, []byte("\r")))); ok {
			m.patterns = append(m.patterns, p)
		}
	}
	return m
}

func parseLine(s string) (pattern, bool) {
	if s == "" || s[0] == '#' {
		return pattern{}, false
	}
	// Trailing spaces go unless the last one is escaped.
	for strings.HasSuffix(s, " ") && !strings.HasSuffix(s, "\\ ") {
		s = s[:len(s)-1]
	}
	var p pattern
	if s[0] == '!' {
		p.negate = true
		s = s[1:]
	}
	if strings.HasSuffix(s, "/") {
		p.dirOnly = true
		s = strings.TrimRight(s, "/")
	}
	if s == "" {
		return pattern{}, false
	}
	if strings.Contains(s, "/") {
		p.anchored = true
		s = strings.TrimPrefix(s, "/")
		// "**/name" matches name at any depth, as an unanchored pattern does.
		if rest, ok := strings.CutPrefix(s, "**/"); ok && !strings.Contains(rest, "/") && !strings.HasPrefix(rest, "**") {
			p.anchored = false
			s = rest
		}
	}
	p.glob = s
	switch {
	case !strings.ContainsAny(s, `*?[\`):
		p.kind, p.lit = kindLiteral, s
	case !p.anchored && s[0] == '*' && len(s) > 1 && !strings.ContainsAny(s[1:], `*?[\`):
		p.kind, p.lit = kindSuffix, s[1:]
	}
	return p, true
}

// Match reports whether the patterns decide about rel, a slash-separated
// path relative to the ignore file's directory, and if so whether it is
// ignored. The last matching pattern decides.
func (m *Matcher) Match(rel string, isDir bool) (ignored, decided bool) {
	if m == nil {
		return false, false
	}
	base := rel
	if i := strings.LastIndexByte(rel, '/'); i >= 0 {
		base = rel[i+1:]
	}
	for i := len(m.patterns) - 1; i >= 0; i-- {
		p := &m.patterns[i]
		if p.dirOnly && !isDir {
			continue
		}
		if p.matches(rel, base) {
			return !p.negate, true
		}
	}
	return false, false
}

func (p *pattern) matches(rel, base string) bool {
	target := base
	if p.anchored {
		target = rel
	}
	switch p.kind {
	case kindLiteral:
		return target == p.lit
	case kindSuffix:
		return strings.HasSuffix(target, p.lit)
	}
	return wildmatch(p.glob, 0, target, 0)
}

// wildmatch matches s against p[pi:] from s[si:] with git's pathname rules:
// '*', '?' and classes never match '/', and "**" as a whole component
// matches any number of directories ("a/**/b", "**/b", "a/**").
func wildmatch(p string, pi int, s string, si int) bool {
	for pi < len(p) {
		switch c := p[pi]; c {
		case '*':
			start := pi
			for pi < len(p) && p[pi] == '*' {
				pi++
			}
			if pi-start >= 2 && (start == 0 || p[start-1] == '/') && (pi == len(p) || p[pi] == '/') {
				if pi == len(p) {
					return true
				}
				// "**/" matches zero or more whole directories.
				for i := si; ; {
					if wildmatch(p, pi+1, s, i) {
						return true
					}
					j := strings.IndexByte(s[i:], '/')
					if j < 0 {
						return false
					}
					i += j + 1
				}
			}
			if pi == len(p) {
				return strings.IndexByte(s[si:], '/') < 0
			}
			for i := si; i <= len(s); i++ {
				if wildmatch(p, pi, s, i) {
					return true
				}
				if i < len(s) && s[i] == '/' {
					return false
				}
			}
			return false
		case '?':
			if si >= len(s) || s[si] == '/' {
				return false
			}
			_, w := utf8.DecodeRuneInString(s[si:])
			si += w
			pi++
		case '[':
			if si >= len(s) || s[si] == '/' {
				return false
			}
			r, w := utf8.DecodeRuneInString(s[si:])
			ok, next, valid := matchClass(p, pi, r)
			if valid {
				if !ok {
					return false
				}
				pi, si = next, si+w
				continue
			}
			// An unterminated '[' is a literal.
			if s[si] != '[' {
				return false
			}
			pi, si = pi+1, si+1
		case '\\':
			if pi+1 < len(p) {
				pi++
			}
			if si >= len(s) || s[si] != p[pi] {
				return false
			}
			pi, si = pi+1, si+1
		default:
			if si >= len(s) || s[si] != c {
				return false
			}
			pi, si = pi+1, si+1
		}
	}
	return si == len(s)
}

// matchClass matches r against the bracket expression at p[pi]; valid is
// false when the expression is not terminated.
func matchClass(p string, pi int, r rune) (matched bool, next int, valid bool) {
	i := pi + 1
	negate := false
	if i < len(p) && (p[i] == '!' || p[i] == '^') {
		negate = true
		i++
	}
	for first := true; ; first = false {
		if i >= len(p) {
			return false, 0, false
		}
		if p[i] == ']' && !first {
			break
		}
		if p[i] == '[' && i+1 < len(p) && p[i+1] == ':' {
			if end := strings.Index(p[i+2:], ":]"); end >= 0 {
				if posixClass(p[i+2:i+2+end], r) {
					matched = true
				}
				i += 2 + end + 2
				continue
			}
		}
		lo, w := classChar(p, i)
		i += w
		hi := lo
		if i+1 < len(p) && p[i] == '-' && p[i+1] != ']' {
			hi, w = classChar(p, i+1)
			i += 1 + w
		}
		if lo <= r && r <= hi {
			matched = true
		}
	}
	return matched != negate, i + 1, true
}

func classChar(p string, i int) (rune, int) {
	if p[i] == '\\' && i+1 < len(p) {
		r, w := utf8.DecodeRuneInString(p[i+1:])
		return r, w + 1
	}
	return utf8.DecodeRuneInString(p[i:])
}

func posixClass(name string, r rune) bool {
	switch name {
	case "alnum":
		return unicode.IsLetter(r) || unicode.IsDigit(r)
	case "alpha":
		return unicode.IsLetter(r)
	case "blank":
		return r == ' ' || r == '\t'
	case "cntrl":
		return unicode.IsControl(r)
	case "digit":
		return r >= '0' && r <= '9'
	case "graph":
		return unicode.IsGraphic(r) && !unicode.IsSpace(r)
	case "lower":
		return unicode.IsLower(r)
	case "print":
		return unicode.IsPrint(r)
	case "punct":
		return unicode.IsPunct(r) || unicode.IsSymbol(r)
	case "space":
		return unicode.IsSpace(r)
	case "upper":
		return unicode.IsUpper(r)
	case "xdigit":
		return r >= '0' && r <= '9' || r >= 'a' && r <= 'f' || r >= 'A' && r <= 'F'
	}
	return false
}

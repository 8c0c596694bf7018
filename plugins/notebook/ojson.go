package notebook

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// kind is the type of a JSON value.
type kind uint8

const (
	kindNull kind = iota
	kindBool
	kindNumber
	kindString
	kindArray
	kindObject
)

// node is a JSON value that remembers how it was spelled: scalars keep
// their token exactly as written (a string with its quotes and escapes, a
// number with its digits), objects keep their keys in file order, duplicates
// included. Writing a document back therefore changes only the whitespace
// between tokens.
type node struct {
	kind    kind
	raw     string // scalars: the token as written
	elems   []*node
	members []member
}

// member is one key of an object.
type member struct {
	key    string // decoded
	rawKey string // as written, with quotes
	val    *node
}

// get returns the value of key, the last one when the key is repeated (as
// Python's json module reads it); nil when n is not an object or lacks key.
func (n *node) get(key string) *node {
	if n == nil || n.kind != kindObject {
		return nil
	}
	for i := len(n.members) - 1; i >= 0; i-- {
		if n.members[i].key == key {
			return n.members[i].val
		}
	}
	return nil
}

// set gives key the value v: the last occurrence of key is replaced in
// place; a new key goes where sort order puts it when the object's keys are
// sorted (as Jupyter writes them), else at the end.
func (n *node) set(key string, v *node, s *style) {
	for i := len(n.members) - 1; i >= 0; i-- {
		if n.members[i].key == key {
			n.members[i].val = v
			return
		}
	}
	m := member{key: key, rawKey: s.quote(key), val: v}
	at := len(n.members)
	if n.sorted() {
		at = 0
		for at < len(n.members) && n.members[at].key < key {
			at++
		}
	}
	n.members = append(n.members, member{})
	copy(n.members[at+1:], n.members[at:])
	n.members[at] = m
}

// del removes every occurrence of key.
func (n *node) del(key string) {
	kept := n.members[:0]
	for _, m := range n.members {
		if m.key != key {
			kept = append(kept, m)
		}
	}
	clear(n.members[len(kept):])
	n.members = kept
}

// sorted reports whether the object's keys are in Python's sort order
// (code point order, which is byte order in UTF-8).
func (n *node) sorted() bool {
	for i := 1; i < len(n.members); i++ {
		if n.members[i-1].key > n.members[i].key {
			return false
		}
	}
	return true
}

// str is the decoded value of a string node, "" for any other kind.
func (n *node) str() string {
	if n == nil || n.kind != kindString {
		return ""
	}
	return unquote(n.raw)
}

// int is the value of an integer number node.
func (n *node) int() (int, bool) {
	if n == nil || n.kind != kindNumber {
		return 0, false
	}
	v, err := strconv.Atoi(n.raw)
	return v, err == nil
}

// text joins a string node, or an array of string nodes (nbformat's
// "multiline string"), into one string.
func (n *node) text() string {
	if n == nil {
		return ""
	}
	if n.kind == kindString {
		return n.str()
	}
	var b strings.Builder
	for _, e := range n.elems {
		b.WriteString(e.str())
	}
	return b.String()
}

func nullNode() *node                { return &node{kind: kindNull, raw: "null"} }
func arrayNode(elems ...*node) *node { return &node{kind: kindArray, elems: elems} }

// stringNode is a new string, escaped in the document's style.
func (s *style) stringNode(v string) *node { return &node{kind: kindString, raw: s.quote(v)} }

// objectNode is a new object with the members in the order given.
func (s *style) objectNode(kv ...any) *node {
	n := &node{kind: kindObject}
	for i := 0; i+1 < len(kv); i += 2 {
		k := kv[i].(string)
		n.members = append(n.members, member{key: k, rawKey: s.quote(k), val: kv[i+1].(*node)})
	}
	return n
}

// style is how a document lays out the whitespace between tokens and
// escapes new strings. The zero value is not useful; canonicalStyle is
// Jupyter's: json.dumps(nb, indent=1, sort_keys=True, ensure_ascii=False).
type style struct {
	pretty  bool   // a newline and indentation before every element
	indent  string // one level of indentation, when pretty
	itemSep string // after each element but the last, before the newline
	keySep  string // between a key and its value
	eol     string // "\n" or "\r\n", when pretty
	ascii   bool   // escape non-ASCII characters in new strings
}

var canonicalStyle = style{pretty: true, indent: " ", itemSep: ",", keySep: ": ", eol: "\n"}

// document is a parsed JSON file: its root value, the bytes around it, and
// the style detected from the file.
type document struct {
	root   *node
	prefix string // before the root value (whitespace, a BOM)
	suffix string // after it (normally the final newline)
	style  style
}

// encode writes the document back: the same tokens, re-laid out in its
// style, with the bytes around the root value kept.
func (d *document) encode(sizeHint int) []byte {
	b := make([]byte, 0, sizeHint+sizeHint/8+64)
	b = append(b, d.prefix...)
	b = d.style.appendNode(b, d.root, 0)
	return append(b, d.suffix...)
}

func (s *style) appendNode(b []byte, n *node, depth int) []byte {
	switch n.kind {
	case kindArray:
		if len(n.elems) == 0 {
			return append(b, "[]"...)
		}
		b = append(b, '[')
		for i, e := range n.elems {
			if i > 0 {
				b = append(b, s.itemSep...)
			}
			b = s.newline(b, depth+1)
			b = s.appendNode(b, e, depth+1)
		}
		b = s.newline(b, depth)
		return append(b, ']')
	case kindObject:
		if len(n.members) == 0 {
			return append(b, "{}"...)
		}
		b = append(b, '{')
		for i, m := range n.members {
			if i > 0 {
				b = append(b, s.itemSep...)
			}
			b = s.newline(b, depth+1)
			b = append(b, m.rawKey...)
			b = append(b, s.keySep...)
			b = s.appendNode(b, m.val, depth+1)
		}
		b = s.newline(b, depth)
		return append(b, '}')
	default:
		return append(b, n.raw...)
	}
}

func (s *style) newline(b []byte, depth int) []byte {
	if !s.pretty {
		return b
	}
	b = append(b, s.eol...)
	for range depth {
		b = append(b, s.indent...)
	}
	return b
}

// quote escapes v as Python's json.dumps does: '"', '\\' and control
// characters always (\n \r \t \b \f short, others as \u00XX), and with
// ascii every character outside printable ASCII as \uXXXX (surrogate pairs
// above U+FFFF), lower-case hex.
func (s *style) quote(v string) string {
	const hex = "0123456789abcdef"
	b := make([]byte, 0, len(v)+2)
	b = append(b, '"')
	u4 := func(b []byte, r rune) []byte {
		return append(b, '\\', 'u', hex[r>>12&0xf], hex[r>>8&0xf], hex[r>>4&0xf], hex[r&0xf])
	}
	for _, r := range v {
		switch {
		case r == '"':
			b = append(b, '\\', '"')
		case r == '\\':
			b = append(b, '\\', '\\')
		case r == '\n':
			b = append(b, '\\', 'n')
		case r == '\r':
			b = append(b, '\\', 'r')
		case r == '\t':
			b = append(b, '\\', 't')
		case r == '\b':
			b = append(b, '\\', 'b')
		case r == '\f':
			b = append(b, '\\', 'f')
		case r < 0x20:
			b = u4(b, r)
		case s.ascii && r > 0x7e:
			if r > 0xffff {
				hi, lo := utf16.EncodeRune(r)
				b = u4(u4(b, hi), lo)
			} else {
				b = u4(b, r)
			}
		default:
			b = utf8.AppendRune(b, r)
		}
	}
	return string(append(b, '"'))
}

// unquote decodes a string token that the parser has checked.
func unquote(raw string) string {
	body := raw[1 : len(raw)-1]
	if strings.IndexByte(body, '\\') < 0 {
		return body
	}
	b := make([]byte, 0, len(body))
	for i := 0; i < len(body); i++ {
		c := body[i]
		if c != '\\' {
			b = append(b, c)
			continue
		}
		i++
		switch body[i] {
		case 'n':
			b = append(b, '\n')
		case 'r':
			b = append(b, '\r')
		case 't':
			b = append(b, '\t')
		case 'b':
			b = append(b, '\b')
		case 'f':
			b = append(b, '\f')
		case 'u':
			r := hex4(body[i+1 : i+5])
			i += 4
			if utf16.IsSurrogate(r) && i+6 < len(body) && body[i+1] == '\\' && body[i+2] == 'u' {
				if pair := utf16.DecodeRune(r, hex4(body[i+3:i+7])); pair != utf8.RuneError {
					r = pair
					i += 6
				}
			}
			b = utf8.AppendRune(b, r) // a lone surrogate becomes U+FFFD
		default: // '"', '\\', '/'
			b = append(b, body[i])
		}
	}
	return string(b)
}

func hex4(s string) rune {
	v, _ := strconv.ParseUint(s, 16, 32)
	return rune(v)
}

// maxDepth bounds nesting, as Python's recursion limit does.
const maxDepth = 1000

// syntaxError is a JSON syntax error at a line and column (1-based, the
// column in bytes).
type syntaxError struct {
	line, col int
	msg       string
}

func (e *syntaxError) Error() string {
	return fmt.Sprintf("line %d, column %d: %s", e.line, e.col, e.msg)
}

// parser reads JSON as Python's json.loads accepts it (NaN, Infinity and
// -Infinity included) and detects the file's style on the way.
type parser struct {
	data  string
	pos   int
	depth int

	sawIndent, sawKeySep, sawItemSep bool
	nonASCII, escapedNonASCII        bool
	st                               style
}

// parseDocument parses data, which must be valid UTF-8.
func parseDocument(data string) (*document, error) {
	p := &parser{data: data, st: canonicalStyle}
	lead := p.ws()
	if strings.HasPrefix(p.data[p.pos:], "\ufeff") { // a BOM, kept as is
		p.pos += len("\ufeff")
		lead += "\ufeff" + p.ws()
	}
	root, err := p.value()
	if err != nil {
		return nil, err
	}
	start := p.pos
	p.ws()
	if p.pos < len(p.data) {
		return nil, p.errorf("unexpected %s after the end of the document", p.describe())
	}
	st := p.st
	st.ascii = p.escapedNonASCII && !p.nonASCII
	return &document{root: root, prefix: lead, suffix: p.data[start:], style: st}, nil
}

func (p *parser) errorf(format string, args ...any) error {
	line := 1 + strings.Count(p.data[:p.pos], "\n")
	col := p.pos - strings.LastIndexByte(p.data[:p.pos], '\n')
	return &syntaxError{line: line, col: col, msg: fmt.Sprintf(format, args...)}
}

func (p *parser) describe() string {
	if p.pos >= len(p.data) {
		return "end of file"
	}
	r, _ := utf8.DecodeRuneInString(p.data[p.pos:])
	return strconv.QuoteRune(r)
}

// ws skips whitespace and returns it.
func (p *parser) ws() string {
	start := p.pos
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return p.data[start:p.pos]
		}
	}
	return p.data[start:]
}

// opened notes the whitespace after the first non-empty container's opening
// bracket: the root's, so after a newline it is one level of indentation.
func (p *parser) opened(ws string) {
	if p.sawIndent {
		return
	}
	p.sawIndent = true
	i := strings.LastIndexByte(ws, '\n')
	if i < 0 {
		p.st.pretty, p.st.indent, p.st.itemSep = false, "", ", "
		return
	}
	p.st.pretty, p.st.indent = true, ws[i+1:]
	if i > 0 && ws[i-1] == '\r' {
		p.st.eol = "\r\n"
	}
}

// separated notes the whitespace after the first ',': all of it in a
// single-line file, else what comes before the newline (Python 2 wrote ", ").
func (p *parser) separated(ws string) {
	if p.sawItemSep {
		return
	}
	i := strings.IndexAny(ws, "\r\n")
	if p.st.pretty {
		if i < 0 {
			return // a list kept on one line: not the file's pattern
		}
		ws = ws[:i]
	}
	p.sawItemSep = true
	p.st.itemSep = "," + ws
}

func (p *parser) value() (*node, error) {
	if p.pos >= len(p.data) {
		return nil, p.errorf("unexpected end of file, expected a value")
	}
	switch c := p.data[p.pos]; {
	case c == '{':
		return p.object()
	case c == '[':
		return p.array()
	case c == '"':
		raw, err := p.string()
		if err != nil {
			return nil, err
		}
		return &node{kind: kindString, raw: raw}, nil
	case c == '-' || c >= '0' && c <= '9':
		return p.number()
	default:
		for _, lit := range [...]struct {
			word string
			kind kind
		}{{"true", kindBool}, {"false", kindBool}, {"null", kindNull}, {"NaN", kindNumber}, {"Infinity", kindNumber}} {
			if strings.HasPrefix(p.data[p.pos:], lit.word) {
				p.pos += len(lit.word)
				return &node{kind: lit.kind, raw: lit.word}, nil
			}
		}
		return nil, p.errorf("unexpected %s, expected a value", p.describe())
	}
}

func (p *parser) enter() error {
	p.depth++
	if p.depth > maxDepth {
		return p.errorf("nested deeper than %d levels", maxDepth)
	}
	return nil
}

func (p *parser) array() (*node, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	p.pos++ // '['
	n := &node{kind: kindArray}
	ws := p.ws()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		return n, nil
	}
	p.opened(ws)
	for {
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		n.elems = append(n.elems, v)
		p.ws()
		if p.pos >= len(p.data) {
			return nil, p.errorf("unexpected end of file in an array, expected ',' or ']'")
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
			p.separated(p.ws())
		case ']':
			p.pos++
			return n, nil
		default:
			return nil, p.errorf("unexpected %s in an array, expected ',' or ']'", p.describe())
		}
	}
}

func (p *parser) object() (*node, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	p.pos++ // '{'
	n := &node{kind: kindObject}
	ws := p.ws()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		return n, nil
	}
	p.opened(ws)
	for {
		if p.pos >= len(p.data) || p.data[p.pos] != '"' {
			return nil, p.errorf("unexpected %s in an object, expected a key in double quotes", p.describe())
		}
		rawKey, err := p.string()
		if err != nil {
			return nil, err
		}
		p.ws()
		if p.pos >= len(p.data) || p.data[p.pos] != ':' {
			return nil, p.errorf("unexpected %s after a key, expected ':'", p.describe())
		}
		p.pos++
		ws := p.ws()
		if !p.sawKeySep && !strings.ContainsAny(ws, "\r\n") {
			p.sawKeySep = true
			p.st.keySep = ":" + ws
		}
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		n.members = append(n.members, member{key: unquote(rawKey), rawKey: rawKey, val: v})
		p.ws()
		if p.pos >= len(p.data) {
			return nil, p.errorf("unexpected end of file in an object, expected ',' or '}'")
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
			p.separated(p.ws())
		case '}':
			p.pos++
			return n, nil
		default:
			return nil, p.errorf("unexpected %s in an object, expected ',' or '}'", p.describe())
		}
	}
}

// string scans a string token and returns it as written.
func (p *parser) string() (string, error) {
	start := p.pos
	p.pos++ // '"'
	for p.pos < len(p.data) {
		// The common run of plain characters, in a tight loop.
		var seen byte
		i, d := p.pos, p.data
		for i < len(d) && plainByte[d[i]] {
			seen |= d[i]
			i++
		}
		if seen >= 0x80 {
			p.nonASCII = true
		}
		if p.pos = i; i == len(d) {
			break
		}
		c := d[i]
		switch {
		case c == '"':
			p.pos++
			return p.data[start:p.pos], nil
		case c == '\\':
			if p.pos+1 >= len(p.data) {
				p.pos = start
				return "", p.errorf("unterminated string")
			}
			switch p.data[p.pos+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				p.pos += 2
			case 'u':
				h := p.data[p.pos+2 : min(p.pos+6, len(p.data))]
				if len(h) < 4 || strings.Trim(h, "0123456789abcdefABCDEF") != "" {
					return "", p.errorf(`invalid \u escape`)
				}
				if hex4(h) >= 0x80 {
					p.escapedNonASCII = true
				}
				p.pos += 6
			default:
				return "", p.errorf("invalid escape %q", p.data[p.pos:p.pos+2])
			}
		case c < 0x20:
			return "", p.errorf("control character %q in a string (it must be escaped)", rune(c))
		}
	}
	p.pos = start
	return "", p.errorf("unterminated string")
}

// plainByte marks the bytes a string holds as they are: all but '"', '\\'
// and control characters.
var plainByte = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

func (p *parser) number() (*node, error) {
	start := p.pos
	if p.data[p.pos] == '-' {
		p.pos++
		if strings.HasPrefix(p.data[p.pos:], "Infinity") {
			p.pos += len("Infinity")
			return &node{kind: kindNumber, raw: p.data[start:p.pos]}, nil
		}
	}
	digits := func() int {
		n := 0
		for p.pos < len(p.data) && p.data[p.pos] >= '0' && p.data[p.pos] <= '9' {
			p.pos++
			n++
		}
		return n
	}
	switch {
	case p.pos < len(p.data) && p.data[p.pos] == '0':
		p.pos++
	case digits() == 0:
		return nil, p.errorf("invalid number")
	}
	if p.pos < len(p.data) && p.data[p.pos] == '.' {
		p.pos++
		if digits() == 0 {
			return nil, p.errorf("invalid number: no digits after '.'")
		}
	}
	if p.pos < len(p.data) && (p.data[p.pos] == 'e' || p.data[p.pos] == 'E') {
		p.pos++
		if p.pos < len(p.data) && (p.data[p.pos] == '+' || p.data[p.pos] == '-') {
			p.pos++
		}
		if digits() == 0 {
			return nil, p.errorf("invalid number: no digits in the exponent")
		}
	}
	return &node{kind: kindNumber, raw: p.data[start:p.pos]}, nil
}

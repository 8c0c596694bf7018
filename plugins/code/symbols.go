package code

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Symbol kinds, shared by every language so that a kind filter means the
// same everywhere.
const (
	kindFunction   = "function"
	kindMethod     = "method"
	kindClass      = "class"
	kindStruct     = "struct"
	kindInterface  = "interface"
	kindType       = "type"
	kindEnum       = "enum"
	kindEnumMember = "enum_member"
	kindField      = "field"
	kindConstant   = "constant"
	kindVariable   = "variable"
	kindNamespace  = "namespace"
)

var allKinds = []string{kindFunction, kindMethod, kindClass, kindStruct, kindInterface, kindType,
	kindEnum, kindEnumMember, kindField, kindConstant, kindVariable, kindNamespace}

// Symbol is one named declaration in a file.
type Symbol struct {
	Kind string
	Name string
	// Path is the name path, outermost first, ending with Name: a method
	// of class C is [C m]; a Go method on *T is [T m] though it is
	// declared at top level.
	Path []string
	// Start and End are the declaration's lines, 1-based, inclusive.
	Start, End int
	// StartByte and EndByte bound the declaration.
	StartByte, EndByte int
	// DocByte is where the comments just above the declaration start
	// (StartByte when there are none); set only when asked for.
	DocByte int
	// Signature is the declaration's head on one line, e.g.
	// "func (s *Server) Run(ctx context.Context) error".
	Signature string
	// Qualified is the name an outline shows when the symbol is not nested
	// in its parent: "Server.Run" for a Go method.
	Qualified string
	Children  []*Symbol
}

// span is where a declaration lies in its file: the bytes [start, end),
// start on the 0-based row startRow, end on row endRow at byte column
// endCol.
type span struct {
	start, end       int
	startRow, endRow int
	endCol           int
}

// newSymbol makes a symbol over sp, child of parent (nil at top level).
// Both parsers make their symbols here, so that a Go file gives the same
// symbols with or without cgo.
func newSymbol(kind, name string, parent *Symbol, sp span, sig string) *Symbol {
	s := &Symbol{Kind: kind, Name: name, Signature: sig}
	if parent != nil {
		s.Path = append(append([]string(nil), parent.Path...), name)
	} else {
		s.Path = []string{name}
	}
	s.Start = sp.startRow + 1
	s.End = sp.endRow + 1
	if sp.endCol == 0 && sp.endRow > sp.startRow {
		s.End-- // a span ending with its newline
	}
	s.StartByte, s.EndByte = sp.start, sp.end
	s.DocByte = s.StartByte
	return s
}

// maxSignature bounds a signature, in runes.
const maxSignature = 200

// firstLine is the signature of a declaration without a body: the first
// line of its text.
func firstLine(text string) string {
	if i := strings.IndexByte(text, '\n'); i >= 0 {
		text = text[:i]
	}
	return oneLine(text)
}

// oneLine collapses a declaration head: runs of white space become one
// space, a line break just inside brackets goes ("(\n\ta int,\n)" becomes
// "(a int)"), and a trailing '{', ':' or ';' goes.
func oneLine(s string) string {
	var b strings.Builder
	space, broken := false, false
	for _, r := range s {
		if unicode.IsSpace(r) {
			space = b.Len() > 0
			broken = broken || r == '\n'
			continue
		}
		if space {
			last, _ := utf8.DecodeLastRuneInString(b.String())
			if !broken || !strings.ContainsRune("([{", last) && !strings.ContainsRune(")]}", r) {
				b.WriteByte(' ')
			}
			space, broken = false, false
		}
		b.WriteRune(r)
	}
	t := strings.TrimRight(b.String(), " {:;")
	if strings.ContainsRune(s, '\n') {
		t = strings.ReplaceAll(t, ",)", ")")
		t = strings.ReplaceAll(t, ",]", "]")
	}
	if utf8.RuneCountInString(t) > maxSignature {
		r := []rune(t)
		t = string(r[:maxSignature]) + "…"
	}
	return t
}

// goReceiverType is the type name of a receiver list: "Server" for
// "(s *Server)" and "Pair" for "(p Pair[K, V])".
func goReceiverType(recv string) string {
	recv = strings.Trim(recv, "()")
	if i := strings.IndexByte(recv, '['); i >= 0 {
		recv = recv[:i]
	}
	f := strings.Fields(recv)
	if len(f) == 0 {
		return ""
	}
	return strings.TrimLeft(f[len(f)-1], "*")
}

// goEmbeddedName is the name of an embedded struct field, from its type:
// "Context" for "context.Context", "List" for "*list.List[int]".
func goEmbeddedName(typ string) string {
	if i := strings.IndexByte(typ, '['); i >= 0 {
		typ = typ[:i]
	}
	if i := strings.LastIndexByte(typ, '.'); i >= 0 {
		typ = typ[i+1:]
	}
	return strings.TrimLeft(typ, "*")
}

package code

import (
	"bytes"
	"go/ast"
	goparser "go/parser"
	"go/token"
	"sort"
)

// goASTSymbols lists the symbols of a Go file with go/parser, the same
// symbols goSymbols finds in tree-sitter's tree (a test holds the two to
// that on this module's sources), for builds without cgo. On a file with
// syntax errors the two may differ: each keeps what its parser recovers.
func goASTSymbols(src []byte, withDoc bool) []*Symbol {
	fset := token.NewFileSet()
	f, _ := goparser.ParseFile(fset, "", src, goparser.ParseComments|goparser.SkipObjectResolution)
	if f == nil {
		return nil
	}
	x := &goExtractor{src: src, file: fset.File(f.Pos()), withDoc: withDoc}
	for _, g := range f.Comments {
		x.comments = append(x.comments, g.List...)
	}
	var out []*Symbol
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			out = append(out, x.function(d))
		case *ast.GenDecl:
			out = append(out, x.genDecl(d)...)
		}
	}
	return out
}

// goExtractor builds symbols from one parsed Go file.
type goExtractor struct {
	src     []byte
	file    *token.File
	withDoc bool
	// comments are the file's comments in order, for docStart.
	comments []*ast.Comment
}

func (x *goExtractor) off(p token.Pos) int { return x.file.Offset(p) }

// text is the source from a to b.
func (x *goExtractor) text(a, b token.Pos) string {
	return string(x.src[x.off(a):x.off(b)])
}

func (x *goExtractor) nodeText(n ast.Node) string { return x.text(n.Pos(), n.End()) }

// sym makes a symbol spanning n, child of parent (nil at top level).
func (x *goExtractor) sym(kind, name string, parent *Symbol, n ast.Node, sig string) *Symbol {
	start, end := x.file.Position(n.Pos()), x.file.Position(n.End())
	s := newSymbol(kind, name, parent, span{
		start: start.Offset, end: end.Offset,
		startRow: start.Line - 1, endRow: end.Line - 1, endCol: end.Column - 1,
	}, sig)
	if x.withDoc {
		s.DocByte = x.docStart(s.StartByte, start.Line)
	}
	return s
}

// docStart is where the comments directly above the declaration at
// offset start, on line row, start: comments with only white space
// between them and the declaration, no blank line, and no code before
// them on their line (a comment ending the line above is that line's).
func (x *goExtractor) docStart(start, row int) int {
	i := sort.Search(len(x.comments), func(i int) bool { return x.off(x.comments[i].End()) > start })
	for i--; i >= 0; i-- {
		c := x.comments[i]
		from, end := x.off(c.Pos()), x.off(c.End())
		lineStart := bytes.LastIndexByte(x.src[:from], '\n') + 1
		if !blank(x.src[end:start]) || !blank(x.src[lineStart:from]) || x.file.Line(c.End())+1 < row {
			break
		}
		start, row = from, x.file.Line(c.Pos())
	}
	return start
}

// blank reports whether b is all white space.
func blank(b []byte) bool { return len(bytes.TrimSpace(b)) == 0 }

func (x *goExtractor) function(d *ast.FuncDecl) *Symbol {
	sig := firstLine(x.nodeText(d))
	if d.Body != nil {
		sig = oneLine(x.text(d.Pos(), d.Body.Lbrace))
	}
	name := d.Name.Name
	if d.Recv == nil {
		return x.sym(kindFunction, name, nil, d, sig)
	}
	s := x.sym(kindMethod, name, nil, d, sig)
	if recv := goReceiverType(x.text(d.Recv.Opening, d.Recv.Closing+1)); recv != "" {
		s.Path = []string{recv, name}
		s.Qualified = recv + "." + name
	}
	return s
}

// genDecl lists the symbols of a type, const or var declaration. A
// declaration without parentheses spans its keyword; each spec of a
// grouped one spans itself.
func (x *goExtractor) genDecl(d *ast.GenDecl) []*Symbol {
	grouped := d.Lparen.IsValid()
	var out []*Symbol
	for _, spec := range d.Specs {
		var node ast.Node = spec
		if len(d.Specs) == 1 && !grouped {
			node = d
		}
		switch spec := spec.(type) {
		case *ast.TypeSpec:
			out = append(out, x.typeSpec(spec, node))
		case *ast.ValueSpec:
			kind := kindVariable
			if d.Tok == token.CONST {
				kind = kindConstant
			}
			sig := firstLine(x.nodeText(node))
			for _, n := range spec.Names {
				out = append(out, x.sym(kind, n.Name, nil, node, sig))
			}
		}
	}
	return out
}

func (x *goExtractor) typeSpec(spec *ast.TypeSpec, node ast.Node) *Symbol {
	kind := kindType
	switch spec.Type.(type) {
	case *ast.StructType:
		kind = kindStruct
	case *ast.InterfaceType:
		kind = kindInterface
	}
	s := x.sym(kind, spec.Name.Name, nil, node, firstLine(x.nodeText(node)))
	switch t := spec.Type.(type) {
	case *ast.StructType:
		for _, f := range t.Fields.List {
			sig := firstLine(x.nodeText(f))
			if len(f.Names) == 0 { // an embedded field is named by its type
				s.Children = append(s.Children, x.sym(kindField, goEmbeddedName(x.nodeText(f.Type)), s, f, sig))
			}
			for _, n := range f.Names {
				s.Children = append(s.Children, x.sym(kindField, n.Name, s, f, sig))
			}
		}
	case *ast.InterfaceType:
		for _, m := range t.Methods.List {
			// Embedded interfaces and type constraints have no name.
			if _, ok := m.Type.(*ast.FuncType); ok && len(m.Names) == 1 {
				s.Children = append(s.Children, x.sym(kindMethod, m.Names[0].Name, s, m, firstLine(x.nodeText(m))))
			}
		}
	}
	return s
}

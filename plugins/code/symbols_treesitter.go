//go:build cgo

package code

import (
	"strings"

	sitter "github.com/smacker/go-tree-sitter"
)

// extractor builds symbols from one parsed file.
type extractor struct {
	src     []byte
	withDoc bool
}

func (x *extractor) text(n *sitter.Node) string {
	if n == nil {
		return ""
	}
	return string(x.src[n.StartByte():n.EndByte()])
}

// field is the text of n's child in the named field, "" when absent.
func (x *extractor) field(n *sitter.Node, name string) string {
	return x.text(n.ChildByFieldName(name))
}

// sym makes a symbol spanning node, child of parent (nil at top level).
func (x *extractor) sym(kind, name string, parent *Symbol, node *sitter.Node, sig string) *Symbol {
	sp, ep := node.StartPoint(), node.EndPoint()
	s := newSymbol(kind, name, parent, span{
		start: int(node.StartByte()), end: int(node.EndByte()),
		startRow: int(sp.Row), endRow: int(ep.Row), endCol: int(ep.Column),
	}, sig)
	if x.withDoc {
		s.DocByte = x.docStart(node)
	}
	return s
}

// docStart is where the comments directly above n start: comment siblings
// with no blank line between them and n.
func (x *extractor) docStart(n *sitter.Node) int {
	start := int(n.StartByte())
	row := n.StartPoint().Row
	for prev := n.PrevSibling(); prev != nil && prev.Type() == "comment"; prev = prev.PrevSibling() {
		if prev.EndPoint().Row+1 < row {
			break
		}
		start, row = int(prev.StartByte()), prev.StartPoint().Row
	}
	return start
}

// headUntil is the signature of a declaration whose body starts at body:
// the text from start to the body, on one line. Without a body it is the
// first line of the node.
func (x *extractor) headUntil(start, body *sitter.Node) string {
	if body == nil {
		return x.firstLine(start)
	}
	return oneLine(string(x.src[start.StartByte():body.StartByte()]))
}

func (x *extractor) firstLine(n *sitter.Node) string {
	return firstLine(x.text(n))
}

// named calls fn for each named child of n.
func named(n *sitter.Node, fn func(c *sitter.Node)) {
	if n == nil {
		return
	}
	for i, k := 0, int(n.NamedChildCount()); i < k; i++ {
		fn(n.NamedChild(i))
	}
}

// ---- Go ----

func goSymbols(x *extractor, root *sitter.Node) []*Symbol {
	var out []*Symbol
	named(root, func(n *sitter.Node) {
		switch n.Type() {
		case "function_declaration":
			out = append(out, x.sym(kindFunction, x.field(n, "name"), nil, n, x.headUntil(n, n.ChildByFieldName("body"))))
		case "method_declaration":
			recv := goReceiverType(x.field(n, "receiver"))
			name := x.field(n, "name")
			s := x.sym(kindMethod, name, nil, n, x.headUntil(n, n.ChildByFieldName("body")))
			if recv != "" {
				s.Path = []string{recv, name}
				s.Qualified = recv + "." + name
			}
			out = append(out, s)
		case "type_declaration":
			specs := goSpecs(n, "type_spec", "type_alias")
			for _, spec := range specs {
				node := spec
				if len(specs) == 1 && !goGrouped(n) {
					node = n
				}
				out = append(out, x.goType(spec, node))
			}
		case "const_declaration", "var_declaration":
			kind, specType := kindConstant, "const_spec"
			if n.Type() == "var_declaration" {
				kind, specType = kindVariable, "var_spec"
			}
			specs := goSpecs(n, specType)
			for _, spec := range specs {
				node := spec
				if len(specs) == 1 && !goGrouped(n) {
					node = n
				}
				sig := x.firstLine(node)
				for i, k := 0, int(spec.ChildCount()); i < k; i++ {
					if spec.FieldNameForChild(i) == "name" {
						out = append(out, x.sym(kind, x.text(spec.Child(i)), nil, node, sig))
					}
				}
			}
		}
	})
	return out
}

// goSpecs lists a declaration's specs, inside parentheses or not.
func goSpecs(n *sitter.Node, types ...string) []*sitter.Node {
	var out []*sitter.Node
	var visit func(n *sitter.Node)
	visit = func(n *sitter.Node) {
		named(n, func(c *sitter.Node) {
			t := c.Type()
			for _, want := range types {
				if t == want {
					out = append(out, c)
					return
				}
			}
			if strings.HasSuffix(t, "_list") {
				visit(c)
			}
		})
	}
	visit(n)
	return out
}

// goGrouped reports whether a declaration uses parentheses.
func goGrouped(n *sitter.Node) bool {
	for i, k := 0, int(n.ChildCount()); i < k; i++ {
		if c := n.Child(i); !c.IsNamed() && c.Type() == "(" {
			return true
		}
	}
	return false
}

func (x *extractor) goType(spec, node *sitter.Node) *Symbol {
	name := x.field(spec, "name")
	typ := spec.ChildByFieldName("type")
	kind := kindType
	if typ != nil {
		switch typ.Type() {
		case "struct_type":
			kind = kindStruct
		case "interface_type":
			kind = kindInterface
		}
	}
	s := x.sym(kind, name, nil, node, x.firstLine(node))
	switch kind {
	case kindStruct:
		named(typ, func(list *sitter.Node) {
			if list.Type() != "field_declaration_list" {
				return
			}
			named(list, func(f *sitter.Node) {
				if f.Type() != "field_declaration" {
					return
				}
				sig := x.firstLine(f)
				found := false
				for i, k := 0, int(f.ChildCount()); i < k; i++ {
					if f.FieldNameForChild(i) == "name" {
						found = true
						s.Children = append(s.Children, x.sym(kindField, x.text(f.Child(i)), s, f, sig))
					}
				}
				if !found { // an embedded field is named by its type
					s.Children = append(s.Children, x.sym(kindField, goEmbeddedName(x.field(f, "type")), s, f, sig))
				}
			})
		})
	case kindInterface:
		named(typ, func(m *sitter.Node) {
			switch m.Type() {
			case "method_elem", "method_spec":
				s.Children = append(s.Children, x.sym(kindMethod, x.field(m, "name"), s, m, x.firstLine(m)))
			}
		})
	}
	return s
}

// ---- Python ----

func pySymbols(x *extractor, root *sitter.Node) []*Symbol {
	return x.pyBlock(root, nil, false)
}

// pyBlock lists the symbols of a module, class or function body. In a
// function only nested definitions count, not local variables.
func (x *extractor) pyBlock(block *sitter.Node, parent *Symbol, inFunction bool) []*Symbol {
	var out []*Symbol
	named(block, func(n *sitter.Node) {
		switch n.Type() {
		case "function_definition", "class_definition":
			out = append(out, x.pyDef(n, n, parent, inFunction, ""))
		case "decorated_definition":
			def := n.ChildByFieldName("definition")
			if def == nil {
				return
			}
			var decos []string
			named(n, func(d *sitter.Node) {
				if d.Type() == "decorator" {
					decos = append(decos, oneLine(x.text(d)))
				}
			})
			out = append(out, x.pyDef(def, n, parent, inFunction, strings.Join(decos, " ")))
		case "expression_statement":
			if inFunction {
				return
			}
			named(n, func(a *sitter.Node) {
				if a.Type() != "assignment" {
					return
				}
				kind := kindVariable
				if parent != nil {
					kind = kindField
				}
				sig := x.firstLine(n)
				for _, name := range pyTargets(x, a.ChildByFieldName("left")) {
					out = append(out, x.sym(kind, name, parent, n, sig))
				}
			})
		case "if_statement", "try_statement", "with_statement", "elif_clause", "else_clause",
			"except_clause", "finally_clause", "block":
			// Definitions under a condition still define the module's or
			// class's names.
			if !inFunction {
				out = append(out, x.pyBlock(n, parent, inFunction)...)
			}
		}
	})
	return out
}

func (x *extractor) pyDef(def, node *sitter.Node, parent *Symbol, inFunction bool, decorators string) *Symbol {
	name := x.field(def, "name")
	body := def.ChildByFieldName("body")
	sig := x.headUntil(def, body)
	if decorators != "" {
		sig = oneLine(decorators + " " + sig)
	}
	if def.Type() == "class_definition" {
		s := x.sym(kindClass, name, parent, node, sig)
		s.Children = x.pyBlock(body, s, false)
		return s
	}
	kind := kindFunction
	if parent != nil && parent.Kind == kindClass && !inFunction {
		kind = kindMethod
	}
	s := x.sym(kind, name, parent, node, sig)
	s.Children = x.pyBlock(body, s, true)
	return s
}

// pyTargets lists the plain names an assignment binds ("a, b = ...");
// attributes and subscripts bind none.
func pyTargets(x *extractor, left *sitter.Node) []string {
	if left == nil {
		return nil
	}
	switch left.Type() {
	case "identifier":
		return []string{x.text(left)}
	case "pattern_list", "tuple_pattern", "list_pattern", "expression_list":
		var out []string
		named(left, func(c *sitter.Node) { out = append(out, pyTargets(x, c)...) })
		return out
	}
	return nil
}

// ---- JavaScript and TypeScript ----

func jsSymbols(x *extractor, root *sitter.Node) []*Symbol {
	return x.jsStatements(root, nil, false)
}

// jsStatements lists the symbols of a program, namespace or function
// body. In a function only nested functions count, not local variables.
func (x *extractor) jsStatements(block *sitter.Node, parent *Symbol, inFunction bool) []*Symbol {
	var out []*Symbol
	named(block, func(n *sitter.Node) {
		out = append(out, x.jsStatement(n, n, parent, inFunction)...)
	})
	return out
}

// jsStatement handles one statement; outer is the node the symbol spans
// (an export statement around a declaration, so that its body is whole).
func (x *extractor) jsStatement(n, outer *sitter.Node, parent *Symbol, inFunction bool) []*Symbol {
	switch n.Type() {
	case "export_statement":
		if d := n.ChildByFieldName("declaration"); d != nil {
			return x.jsStatement(d, outer, parent, inFunction)
		}
	case "ambient_declaration", "expression_statement":
		var out []*Symbol
		named(n, func(c *sitter.Node) { out = append(out, x.jsStatement(c, outer, parent, inFunction)...) })
		return out
	case "function_declaration", "generator_function_declaration", "function_signature":
		body := n.ChildByFieldName("body")
		s := x.sym(kindFunction, x.field(n, "name"), parent, outer, x.headUntil(outer, body))
		s.Children = x.jsStatements(body, s, true)
		return []*Symbol{s}
	case "class_declaration", "abstract_class_declaration":
		if inFunction {
			return nil
		}
		return []*Symbol{x.jsClass(n, outer, x.field(n, "name"), parent)}
	case "lexical_declaration", "variable_declaration":
		return x.jsVariables(n, outer, parent, inFunction)
	case "interface_declaration":
		if inFunction {
			return nil
		}
		body := n.ChildByFieldName("body")
		s := x.sym(kindInterface, x.field(n, "name"), parent, outer, x.headUntil(outer, body))
		named(body, func(m *sitter.Node) {
			if c := x.jsMember(m, s); c != nil {
				s.Children = append(s.Children, c)
			}
		})
		return []*Symbol{s}
	case "type_alias_declaration":
		if inFunction {
			return nil
		}
		return []*Symbol{x.sym(kindType, x.field(n, "name"), parent, outer, x.firstLine(outer))}
	case "enum_declaration":
		if inFunction {
			return nil
		}
		body := n.ChildByFieldName("body")
		s := x.sym(kindEnum, x.field(n, "name"), parent, outer, x.headUntil(outer, body))
		named(body, func(m *sitter.Node) {
			switch m.Type() {
			case "property_identifier", "string":
				s.Children = append(s.Children, x.sym(kindEnumMember, strings.Trim(x.text(m), `"'`), s, m, x.text(m)))
			case "enum_assignment":
				s.Children = append(s.Children, x.sym(kindEnumMember, strings.Trim(x.field(m, "name"), `"'`), s, m, x.firstLine(m)))
			}
		})
		return []*Symbol{s}
	case "internal_module", "module":
		if inFunction {
			return nil
		}
		body := n.ChildByFieldName("body")
		s := x.sym(kindNamespace, strings.Trim(x.field(n, "name"), `"'`), parent, outer, x.headUntil(outer, body))
		s.Children = x.jsStatements(body, s, false)
		return []*Symbol{s}
	}
	return nil
}

// jsVariables handles const, let and var: functions and classes assigned
// to a name are symbols everywhere, other values only outside functions.
func (x *extractor) jsVariables(n, outer *sitter.Node, parent *Symbol, inFunction bool) []*Symbol {
	kind := kindVariable
	if c := n.Child(0); c != nil && c.Type() == "const" {
		kind = kindConstant
	}
	var decls []*sitter.Node
	named(n, func(d *sitter.Node) {
		if d.Type() == "variable_declarator" {
			decls = append(decls, d)
		}
	})
	var out []*Symbol
	for _, d := range decls {
		nameNode := d.ChildByFieldName("name")
		if nameNode == nil || nameNode.Type() != "identifier" {
			continue // destructuring
		}
		name := x.text(nameNode)
		node := d
		if len(decls) == 1 {
			node = outer
		}
		value := d.ChildByFieldName("value")
		vt := ""
		if value != nil {
			vt = value.Type()
		}
		switch vt {
		case "arrow_function", "function_expression", "function", "generator_function":
			body := value.ChildByFieldName("body")
			sigStart := node
			s := x.sym(kindFunction, name, parent, node, x.headUntil(sigStart, body))
			if body != nil && body.Type() == "statement_block" {
				s.Children = x.jsStatements(body, s, true)
			}
			out = append(out, s)
		case "class":
			out = append(out, x.jsClass(value, node, name, parent))
		default:
			if !inFunction {
				out = append(out, x.sym(kind, name, parent, node, x.firstLine(node)))
			}
		}
	}
	return out
}

func (x *extractor) jsClass(n, outer *sitter.Node, name string, parent *Symbol) *Symbol {
	body := n.ChildByFieldName("body")
	s := x.sym(kindClass, name, parent, outer, x.headUntil(outer, body))
	named(body, func(m *sitter.Node) {
		if c := x.jsMember(m, s); c != nil {
			s.Children = append(s.Children, c)
		}
	})
	return s
}

// jsMember is a member of a class body or interface, nil for other nodes.
func (x *extractor) jsMember(m *sitter.Node, parent *Symbol) *Symbol {
	switch m.Type() {
	case "method_definition":
		body := m.ChildByFieldName("body")
		s := x.sym(kindMethod, x.field(m, "name"), parent, m, x.headUntil(m, body))
		s.Children = x.jsStatements(body, s, true)
		return s
	case "method_signature", "abstract_method_signature":
		return x.sym(kindMethod, x.field(m, "name"), parent, m, x.firstLine(m))
	case "field_definition", "public_field_definition", "property_signature":
		nameNode := m.ChildByFieldName("property")
		if nameNode == nil {
			nameNode = m.ChildByFieldName("name")
		}
		if nameNode == nil {
			return nil
		}
		kind := kindField
		if v := m.ChildByFieldName("value"); v != nil {
			switch v.Type() {
			case "arrow_function", "function_expression", "function":
				kind = kindMethod
				return x.sym(kind, x.text(nameNode), parent, m, x.headUntil(m, v.ChildByFieldName("body")))
			}
		}
		return x.sym(kind, x.text(nameNode), parent, m, x.firstLine(m))
	}
	return nil
}

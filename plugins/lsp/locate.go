package lsp

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	lspc "github.com/ramabana/ramabana-mcp/internal/lsp"
	"github.com/ramabana/ramabana-mcp/plugins/internal/hashline"
	"github.com/ramabana/ramabana-mcp/sdk"
)

// spot is where a call's symbol is: a position in its file, and the
// declaration it names when the file declares it.
type spot struct {
	text *lspc.Text
	pos  lspc.Position // in the server's encoding
	line int           // 1-based
	col  int           // 1-based, in bytes
	name string
	// decl is the symbol's declaration in this file, when the spot is one.
	decl *flatSymbol
}

// where is the spot as "path:line:col".
func (s *spot) where(display string) string { return fmt.Sprintf("%s:%d:%d", display, s.line, s.col) }

// flatSymbol is a document symbol with the names of those enclosing it.
type flatSymbol struct {
	sym  lspc.DocumentSymbol
	path []string // name parts, outermost first, the symbol's own last
}

func (f *flatSymbol) pathName() string { return strings.Join(f.path, "/") }

// locate finds the symbol args name in the call's file: by name path among
// the file's declarations (or as the first use of the name), on a line, or
// the declaration (or first name) on a line. needDecl asks for a
// declaration of the file, for the symbol edits.
func locate(ctx context.Context, c *call, ss *session, text *lspc.Text, args symbolArgs, needDecl bool) (*spot, error) {
	name := strings.TrimSpace(args.Symbol)
	if name == "" && args.Line == 0 {
		return nil, sdk.Failf("name the symbol: give symbol (a name such as \"Run\" or a name path such as \"Server/Run\"), line, or both")
	}
	lines := splitLines(text.Content())
	if args.Line > len(lines) {
		return nil, sdk.Failf("%s has %d lines; line %d is past its end", c.file.display, len(lines), args.Line)
	}
	var syms []*flatSymbol
	if name != "" && args.Line == 0 || needDecl || name == "" {
		ds, err := ss.c.DocumentSymbols(ctx, lspc.URIFromPath(c.file.abs))
		if err != nil {
			return nil, err
		}
		syms = flatten(ds, nil, nil)
	}
	enc := ss.c.Encoding()
	at := func(f *flatSymbol) (*spot, error) {
		return spotAt(text, f.sym.SelectionRange.Start, enc, f)
	}
	switch {
	case args.Line > 0:
		content := lines[args.Line-1]
		// The declarations on the line, matching the name if given.
		var on []*flatSymbol
		for _, f := range syms {
			p, err := spotAt(text, f.sym.SelectionRange.Start, enc, f)
			if err == nil && p.line == args.Line && (name == "" || matches(f, parseName(name))) {
				on = append(on, f)
			}
		}
		if len(on) > 0 {
			return at(on[0])
		}
		if needDecl {
			return nil, sdk.Failf("line %d of %s declares no symbol%s; it reads:\n%s", args.Line, c.file.display, forName(name), hashline.Line(args.Line, content))
		}
		word := name
		if word != "" {
			parts := parseName(name)
			word = parts[len(parts)-1]
		}
		col := findWord(content, word)
		if col < 0 {
			what := "no name"
			if word != "" {
				what = fmt.Sprintf("no %q", word)
			}
			return nil, sdk.Failf("line %d of %s has %s; it reads:\n%s", args.Line, c.file.display, what, hashline.Line(args.Line, content))
		}
		off := lineStart(text.Content(), args.Line) + col
		pos, err := text.Position(off, enc)
		if err != nil {
			return nil, err
		}
		return spotAt(text, pos, enc, nil)
	default:
		parts := parseName(name)
		if len(parts) == 0 {
			return nil, sdk.Failf("symbol %q has no name in it; give a name such as \"Run\" or a name path such as \"Server/Run\"", name)
		}
		var found []*flatSymbol
		for _, f := range syms {
			if matches(f, parts) {
				found = append(found, f)
			}
		}
		if len(found) > 1 {
			// A full path wins over a suffix.
			exact := slices.DeleteFunc(slices.Clone(found), func(f *flatSymbol) bool { return len(f.path) != len(parts) })
			if len(exact) == 1 {
				found = exact
			}
		}
		switch {
		case len(found) == 1:
			return at(found[0])
		case len(found) > 1:
			var b strings.Builder
			fmt.Fprintf(&b, "%s declares %d symbols named %q; give the line (or a longer name path):", c.file.display, len(found), name)
			for _, f := range found {
				if p, err := at(f); err == nil {
					fmt.Fprintf(&b, "\n  %s %s, line %d", f.sym.Kind, f.pathName(), p.line)
				}
			}
			return nil, sdk.Failf("%s", b.String())
		}
		if needDecl {
			return nil, sdk.Failf("%s declares no symbol named %q%s", c.file.display, name, declared(syms))
		}
		// Not declared here: its first use.
		word := parts[len(parts)-1]
		for i, content := range lines {
			if col := findWord(content, word); col >= 0 {
				off := lineStart(text.Content(), i+1) + col
				pos, err := text.Position(off, enc)
				if err != nil {
					return nil, err
				}
				return spotAt(text, pos, enc, nil)
			}
		}
		return nil, sdk.Failf("%s neither declares nor uses %q%s", c.file.display, name, declared(syms))
	}
}

func forName(name string) string {
	if name == "" {
		return ""
	}
	return fmt.Sprintf(" named %q", name)
}

// declared lists a few of the file's declarations, for an error.
func declared(syms []*flatSymbol) string {
	if len(syms) == 0 {
		return ""
	}
	var names []string
	for _, f := range syms {
		if len(names) == 12 {
			names = append(names, "…")
			break
		}
		names = append(names, f.pathName())
	}
	return "; it declares " + strings.Join(names, ", ")
}

// spotAt is the spot at pos.
func spotAt(text *lspc.Text, pos lspc.Position, enc lspc.Encoding, decl *flatSymbol) (*spot, error) {
	off, err := text.Offset(pos, enc)
	if err != nil {
		return nil, err
	}
	b, err := text.Position(off, lspc.UTF8)
	if err != nil {
		return nil, err
	}
	s := &spot{text: text, pos: pos, line: b.Line + 1, col: b.Character + 1, decl: decl}
	rest := text.Content()[off:]
	n := 0
	for n < len(rest) {
		r, size := utf8.DecodeRune(rest[n:])
		if !isIdent(r) {
			break
		}
		n += size
	}
	s.name = string(rest[:n])
	return s, nil
}

// flatten lists symbols depth first with their name paths.
func flatten(syms []lspc.DocumentSymbol, parent []string, out []*flatSymbol) []*flatSymbol {
	for _, s := range syms {
		path := append(slices.Clip(parent), symbolParts(s.Name)...)
		out = append(out, &flatSymbol{sym: s, path: path})
		out = flatten(s.Children, path, out)
	}
	return out
}

// symbolParts splits a server's symbol name into name parts: gopls names
// a method "(*Server).Run" or "Server.Run".
func symbolParts(name string) []string {
	name = strings.NewReplacer("(", "", ")", "", "*", "").Replace(name)
	if i := strings.IndexAny(name, " <["); i > 0 { // generics, signatures
		name = name[:i]
	}
	return strings.FieldsFunc(name, func(r rune) bool { return r == '.' })
}

// parseName splits a name path given by the model: "Server/Run",
// "Server.Run", "(*Server).Run", "Server::Run".
func parseName(s string) []string {
	s = strings.NewReplacer("(", "", ")", "", "*", "", "::", "/").Replace(strings.TrimSpace(s))
	s = strings.TrimPrefix(s, "/")
	var parts []string
	for _, p := range strings.FieldsFunc(s, func(r rune) bool { return r == '/' || r == '.' }) {
		if p = strings.TrimSpace(p); p != "" {
			parts = append(parts, p)
		}
	}
	return parts
}

// matches says the symbol's name path ends with parts.
func matches(f *flatSymbol, parts []string) bool {
	if len(parts) == 0 || len(parts) > len(f.path) {
		return false
	}
	return slices.Equal(f.path[len(f.path)-len(parts):], parts)
}

func isIdent(r rune) bool { return r == '_' || r == '$' || unicode.IsLetter(r) || unicode.IsDigit(r) }

// findWord is the byte column of the first whole-word word in line, or
// of its first name when word is empty; -1 if none.
func findWord(line, word string) int {
	if word == "" {
		for i, r := range line {
			if isIdent(r) && !unicode.IsDigit(r) {
				return i
			}
		}
		return -1
	}
	for from := 0; from <= len(line); {
		i := strings.Index(line[from:], word)
		if i < 0 {
			return -1
		}
		i += from
		before, _ := utf8.DecodeLastRuneInString(line[:i])
		after, _ := utf8.DecodeRuneInString(line[i+len(word):])
		if (i == 0 || !isIdent(before)) && (i+len(word) == len(line) || !isIdent(after)) {
			return i
		}
		from = i + 1
	}
	return -1
}

// splitLines cuts content into lines without their endings.
func splitLines(content []byte) []string {
	s := string(content)
	if s == "" {
		return nil
	}
	s = strings.TrimSuffix(s, "\n")
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	return lines
}

// lineStart is the byte offset where 1-based line n starts.
func lineStart(content []byte, n int) int {
	off := 0
	for i := 1; i < n; i++ {
		j := bytes.IndexByte(content[off:], '\n')
		if j < 0 {
			return len(content)
		}
		off += j + 1
	}
	return off
}

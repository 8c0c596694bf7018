package code

import (
	"context"
	"path/filepath"
	"strings"

	"github.com/ramabana/ramabana-mcp/plugins/internal/wording"
	"github.com/ramabana/ramabana-mcp/sdk"
)

// language is a source language the symbol tools read. Which ones this
// build can parse is parses' answer: all of them with cgo (tree-sitter,
// lang_cgo.go), Go alone without (go/parser, lang_nocgo.go).
type language struct {
	name string
	exts []string
}

var (
	langGo     = &language{name: "Go", exts: []string{".go"}}
	langPython = &language{name: "Python", exts: []string{".py", ".pyi"}}
	langJS     = &language{name: "JavaScript", exts: []string{".js", ".jsx", ".mjs", ".cjs"}}
	langTS     = &language{name: "TypeScript", exts: []string{".ts", ".mts", ".cts"}}
	langTSX    = &language{name: "TSX", exts: []string{".tsx"}}

	languages = []*language{langGo, langPython, langJS, langTS, langTSX}
)

// languageFor picks the language of a file by its extension; nil when it
// is not supported.
func languageFor(name string) *language {
	ext := strings.ToLower(filepath.Ext(name))
	if ext == "" {
		return nil
	}
	for _, l := range languages {
		for _, e := range l.exts {
			if e == ext {
				return l
			}
		}
	}
	return nil
}

// supportedExts lists the extensions the symbol tools read, for messages.
func supportedExts() string {
	var parts []string
	for _, l := range languages {
		parts = append(parts, l.name+" ("+strings.Join(l.exts, " ")+")")
	}
	return strings.Join(parts, ", ")
}

// needsCgo is the tool error for a file in a language this build does
// not parse; what names the use, as in "outline of".
func needsCgo(what string, l *language) error {
	return sdk.Failf("%s %s sources needs a build with cgo (CGO_ENABLED=1 and a C compiler); this binary was built without it; Go sources work", what, l.name)
}

// unparsedReason says why unparsedFiles were left out.
const unparsedReason = "parsing them needs a build with cgo (CGO_ENABLED=1 and a C compiler); this binary was built without it"

// unparsedFiles counts the files a walk leaves out because this build does
// not parse their language; a build with cgo leaves none out.
type unparsedFiles struct {
	n     int
	first *language
	seen  map[*language]bool
}

// skip reports whether name is in a language this build does not parse,
// counting it if so.
func (u *unparsedFiles) skip(name string) bool {
	l := languageFor(name)
	if l == nil || parses(l) {
		return false
	}
	u.n++
	if u.first == nil {
		u.first, u.seen = l, map[*language]bool{}
	}
	u.seen[l] = true
	return true
}

// String is "3 Python and TSX files".
func (u unparsedFiles) String() string {
	var names []string
	for _, l := range languages {
		if u.seen[l] {
			names = append(names, l.name)
		}
	}
	langs := names[len(names)-1]
	if k := len(names); k > 1 {
		langs = strings.Join(names[:k-1], ", ") + " and " + langs
	}
	return wording.CountOf(u.n, langs+" file", langs+" files")
}

// symbols parses src, a file in l, with the worker's parser for l, made
// on first use. Symbols keep no reference to the parser or its tree.
// The caller has checked parses(l).
func (st *workerState) symbols(ctx context.Context, l *language, src []byte, withDoc bool) ([]*Symbol, error) {
	if st.parsers == nil {
		st.parsers = map[*language]*parser{}
	}
	p, ok := st.parsers[l]
	if !ok {
		p = newParser(l)
		st.parsers[l] = p
	}
	return p.symbols(ctx, src, withDoc)
}

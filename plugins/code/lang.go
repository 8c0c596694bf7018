package code

import (
	"context"
	"path/filepath"
	"strings"
	"sync"

	sitter "github.com/smacker/go-tree-sitter"
	"github.com/smacker/go-tree-sitter/golang"
	"github.com/smacker/go-tree-sitter/javascript"
	"github.com/smacker/go-tree-sitter/python"
	"github.com/smacker/go-tree-sitter/typescript/tsx"
	"github.com/smacker/go-tree-sitter/typescript/typescript"
)

// language is a source language the symbol tools parse.
type language struct {
	name string
	exts []string
	// grammar returns the tree-sitter language, made once.
	grammar func() *sitter.Language
	// symbols lists the symbols of a parsed file.
	symbols func(x *extractor, root *sitter.Node) []*Symbol
}

var (
	langGo = &language{name: "Go", exts: []string{".go"},
		grammar: sync.OnceValue(golang.GetLanguage), symbols: goSymbols}
	langPython = &language{name: "Python", exts: []string{".py", ".pyi"},
		grammar: sync.OnceValue(python.GetLanguage), symbols: pySymbols}
	langJS = &language{name: "JavaScript", exts: []string{".js", ".jsx", ".mjs", ".cjs"},
		grammar: sync.OnceValue(javascript.GetLanguage), symbols: jsSymbols}
	langTS = &language{name: "TypeScript", exts: []string{".ts", ".mts", ".cts"},
		grammar: sync.OnceValue(typescript.GetLanguage), symbols: jsSymbols}
	langTSX = &language{name: "TSX", exts: []string{".tsx"},
		grammar: sync.OnceValue(tsx.GetLanguage), symbols: jsSymbols}

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

// parser is a tree-sitter parser for one language; not safe for
// concurrent use.
type parser struct {
	p *sitter.Parser
}

func (st *workerState) parser(l *language) *parser {
	if st.parsers == nil {
		st.parsers = map[*language]*parser{}
	}
	p, ok := st.parsers[l]
	if !ok {
		p = &parser{p: sitter.NewParser()}
		p.p.SetLanguage(l.grammar())
		st.parsers[l] = p
	}
	return p
}

func (p *parser) close() { p.p.Close() }

// symbols parses src and returns its symbols. The tree is freed before it
// returns; symbols keep no reference to it.
func (p *parser) symbols(ctx context.Context, l *language, src []byte, withDoc bool) ([]*Symbol, error) {
	tree, err := p.p.ParseCtx(ctx, nil, src)
	if err != nil {
		return nil, err
	}
	defer tree.Close()
	x := &extractor{src: src, withDoc: withDoc}
	return l.symbols(x, tree.RootNode()), nil
}

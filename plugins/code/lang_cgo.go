//go:build cgo

package code

import (
	"context"
	"sync"

	sitter "github.com/smacker/go-tree-sitter"
	"github.com/smacker/go-tree-sitter/golang"
	"github.com/smacker/go-tree-sitter/javascript"
	"github.com/smacker/go-tree-sitter/python"
	"github.com/smacker/go-tree-sitter/typescript/tsx"
	"github.com/smacker/go-tree-sitter/typescript/typescript"
)

// grammar is how tree-sitter reads one language.
type grammar struct {
	// language returns the tree-sitter language, made once.
	language func() *sitter.Language
	// symbols lists the symbols of a parsed file.
	symbols func(x *extractor, root *sitter.Node) []*Symbol
}

var grammars = map[*language]grammar{
	langGo:     {sync.OnceValue(golang.GetLanguage), goSymbols},
	langPython: {sync.OnceValue(python.GetLanguage), pySymbols},
	langJS:     {sync.OnceValue(javascript.GetLanguage), jsSymbols},
	langTS:     {sync.OnceValue(typescript.GetLanguage), jsSymbols},
	langTSX:    {sync.OnceValue(tsx.GetLanguage), jsSymbols},
}

// parses reports whether this build parses l: with cgo, every language.
func parses(l *language) bool {
	_, ok := grammars[l]
	return ok
}

// parser is a tree-sitter parser for one language; not safe for
// concurrent use.
type parser struct {
	p *sitter.Parser
	g grammar
}

func newParser(l *language) *parser {
	g := grammars[l]
	p := &parser{p: sitter.NewParser(), g: g}
	p.p.SetLanguage(g.language())
	return p
}

func (p *parser) close() { p.p.Close() }

// symbols parses src and returns its symbols. The tree is freed before it
// returns.
func (p *parser) symbols(ctx context.Context, src []byte, withDoc bool) ([]*Symbol, error) {
	tree, err := p.p.ParseCtx(ctx, nil, src)
	if err != nil {
		return nil, err
	}
	defer tree.Close()
	x := &extractor{src: src, withDoc: withDoc}
	return p.g.symbols(x, tree.RootNode()), nil
}

//go:build !cgo

package code

import (
	"context"
	"fmt"
)

// parses reports whether this build parses l: without cgo there is no
// tree-sitter, and Go alone is read, by go/parser.
func parses(l *language) bool { return l == langGo }

// parser reads Go sources with go/parser; it holds nothing between files.
type parser struct {
	l *language
}

func newParser(l *language) *parser { return &parser{l: l} }

func (p *parser) close() {}

// symbols parses src and returns its symbols. go/parser takes no context,
// so a cancelled call stops before parsing, not during.
func (p *parser) symbols(ctx context.Context, src []byte, withDoc bool) ([]*Symbol, error) {
	if p.l != langGo {
		return nil, fmt.Errorf("no parser for %s in a build without cgo", p.l.name)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return goASTSymbols(src, withDoc), nil
}

//go:build cgo

package code

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestGoASTMatchesTreeSitter holds the cgo-free Go parser to tree-sitter's
// answers, with doc comments, on every Go file of this module and on
// the cases tree-sitter's grammar and go/ast shape differently.
func TestGoASTMatchesTreeSitter(t *testing.T) {
	t.Parallel()
	sources := map[string][]byte{
		"embedded generic":           []byte("package p\n\ntype S struct {\n\t*list.List[int]\n\tBox[T]\n\tio.Reader `json:\"r\"`\n}\n"),
		"grouped":                    []byte("package p\n\n// doc\ntype (\n\t// A is a.\n\tA int\n\tB = string\n)\n\nvar (\n\tx, y = 1, 2 // trailing\n\tz int\n)\n\nconst C = 1; const D = 2\n"),
		"interface with constraints": []byte("package p\n\ntype N interface {\n\t~int | ~float64\n\tfmt.Stringer\n\t// M does.\n\tM(a,\n\t\tb int) (int, error)\n}\n"),
		"doc comments":               []byte("// Package p.\npackage p\n\n/* block\n   doc */\n// line\nfunc F() {}\n\n// far\n\nfunc G() {}\n\nfunc H() {} // after\nfunc I() {}\n"),
		"no body and alias":          []byte("package p\n\nfunc asm(x int) int\n\ntype P = *struct{ a int }\n"),
		"receivers":                  []byte("package p\n\nfunc (Pair[K, V]) A() {}\nfunc (p *Pair[K, V]) B() {}\nfunc (T) C() {}\n"),
		"CRLF":                       []byte("package p\r\n\r\n// F.\r\nfunc F(a,\r\n\tb int) {\r\n}\r\n"),
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".go") {
			src, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, path)
			sources[rel] = src
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(sources) < 100 {
		t.Fatalf("found %d Go files under %s; the walk missed the module", len(sources), root)
	}
	p := newParser(langGo)
	defer p.close()
	for name, src := range sources {
		want, err := p.symbols(context.Background(), src, true)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got := goASTSymbols(src, true)
		if reflect.DeepEqual(want, got) { // cheaper than cmp.Diff on 400 files
			continue
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: go/parser's symbols differ from tree-sitter's (-tree-sitter +go/parser):\n%s", name, diff)
		}
	}
}

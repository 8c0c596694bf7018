//go:build linux

package lsp_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ramabana/ramabana-mcp/internal/lsp/lsptest"
	"github.com/ramabana/ramabana-mcp/sdk"
	"github.com/ramabana/ramabana-mcp/sdk/sdktest"
)

// The read tools answer what gopls answers: references equal gopls's own
// command line's, the definition shows the declaration, hover its type and
// documentation, and diagnostics follow the disk as other programs change
// it, the files not open included.
func TestGoReadTools(t *testing.T) {
	t.Parallel()
	gopls := lsptest.Gopls(t)
	w := serve(t, "go", map[string][]string{"go": gopls}, nil)

	refs := w.call(t, "find_references", map[string]any{"path": "shape/shape.go", "symbol": "Area"})
	want := goplsReferences(t, gopls, w.root, "shape/shape.go:5:6")
	if diff := cmp.Diff(want, shownPlaces(refs)); diff != "" {
		t.Errorf("find_references differs from gopls references (-gopls +tool):\n%s\n%s", diff, refs)
	}
	if strings.Contains(refs, "other/other.go") {
		t.Errorf("find_references lists a same-named symbol:\n%s", refs)
	}
	if !strings.HasPrefix(refs, "6 references to Area at shape/shape.go:5:6, in 6 files (the declaration among them):\n") {
		t.Errorf("find_references says:\n%s", refs)
	}
	// A local of the same name is another symbol.
	local := w.call(t, "find_references", map[string]any{"path": "report/largest.go", "symbol": "Area", "line": 11})
	if diff := cmp.Diff([]string{"report/largest.go:10", "report/largest.go:11"}, shownPlaces(local)); diff != "" {
		t.Errorf("find_references of a local (-want +got):\n%s\n%s", diff, local)
	}
	// By line: the use on line 12 of main.go.
	byLine := w.call(t, "find_references", map[string]any{"path": "cmd/tool/main.go", "line": 12, "symbol": "Area", "include_declaration": false})
	if diff := cmp.Diff(slices.DeleteFunc(want, func(s string) bool { return s == "shape/shape.go:5" }), shownPlaces(byLine)); diff != "" {
		t.Errorf("find_references by line (-want +got):\n%s\n%s", diff, byLine)
	}

	def := w.call(t, "find_definition", map[string]any{"path": "report/report.go", "symbol": "Area", "line": 10})
	for _, s := range []string{"Definition of Area (used at report/report.go:10:14):", "shape/shape.go:5\n", "|func Area(w, h float64) float64 {", "|\treturn w * h", "7|"} {
		if !strings.Contains(def, s) {
			t.Errorf("find_definition lacks %q:\n%s", s, def)
		}
	}

	info := w.call(t, "symbol_info", map[string]any{"path": "stats/stats.go", "symbol": "Area", "line": 13})
	for _, s := range []string{"func shape.Area(w float64, h float64) float64", "Area returns the area of a w × h rectangle."} {
		if !strings.Contains(info, s) {
			t.Errorf("symbol_info lacks %q:\n%s", s, info)
		}
	}

	if d := w.call(t, "diagnostics", map[string]any{"path": "stats/stats.go"}); !strings.Contains(d, "finds no problems") {
		t.Errorf("diagnostics of a clean file:\n%s", d)
	}
	// Another program changes a file the server has open, and one it has
	// not: shape.Area takes a third argument.
	clean := w.read(t, "stats/stats.go")
	w.write(t, "stats/stats.go", strings.Replace(clean, "return sum / float64(len(sizes))", "return sum / len(sizes)", 1))
	d := w.call(t, "diagnostics", map[string]any{"path": "stats/stats.go"})
	if !strings.Contains(d, "1 error") || !strings.Contains(d, "15|") || !strings.Contains(d, "mismatched types") {
		t.Errorf("diagnostics after an edit on disk:\n%s", d)
	}
	w.write(t, "stats/stats.go", clean)
	w.write(t, "shape/shape.go", strings.Replace(w.read(t, "shape/shape.go"), "func Area(w, h float64)", "func Area(w, h, d float64)", 1))
	d = w.call(t, "diagnostics", map[string]any{"path": "report/report.go"})
	if !strings.Contains(d, "not enough arguments") {
		t.Errorf("diagnostics after a change to another file, never opened:\n%s", d)
	}
}

// A rename of an exported identifier used in six files changes exactly its
// references (not a local or another package's symbol of the same name),
// all of them, and leaves the module building and vetting clean.
func TestGoRename(t *testing.T) {
	t.Parallel()
	w := serve(t, "go", map[string][]string{"go": lsptest.Gopls(t)}, nil)
	before := w.snapshot(t)
	res := sdktest.Call(t, w.group, "rename_symbol", map[string]any{"path": "shape/shape.go", "symbol": "Area", "new_name": "Surface"})
	if res.IsError {
		t.Fatal(res.Text())
	}
	text := res.Text()
	if !strings.HasPrefix(text, "Renamed Area to Surface: 7 edits in 6 files.\n") {
		t.Errorf("rename_symbol says:\n%s", text)
	}
	after := w.snapshot(t)
	var changed []string
	for f, b := range before {
		if after[f] != b {
			changed = append(changed, f)
		}
	}
	slices.Sort(changed)
	want := []string{"cmd/tool/main.go", "report/largest.go", "report/report.go", "shape/shape.go", "shape/square.go", "stats/stats.go"}
	if diff := cmp.Diff(want, changed); diff != "" {
		t.Errorf("changed files (-want +got):\n%s", diff)
	}
	var paths []string
	for _, ch := range res.Changes {
		paths = append(paths, strings.TrimPrefix(ch.Path, w.root+"/"))
	}
	slices.Sort(paths)
	if diff := cmp.Diff(want, paths); diff != "" {
		t.Errorf("the changes reported (-want +got):\n%s", diff)
	}
	if got := after["report/largest.go"]; !strings.Contains(got, "Area := shape.Surface(s[0], s[1])") || !strings.Contains(got, "max(best, Area)") {
		t.Errorf("the local Area was renamed, or shape.Area was not:\n%s", got)
	}
	if after["other/other.go"] != before["other/other.go"] {
		t.Error("other.Area was renamed")
	}
	// The changed lines are shown as lines an edit can follow.
	if !strings.Contains(text, "shape/shape.go\n4|") || !strings.Contains(text, "|func Surface(w, h float64) float64 {") {
		t.Errorf("rename_symbol shows:\n%s", text)
	}
	goCheck(t, w.root)

	// The server knows the new name at once.
	refs := w.call(t, "find_references", map[string]any{"path": "stats/stats.go", "symbol": "Surface", "line": 13})
	if !strings.HasPrefix(refs, "6 references to Surface") {
		t.Errorf("find_references after the rename:\n%s", refs)
	}
}

// An edit is refused, and nothing written, when one of its files changed
// after the language server read it, whichever file it is.
func TestGoStaleEditRefused(t *testing.T) {
	t.Parallel()
	w := serve(t, "go", map[string][]string{"go": lsptest.Gopls(t)}, nil)
	before := w.snapshot(t)
	w.plugin.SetBeforeWrite(func() {
		w.write(t, "stats/stats.go", before["stats/stats.go"]+"\n// changed meanwhile\n")
	})
	msg := w.fail(t, "rename_symbol", map[string]any{"path": "shape/shape.go", "symbol": "Area", "new_name": "Surface"})
	if !strings.Contains(msg, "stats/stats.go changed since the language server read it") || !strings.Contains(msg, "nothing was written") {
		t.Errorf("the refusal says: %s", msg)
	}
	after := w.snapshot(t)
	after["stats/stats.go"] = before["stats/stats.go"]
	if diff := cmp.Diff(before, after); diff != "" {
		t.Errorf("a refused edit changed files (-before +after):\n%s", diff)
	}

	// The same for a symbol edit of an open file.
	w.plugin.SetBeforeWrite(func() {
		w.write(t, "shape/square.go", before["shape/square.go"]+"\n// changed meanwhile\n")
	})
	msg = w.fail(t, "replace_symbol_body", map[string]any{"path": "shape/square.go", "symbol": "Square", "body": "func Square(s float64) float64 { return s * s }"})
	if !strings.Contains(msg, "shape/square.go changed since the language server read it") {
		t.Errorf("the refusal says: %s", msg)
	}
	if got := w.read(t, "shape/square.go"); got != before["shape/square.go"]+"\n// changed meanwhile\n" {
		t.Errorf("a refused symbol edit wrote:\n%s", got)
	}

	// Without interference, the next rename goes through.
	w.plugin.SetBeforeWrite(nil)
	w.call(t, "rename_symbol", map[string]any{"path": "shape/shape.go", "symbol": "Area", "new_name": "Surface"})
	goCheck(t, w.root)
}

// The symbol edits find a declaration by the server's symbols and write
// around it: a declaration replaced, lines inserted before its doc
// comment, and after its end.
func TestGoSymbolEdits(t *testing.T) {
	t.Parallel()
	w := serve(t, "go", map[string][]string{"go": lsptest.Gopls(t)}, nil)
	res := w.call(t, "replace_symbol_body", map[string]any{"path": "shape/square.go", "symbol": "Square", "body": "func Square(s float64) float64 {\n\treturn s * s\n}\n"})
	if !strings.HasPrefix(res, "Replaced Square in shape/square.go.\nshape/square.go\n4|") {
		t.Errorf("replace_symbol_body says:\n%s", res)
	}
	w.call(t, "insert_before_symbol", map[string]any{"path": "shape/shape.go", "symbol": "Area", "text": "// Unit is the unit of length.\nconst Unit = 1.0\n\n"})
	w.call(t, "insert_after_symbol", map[string]any{"path": "shape/shape.go", "symbol": "Area", "text": "\n// Perimeter returns the perimeter of a w × h rectangle.\nfunc Perimeter(w, h float64) float64 { return 2 * (w + h) }"})
	want := `// Package shape measures shapes.
package shape

// Unit is the unit of length.
const Unit = 1.0

// Area returns the area of a w × h rectangle.
func Area(w, h float64) float64 {
	return w * h
}

// Perimeter returns the perimeter of a w × h rectangle.
func Perimeter(w, h float64) float64 { return 2 * (w + h) }
`
	if diff := cmp.Diff(want, w.read(t, "shape/shape.go")); diff != "" {
		t.Errorf("shape.go after the inserts (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff("package shape\n\n// Square returns the area of a square of side s.\nfunc Square(s float64) float64 {\n\treturn s * s\n}\n", w.read(t, "shape/square.go")); diff != "" {
		t.Errorf("square.go after the replace (-want +got):\n%s", diff)
	}
	goCheck(t, w.root)

	// A name the file does not declare, and a line without a declaration.
	if msg := w.fail(t, "replace_symbol_body", map[string]any{"path": "shape/square.go", "symbol": "Cube", "body": "x"}); !strings.Contains(msg, `declares no symbol named "Cube"; it declares Square`) {
		t.Errorf("an unknown symbol: %s", msg)
	}
	if msg := w.fail(t, "insert_after_symbol", map[string]any{"path": "shape/square.go", "line": 1, "text": "x"}); !strings.Contains(msg, "line 1 of shape/square.go declares no symbol") {
		t.Errorf("a line without a declaration: %s", msg)
	}
	if msg := w.fail(t, "replace_symbol_body", map[string]any{"path": "shape/square.go", "symbol": "Square", "body": "4|abcd|func Square() {}"}); !strings.Contains(msg, "view_file's") {
		t.Errorf("a body with view_file's prefixes: %s", msg)
	}
}

// Served this repository, the group's references of sdk.Failf (hundreds,
// in dozens of packages) equal gopls's own command line's.
func TestGoOnThisRepository(t *testing.T) {
	t.Parallel()
	gopls := lsptest.Gopls(t)
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if root, err = filepath.EvalSymlinks(root); err != nil {
		t.Fatal(err)
	}
	const file, line = "sdk/failure.go", 21
	w := serveIn(t, root, map[string][]string{"go": gopls}, func(h *sdk.Host) { h.Write = false })
	if got := strings.Split(w.read(t, file), "\n")[line-1]; !strings.HasPrefix(got, "func Failf(") {
		t.Fatalf("%s:%d is %q; update the test", file, line, got)
	}
	refs := w.call(t, "find_references", map[string]any{"path": file, "symbol": "Failf", "line": line, "limit": 5000})
	want := goplsReferences(t, gopls, root, fmt.Sprintf("%s:%d:6", file, line))
	if len(want) < 100 {
		t.Fatalf("gopls found only %d references", len(want))
	}
	if diff := cmp.Diff(want, shownPlaces(refs)); diff != "" {
		t.Errorf("find_references differs from gopls references (-gopls +tool):\n%s", diff)
	}
}

// A file the scan does not see (gitignored) that changed after the server
// read it: the rename's edits no longer fall on the old name, and the
// whole rename is refused.
func TestGoStaleIgnoredFileRefused(t *testing.T) {
	t.Parallel()
	root := copyFixture(t, "go")
	if err := os.WriteFile(filepath.Join(root, ".gitignore"), []byte("gen/\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	w := serveIn(t, root, map[string][]string{"go": lsptest.Gopls(t)}, nil)
	if err := os.MkdirAll(filepath.Join(root, "gen"), 0o755); err != nil {
		t.Fatal(err)
	}
	w.write(t, "gen/gen.go", "package gen\n\nimport \"example.com/shapes/shape\"\n\nvar Unit = shape.Area(1, 1)\n")
	// gopls reads it from disk: it is not opened.
	if refs := w.call(t, "find_references", map[string]any{"path": "shape/shape.go", "symbol": "Area"}); !strings.Contains(refs, "gen/gen.go") {
		t.Fatalf("gopls does not know gen/gen.go:\n%s", refs)
	}
	// A generator rewrites it; the scan ignores gen/, so gopls is not told.
	w.write(t, "gen/gen.go", "// Code generated. DO NOT EDIT.\n\n// More.\npackage gen\n\nimport \"example.com/shapes/shape\"\n\nvar Unit = shape.Area(1, 1)\n")
	before := w.snapshot(t)
	msg := w.fail(t, "rename_symbol", map[string]any{"path": "shape/shape.go", "symbol": "Area", "new_name": "Surface"})
	if !strings.Contains(msg, "would replace") || !strings.Contains(msg, "Nothing was written") || !strings.Contains(msg, "gen/gen.go") {
		t.Errorf("the refusal: %s", msg)
	}
	if diff := cmp.Diff(before, w.snapshot(t)); diff != "" {
		t.Errorf("a refused rename changed files:\n%s", diff)
	}
}

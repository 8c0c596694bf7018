//go:build linux

package lsp_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	lspc "github.com/ramabana/ramabana-mcp/internal/lsp"
	"github.com/ramabana/ramabana-mcp/internal/lsp/lsptest"
)

// directReferences is what the language server answers, driven directly
// with the LSP client, for the references of the symbol at line:col
// (1-based, the column in bytes) of file, as sorted "file:line". ready
// says when the server has loaded the workspace.
func directReferences(t *testing.T, command []string, initOptions any, root, file string, line, col int, ready func(p *lspc.Progress, msg string) bool) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	loaded := make(chan struct{})
	var once sync.Once
	mark := func() { once.Do(func() { close(loaded) }) }
	c, err := lspc.Start(ctx, lspc.Config{
		Command: command, Dir: root, Folders: []string{root}, InitializationOptions: initOptions,
		OnProgress: func(p lspc.Progress) {
			if ready(&p, "") {
				mark()
			}
		},
		OnMessage: func(_ int, text string) {
			if ready(nil, text) {
				mark()
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	path := filepath.Join(root, file)
	data := []byte(readFile(t, path))
	uri := lspc.URIFromPath(path)
	if err := c.DidOpen(uri, strings.TrimPrefix(filepath.Ext(file), "."), data); err != nil {
		t.Fatal(err)
	}
	select {
	case <-loaded:
	case <-ctx.Done():
		t.Fatal("the server did not load the workspace")
	}
	text := lspc.NewText(data)
	off, err := text.Offset(lspc.Position{Line: line - 1, Character: col - 1}, lspc.UTF8)
	if err != nil {
		t.Fatal(err)
	}
	pos, err := text.Position(off, c.Encoding())
	if err != nil {
		t.Fatal(err)
	}
	locs, err := c.References(ctx, uri, pos, true)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range locs {
		p, _ := lspc.PathFromURI(l.URI)
		rel, _ := filepath.Rel(root, p)
		out = append(out, filepath.ToSlash(rel)+":"+itoa(int(l.Range.Start.Line)+1))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

var pyrightLoaded = regexp.MustCompile(`^Found \d+ source files?`)

// Pyright through the group: references equal a direct session's, the
// definition and hover, diagnostics, and a rename across files.
func TestPython(t *testing.T) {
	t.Parallel()
	pyright := lsptest.Pyright(t)
	w := serve(t, "python", map[string][]string{"python": pyright}, nil)

	refs := w.call(t, "find_references", map[string]any{"path": "geometry.py", "symbol": "area"})
	want := directReferences(t, pyright, nil, w.root, "geometry.py", 4, 5, func(_ *lspc.Progress, msg string) bool { return pyrightLoaded.MatchString(msg) })
	if len(want) < 4 {
		t.Fatalf("the direct session found only %v", want)
	}
	if diff := cmp.Diff(want, shownPlaces(refs)); diff != "" {
		t.Errorf("find_references differs from pyright's own answer (-pyright +tool):\n%s\n%s", diff, refs)
	}
	def := w.call(t, "find_definition", map[string]any{"path": "report.py", "symbol": "area", "line": 9})
	for _, s := range []string{"geometry.py:4\n", "|def area(w: float, h: float) -> float:", "|    return w * h"} {
		if !strings.Contains(def, s) {
			t.Errorf("find_definition lacks %q:\n%s", s, def)
		}
	}
	if info := w.call(t, "symbol_info", map[string]any{"path": "main.py", "symbol": "square"}); !strings.Contains(info, "(s: float) -> float") || !strings.Contains(info, "Return the area of a square") {
		t.Errorf("symbol_info:\n%s", info)
	}
	w.write(t, "report.py", strings.Replace(w.read(t, "report.py"), "t = 0.0", `t: float = "zero"`, 1))
	if d := w.call(t, "diagnostics", map[string]any{"path": "report.py"}); !strings.Contains(d, "1 error") || !strings.Contains(d, "7|") {
		t.Errorf("diagnostics after an edit on disk:\n%s", d)
	}
	w.write(t, "report.py", strings.Replace(w.read(t, "report.py"), `t: float = "zero"`, "t = 0.0", 1))
	if d := w.call(t, "diagnostics", map[string]any{"path": "report.py"}); !strings.Contains(d, "finds no problems") {
		t.Errorf("diagnostics once fixed:\n%s", d)
	}
	res := w.call(t, "rename_symbol", map[string]any{"path": "geometry.py", "symbol": "area", "new_name": "surface"})
	if !strings.Contains(res, "in 3 files") {
		t.Errorf("rename_symbol:\n%s", res)
	}
	for file, s := range map[string]string{"geometry.py": "def surface(w", "report.py": "geometry.surface(w, h)", "main.py": "from geometry import surface, square"} {
		if got := w.read(t, file); !strings.Contains(got, s) {
			t.Errorf("%s after the rename lacks %q:\n%s", file, s, got)
		}
	}
}

// typescript-language-server through the group, with the tsserver
// installed beside it.
func TestTypeScript(t *testing.T) {
	t.Parallel()
	tsls := lsptest.TypeScript(t)
	w := serve(t, "typescript", map[string][]string{"typescript": tsls}, nil)

	refs := w.call(t, "find_references", map[string]any{"path": "geometry.ts", "symbol": "area"})
	initOptions := map[string]any{"tsserver": map[string]any{"path": lsptest.TSServer(t)}, "disableAutomaticTypingAcquisition": true}
	want := directReferences(t, tsls, initOptions, w.root, "geometry.ts", 2, 17, func(p *lspc.Progress, _ string) bool {
		return p != nil && p.Kind == "end" && strings.HasPrefix(p.Title, "Initializing JS/TS language features")
	})
	if len(want) < 4 {
		t.Fatalf("the direct session found only %v", want)
	}
	if diff := cmp.Diff(want, shownPlaces(refs)); diff != "" {
		t.Errorf("find_references differs from the server's own answer (-server +tool):\n%s\n%s", diff, refs)
	}
	def := w.call(t, "find_definition", map[string]any{"path": "report.ts", "symbol": "area", "line": 7})
	for _, s := range []string{"geometry.ts:2\n", "|export function area(w: number, h: number): number {", "|}"} {
		if !strings.Contains(def, s) {
			t.Errorf("find_definition lacks %q:\n%s", s, def)
		}
	}
	w.write(t, "report.ts", strings.Replace(w.read(t, "report.ts"), "let t = 0;", `let t: number = "zero";`, 1))
	if d := w.call(t, "diagnostics", map[string]any{"path": "report.ts"}); !strings.Contains(d, "1 error") || !strings.Contains(d, "5|") ||
		!strings.Contains(d, "5:7 error: Type 'string' is not assignable to type 'number'. (typescript 2322)") {
		t.Errorf("diagnostics after an edit on disk:\n%s", d)
	}
	w.write(t, "report.ts", strings.Replace(w.read(t, "report.ts"), `let t: number = "zero";`, "let t = 0;", 1))
	if d := w.call(t, "diagnostics", map[string]any{"path": "report.ts"}); !strings.Contains(d, "finds no problems") {
		t.Errorf("diagnostics once fixed:\n%s", d)
	}
	res := w.call(t, "rename_symbol", map[string]any{"path": "geometry.ts", "symbol": "area", "new_name": "surface"})
	if !strings.Contains(res, "in 3 files") {
		t.Errorf("rename_symbol:\n%s", res)
	}
	if got := w.read(t, "report.ts"); !strings.Contains(got, "geometry.surface(w, h)") {
		t.Errorf("report.ts after the rename:\n%s", got)
	}
}

// JavaScript without a tsconfig.json or jsconfig.json: tsserver reports no
// project loading, and the calls do not wait for it.
func TestJavaScriptWithoutProject(t *testing.T) {
	t.Parallel()
	root := copyFixture(t, "typescript")
	for _, f := range []string{"tsconfig.json", "geometry.ts", "main.ts", "report.ts"} {
		if err := os.Remove(filepath.Join(root, f)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "area.js"), []byte("function area(w, h) {\n  return w * h;\n}\nconsole.log(area(2, 3));\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	w := serveIn(t, root, map[string][]string{"typescript": lsptest.TypeScript(t)}, nil)
	refs := w.call(t, "find_references", map[string]any{"path": "area.js", "symbol": "area"})
	if !strings.HasPrefix(refs, "2 references to area") || strings.Contains(refs, "Note:") {
		t.Errorf("find_references:\n%s", refs)
	}
}

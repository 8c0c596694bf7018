//go:build linux

package lsp

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/ramabana/ramabana-mcp/internal/lsp/lsptest"
	"github.com/ramabana/ramabana-mcp/internal/proctest"
)

// Tests against the real language servers, which lsptest installs once
// into a cache folder shared by test runs: a test whose server cannot be
// installed skips, or fails when RAMABANA_REQUIRE_LSP=1 (CI).

// A place in a file is written "file:line:col", line and column 1-based,
// the column in bytes (as Go tools write it), file relative to the
// workspace root.

// position is the LSP position of place in root, in enc.
func position(t *testing.T, root, place string, enc Encoding) (string, Position) {
	t.Helper()
	parts := strings.Split(place, ":")
	line, _ := strconv.Atoi(parts[1])
	col, _ := strconv.Atoi(parts[2])
	path := filepath.Join(root, parts[0])
	text := readText(t, path)
	off, err := text.Offset(Position{line - 1, col - 1}, UTF8)
	if err != nil {
		t.Fatal(err)
	}
	p, err := text.Position(off, enc)
	if err != nil {
		t.Fatal(err)
	}
	return URIFromPath(path), p
}

// place is where an LSP position in uri is, as "file:line:col".
func place(t *testing.T, root, uri string, p Position, enc Encoding) string {
	t.Helper()
	path, err := PathFromURI(uri)
	if err != nil {
		t.Fatal(err)
	}
	text := readText(t, path)
	off, err := text.Offset(p, enc)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := text.Position(off, UTF8)
	rel, _ := filepath.Rel(root, path)
	return fmt.Sprintf("%s:%d:%d", filepath.ToSlash(rel), b.Line+1, b.Character+1)
}

func readText(t *testing.T, path string) *Text {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return NewText(b)
}

// copyFixture copies testdata/name to a temporary folder, the workspace.
func copyFixture(t *testing.T, name string) string {
	t.Helper()
	dst, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(dst, os.DirFS(filepath.Join("testdata", name))); err != nil {
		t.Fatal(err)
	}
	return dst
}

// startServer starts a server on the workspace root, logging its stderr
// and messages when the test fails, and closes it when the test ends.
func startServer(t *testing.T, command []string, root string, edit func(*Config)) (*Client, *eventLog) {
	t.Helper()
	stderr := &proctest.Output{}
	events := &eventLog{wake: make(chan struct{}, 1)}
	cfg := Config{
		Command:    command,
		Dir:        root,
		Folders:    []string{root},
		Stderr:     stderr,
		OnProgress: func(p Progress) { events.add(event{progress: p}) },
		OnMessage: func(typ int, text string) {
			fmt.Fprintf(stderr, "[window/message %d] %s\n", typ, text)
			events.add(event{message: text})
		},
	}
	if edit != nil {
		edit(&cfg)
	}
	start := time.Now()
	c, err := Start(bg(t), cfg)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	name := filepath.Base(command[0])
	if name == "node" {
		name = filepath.Base(command[1])
	}
	t.Logf("%s started and initialized in %v, position encoding %s", name, time.Since(start).Round(time.Millisecond), c.Encoding())
	t.Cleanup(func() {
		if err := c.Close(context.Background()); err != nil {
			t.Errorf("Close: %v", err)
		}
		if t.Failed() {
			t.Logf("server stderr and messages:\n%s", stderr)
		}
	})
	return c, events
}

// event is a progress report or a message of the server.
type event struct {
	progress Progress
	message  string
}

// eventLog keeps what a server reported.
type eventLog struct {
	mu   sync.Mutex
	all  []event
	wake chan struct{}
}

func (l *eventLog) add(e event) {
	l.mu.Lock()
	l.all = append(l.all, e)
	l.mu.Unlock()
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

// await waits until an event that match accepts has come.
func (l *eventLog) await(ctx context.Context, match func(event) bool) error {
	for seen := 0; ; {
		l.mu.Lock()
		all := l.all
		l.mu.Unlock()
		if slices.ContainsFunc(all[seen:], match) {
			return nil
		}
		seen = len(all)
		select {
		case <-l.wake:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// finished lists the titles of work that began and ended.
func (l *eventLog) finished() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	begun := map[string]string{}
	var out []string
	for _, e := range l.all {
		p := e.progress
		switch p.Kind {
		case "begin":
			begun[p.Token] = p.Title
		case "end":
			if title, ok := begun[p.Token]; ok && title == p.Title {
				out = append(out, title)
			}
		}
	}
	return out
}

// langCase is what a fixture project lets one state by reading it.
type langCase struct {
	// command is the server's command, an lsptest function.
	command     func(testing.TB) []string
	fixture     string // folder under testdata
	languageID  string
	initOptions any
	use         string   // a use of the symbol (a place), where requests ask
	decl        string   // its declaration's name
	refs        []string // every reference, the declaration among them
	hover       []string // what the hover says, among the rest
	symbolsOf   string   // a file, and
	symbols     []string // its top-level symbols, "name kind place"
	query       string   // a workspace symbol query finding decl
	errFile     string   // a file given a type error
	errOld      string   // by replacing this text
	errNew      string   // with this one
	errLine     int      // and the diagnostic's line
	newName     string   // the symbol's rename,
	renamed     map[string][][2]string
	check       func(t *testing.T, root string)
	encoding    Encoding
	// ready, if set, accepts the event after which the server answers for
	// the whole workspace (it answers before, from what it has loaded).
	ready func(event) bool
	// says is the start of a message the server must send.
	says string
}

func TestGopls(t *testing.T) {
	t.Parallel()
	testLanguage(t, langCase{
		command:    lsptest.Gopls,
		fixture:    "go",
		languageID: "go",
		encoding:   UTF16, // v0.23 offers no other
		use:        "main.go:11:38",
		decl:       "geometry/geometry.go:5:6",
		refs:       []string{"geometry/geometry.go:10:41", "geometry/geometry.go:5:6", "main.go:11:38", "report/report.go:10:30"},
		hover:      []string{"func geometry.Area(w float64, h float64) float64", "Area returns the area of a w × h rectangle."},
		symbolsOf:  "geometry/geometry.go",
		symbols:    []string{"Area function geometry/geometry.go:5:6", "Square function geometry/geometry.go:10:6"},
		query:      "Area",
		errFile:    "report/report.go",
		errOld:     "var t float64",
		errNew:     `var t float64 = "zero"`,
		errLine:    8,
		newName:    "Surface",
		renamed: map[string][][2]string{
			// gopls renames the doc comment's leading mention too.
			"geometry/geometry.go": {{"// Area returns", "// Surface returns"}, {"func Area(", "func Surface("}, {"return Area(", "return Surface("}},
			"main.go":              {{"geometry.Area(", "geometry.Surface("}},
			"report/report.go":     {{"geometry.Area(", "geometry.Surface("}},
		},
		check: func(t *testing.T, root string) {
			for _, args := range [][]string{{"build", "./..."}, {"vet", "./..."}} {
				cmd := exec.Command("go", args...)
				cmd.Dir, cmd.Env = root, append(os.Environ(), "GOFLAGS=-mod=mod")
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, out)
				}
			}
		},
	})
}

func TestPyright(t *testing.T) {
	t.Parallel()
	testLanguage(t, langCase{
		command:    lsptest.Pyright,
		fixture:    "python",
		languageID: "python",
		encoding:   UTF16,
		// Requests before pyright has found the workspace's files see
		// only those open and those they import.
		ready:     func(e event) bool { return foundFiles.MatchString(e.message) },
		use:       "main.py:4:22",
		decl:      "geometry.py:4:5",
		refs:      []string{"geometry.py:11:12", "geometry.py:4:5", "main.py:1:22", "main.py:4:22", "report.py:9:23"},
		hover:     []string{"(function) def area(\n    w: float,\n    h: float\n) -> float", "Return the area of a w × h rectangle."},
		symbolsOf: "geometry.py",
		symbols:   []string{"area function geometry.py:4:5", "square function geometry.py:9:5"},
		query:     "area",
		errFile:   "report.py",
		errOld:    "t = 0.0",
		errNew:    `t: float = "zero"`,
		errLine:   7,
		newName:   "surface",
		renamed: map[string][][2]string{
			"geometry.py": {{"def area(", "def surface("}, {"return area(", "return surface("}},
			"main.py":     {{"import area,", "import surface,"}, {", area(2", ", surface(2"}},
			"report.py":   {{"geometry.area(", "geometry.surface("}},
		},
	})
}

func TestTypeScriptLanguageServer(t *testing.T) {
	t.Parallel()
	// tsserver is the one installed beside the language server: unless
	// told, typescript-language-server prefers the workspace's own
	// node_modules/typescript, which is the repository's code to run.
	testLanguage(t, langCase{
		command:    lsptest.TypeScript,
		fixture:    "typescript",
		languageID: "typescript",
		encoding:   UTF16,
		initOptions: map[string]any{
			"tsserver":                          map[string]any{"path": lsptest.TSServer(t)},
			"disableAutomaticTypingAcquisition": true, // it runs npm
			// Renaming an imported name renames its uses, not an alias.
			"preferences": map[string]any{"providePrefixAndSuffixTextForRename": false},
		},
		says: "Using Typescript version (user-setting) " + lsptest.TypeScriptVersion,
		// Requests before tsserver has loaded the project see only the
		// open file.
		ready: func(e event) bool {
			return e.progress.Kind == "end" && strings.HasPrefix(e.progress.Title, "Initializing JS/TS language features")
		},
		use:       "main.ts:4:28",
		decl:      "geometry.ts:2:17",
		refs:      []string{"geometry.ts:2:17", "geometry.ts:8:10", "main.ts:1:10", "main.ts:4:28", "report.ts:7:32"},
		hover:     []string{"(alias) area(w: number, h: number): number\nimport area", "Returns the area of a w × h rectangle."},
		symbolsOf: "geometry.ts",
		symbols:   []string{"area function geometry.ts:2:17", "square function geometry.ts:7:17"},
		query:     "area",
		errFile:   "report.ts",
		errOld:    "let t = 0;",
		errNew:    `let t: number = "zero";`,
		errLine:   5,
		newName:   "surface",
		renamed: map[string][][2]string{
			"geometry.ts": {{"function area(", "function surface("}, {"return area(", "return surface("}},
			"main.ts":     {{"{ area,", "{ surface,"}, {", area(2", ", surface(2"}},
			"report.ts":   {{"geometry.area(", "geometry.surface("}},
		},
	})
}

var foundFiles = regexp.MustCompile(`^Found \d+ source files?$`)

func testLanguage(t *testing.T, lc langCase) {
	command := lc.command(t)
	root := copyFixture(t, lc.fixture)
	c, events := startServer(t, command, root, func(cfg *Config) { cfg.InitializationOptions = lc.initOptions })
	if c.Encoding() != lc.encoding {
		t.Errorf("position encoding %s, want %s", c.Encoding(), lc.encoding)
	}
	enc := c.Encoding()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	// Open what requests ask about, as an editor would (tsserver knows no
	// project before).
	opened := map[string]bool{}
	open := func(file string) string {
		path := filepath.Join(root, file)
		uri := URIFromPath(path)
		if !opened[file] {
			if err := c.DidOpen(uri, lc.languageID, readText(t, path).Content()); err != nil {
				t.Fatal(err)
			}
			opened[file] = true
		}
		return uri
	}
	open(strings.Split(lc.use, ":")[0])
	uri, pos := position(t, root, lc.use, enc)
	if lc.ready != nil {
		start := time.Now()
		if err := events.await(ctx, lc.ready); err != nil {
			t.Fatalf("awaiting the server's readiness: %v", err)
		}
		t.Logf("ready %v after the first file was opened", time.Since(start).Round(time.Millisecond))
	}

	places := func(locs []Location) []string {
		var out []string
		for _, l := range locs {
			out = append(out, place(t, root, l.URI, l.Range.Start, enc))
		}
		slices.Sort(out)
		return out
	}
	start := time.Now()
	locs, err := c.References(ctx, uri, pos, true)
	if err != nil {
		t.Fatal(err)
	}
	cold := time.Since(start)
	if diff := cmp.Diff(lc.refs, places(locs)); diff != "" {
		t.Errorf("references (-want +got):\n%s", diff)
	}
	start = time.Now()
	if _, err := c.References(ctx, uri, pos, true); err != nil {
		t.Fatal(err)
	}
	t.Logf("references: %v the first time, %v warm", cold.Round(time.Millisecond), time.Since(start).Round(time.Microsecond))

	links, err := c.Definition(ctx, uri, pos)
	if err != nil || len(links) != 1 || place(t, root, links[0].TargetURI, links[0].TargetSelectionRange.Start, enc) != lc.decl {
		t.Errorf("definition = %+v, %v; want %s", links, err, lc.decl)
	}

	h, err := c.Hover(ctx, uri, pos)
	if err != nil || h == nil {
		t.Errorf("hover = %v, %v", h, err)
	} else {
		for _, want := range lc.hover {
			if !strings.Contains(h.Contents.Value, want) {
				t.Errorf("hover (%s) lacks %q:\n%s", h.Contents.Kind, want, h.Contents.Value)
			}
		}
	}

	symURI := open(lc.symbolsOf)
	syms, err := c.DocumentSymbols(ctx, symURI)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range syms {
		got = append(got, fmt.Sprintf("%s %s %s", s.Name, s.Kind, place(t, root, symURI, s.SelectionRange.Start, enc)))
	}
	if diff := cmp.Diff(lc.symbols, got); diff != "" {
		t.Errorf("document symbols (-want +got):\n%s", diff)
	}

	wsyms, err := c.WorkspaceSymbols(ctx, lc.query)
	if err != nil {
		t.Fatal(err)
	}
	// The symbol's location is its name (gopls, pyright) or its whole
	// declaration (tsserver).
	declURI, declPos := position(t, root, lc.decl, enc)
	found := false
	for _, s := range wsyms {
		r := s.Location.Range
		found = found || strings.HasSuffix(s.Name, lc.query) && uriKey(s.Location.URI) == uriKey(declURI) &&
			!posLess(declPos, r.Start) && posLess(declPos, r.End)
	}
	if !found {
		t.Errorf("workspace symbols for %q lack %s: %+v", lc.query, lc.decl, wsyms)
	}

	testDiagnostics(t, ctx, c, root, lc, open)

	pr, err := c.PrepareRename(ctx, declURI, declPos)
	if err != nil || pr == nil || pr.Range.Start != declPos {
		t.Errorf("prepareRename = %+v, %v; want a range at %v", pr, err, declPos)
	}
	testRename(t, ctx, c, root, lc, declURI, declPos)

	// The server learns of the renamed files, and finds the same
	// references under the new name.
	var changed []FileEvent
	for file := range lc.renamed {
		path := filepath.Join(root, file)
		if opened[file] {
			if _, err := c.DidChange(URIFromPath(path), readText(t, path).Content()); err != nil {
				t.Fatal(err)
			}
		}
		changed = append(changed, FileEvent{URI: URIFromPath(path), Type: FileChanged})
	}
	if err := c.DidChangeWatchedFiles(changed...); err != nil {
		t.Fatal(err)
	}
	locs, err = c.References(ctx, uri, pos, true)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(lc.refs, places(locs)); diff != "" {
		t.Errorf("references after the rename (-want +got):\n%s", diff)
	}
	t.Logf("work done progress: %q", events.finished())
	if lc.says != "" {
		if err := events.await(ctx, func(e event) bool { return strings.HasPrefix(e.message, lc.says) }); err != nil {
			t.Errorf("the server did not say %q: %v", lc.says, err)
		}
	}
}

func posLess(a, b Position) bool {
	return a.Line < b.Line || a.Line == b.Line && a.Character < b.Character
}

// testDiagnostics gives a file a type error, waits for its diagnostic, and
// waits for the diagnostics to clear once the error is fixed.
func testDiagnostics(t *testing.T, ctx context.Context, c *Client, root string, lc langCase, open func(string) string) {
	path := filepath.Join(root, lc.errFile)
	orig := readText(t, path).Content()
	if !bytes.Contains(orig, []byte(lc.errOld)) {
		t.Fatalf("%s lacks %q", lc.errFile, lc.errOld)
	}
	uri := open(lc.errFile)
	if _, err := c.DidChange(uri, bytes.Replace(orig, []byte(lc.errOld), []byte(lc.errNew), 1)); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	d, err := c.AwaitDiagnostics(ctx, uri, func(d FileDiagnostics) bool {
		return slices.ContainsFunc(d.Diagnostics, func(d Diagnostic) bool {
			return d.Severity == SeverityError && d.Range.Start.Line == lc.errLine-1
		})
	})
	if err != nil {
		t.Fatalf("awaiting the type error: %v (last: %+v)", err, d)
	}
	t.Logf("the type error: %v after the change, %q", time.Since(start).Round(time.Millisecond), d.Diagnostics[0].Message)
	if _, err := c.DidChange(uri, orig); err != nil {
		t.Fatal(err)
	}
	d, err = c.AwaitDiagnostics(ctx, uri, func(d FileDiagnostics) bool { return len(d.Diagnostics) == 0 })
	if err != nil {
		last, _ := c.Diagnostics(uri)
		t.Errorf("awaiting the fix: %v (last: %+v)", err, last)
	}
}

// testRename renames the symbol, applies the edit to the files, and checks
// them against the expected text.
func testRename(t *testing.T, ctx context.Context, c *Client, root string, lc langCase, uri string, pos Position) {
	w, err := c.Rename(ctx, uri, pos, lc.newName)
	if err != nil || w == nil {
		t.Fatalf("rename = %v, %v", w, err)
	}
	fes, err := w.FileEdits(os.ReadFile, c.Encoding())
	if err != nil {
		t.Fatal(err)
	}
	edited := map[string]bool{}
	for _, fe := range fes {
		if v, open := c.Version(fe.URI); fe.Version != nil && (!open || *fe.Version != v) {
			t.Errorf("%s: the edit is for version %d, the document's is %d", fe.Path, *fe.Version, v)
		}
		content, _ := os.ReadFile(fe.Path)
		if err := os.WriteFile(fe.Path, Apply(content, fe.Edits), 0o644); err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, fe.Path)
		edited[filepath.ToSlash(rel)] = true
	}
	err = fs.WalkDir(os.DirFS(filepath.Join("testdata", lc.fixture)), ".", func(file string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		orig, _ := os.ReadFile(filepath.Join("testdata", lc.fixture, file))
		want := string(orig)
		for _, r := range lc.renamed[file] {
			if !strings.Contains(want, r[0]) {
				t.Errorf("%s lacks %q", file, r[0])
			}
			want = strings.Replace(want, r[0], r[1], 1)
		}
		got, _ := os.ReadFile(filepath.Join(root, file))
		if diff := cmp.Diff(want, string(got)); diff != "" {
			t.Errorf("%s after the rename (-want +got):\n%s", file, diff)
		}
		if edited[file] != (lc.renamed[file] != nil) {
			t.Errorf("%s: edited %v", file, edited[file])
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if lc.check != nil {
		lc.check(t, root)
	}
}

// References on this repository through the client are tested through the
// lsp group (plugins/lsp TestGoOnThisRepository), against gopls's command
// line: one load of the repository per test run is enough.

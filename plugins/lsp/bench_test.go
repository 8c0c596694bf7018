//go:build linux

package lsp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	lspc "github.com/ramabana/ramabana-mcp/internal/lsp"
	"github.com/ramabana/ramabana-mcp/internal/lsp/lsptest"
	"github.com/ramabana/ramabana-mcp/plugins/lsp"
	"github.com/ramabana/ramabana-mcp/sdk"
	"github.com/ramabana/ramabana-mcp/sdk/sdktest"
)

// Benchmarks of the tools against gopls's own time, on this repository
// (a few hundred Go files, sdk.Failf referenced from most packages). Each
// measure comes in a pair run side by side: the Direct one drives gopls
// through the internal/lsp client alone, the Tool one calls the lsp
// group's tool over sdktest's gRPC connection, as the host does. The
// difference is what the group adds: the sandbox, the scan of the
// workspace for files changed on disk (gitignore-aware, every call),
// locating the symbol, reading the files an answer shows, formatting,
// gRPC. The targets: warm, the tool within 50 ms of the direct session;
// cold, its first answer within 1 s of gopls's own load.
//
//	go test -run '^$' -bench '^Benchmark(References|Definition)' -benchtime=20x -count=3 ./plugins/lsp/
//	go test -run '^$' -bench '^BenchmarkCold' -benchtime=3x -count=3 ./plugins/lsp/
//
// gopls keeps a file cache between runs; both sides use the one the
// plugin gives its servers (see serverEnv), so a cold start is cold in
// its process, not in that cache: the first run of a benchmark fills it.
// Others editing the repository meanwhile make the tool tell gopls of the
// changes, which then type-checks again: noise, on the tool's side.
//
// They skip when gopls cannot be installed (or fail, with
// RAMABANA_REQUIRE_LSP set), and only run with -bench.

// BenchmarkReferencesDirect is gopls's own time for the references of
// sdk.Failf, warm: one session, the file opened once, the request asked
// again and again.
func BenchmarkReferencesDirect(b *testing.B) {
	root := repoRoot(b)
	c := startDirect(b, lsptest.Gopls(b), root)
	sp := failfDecl(b, root)
	uri, pos := sp.open(b, c)
	ctx := context.Background()
	var n int
	refs := func() {
		locs, err := c.References(ctx, uri, pos, true)
		if err != nil {
			b.Fatal(err)
		}
		n = len(locs)
	}
	for range 3 {
		refs()
	}
	if n < 100 {
		b.Fatalf("gopls finds %d references of sdk.Failf", n)
	}
	b.ResetTimer()
	for range b.N {
		refs()
	}
	b.ReportMetric(float64(n), "refs")
}

// BenchmarkReferencesTool is find_references for the same symbol, warm:
// one plugin serving the repository, called before the timing starts.
// Each call scans the workspace for changes and reads the referenced
// files to show their lines (up to the default limit).
func BenchmarkReferencesTool(b *testing.B) {
	root := repoRoot(b)
	g := serveRepo(b, lsptest.Gopls(b), root)
	sp := failfDecl(b, root)
	args := map[string]any{"path": sp.rel, "symbol": "Failf", "line": sp.line}
	head := regexp.MustCompile(`^(\d+) references to Failf at ` + regexp.QuoteMeta(sp.where()) + `,`)
	var n int
	refs := func() {
		text := callTool(b, g, "find_references", args)
		m := head.FindStringSubmatch(text)
		if m == nil {
			b.Fatalf("find_references says:\n%s", text)
		}
		n, _ = strconv.Atoi(m[1])
	}
	for range 3 {
		refs()
	}
	b.ResetTimer()
	for range b.N {
		refs()
	}
	b.ReportMetric(float64(n), "refs")
}

// BenchmarkDefinitionDirect is gopls's own time for the definition of a
// use of sdk.Failf in another package, warm.
func BenchmarkDefinitionDirect(b *testing.B) {
	root := repoRoot(b)
	c := startDirect(b, lsptest.Gopls(b), root)
	sp := failfUse(b, root)
	uri, pos := sp.open(b, c)
	ctx := context.Background()
	def := func() {
		links, err := c.Definition(ctx, uri, pos)
		if err != nil {
			b.Fatal(err)
		}
		if len(links) != 1 || filepath.Base(links[0].TargetURI) != "failure.go" {
			b.Fatalf("gopls's definition of sdk.Failf at %s: %+v", sp.where(), links)
		}
	}
	for range 3 {
		def()
	}
	b.ResetTimer()
	for range b.N {
		def()
	}
}

// BenchmarkDefinitionTool is find_definition for the same use, warm. Each
// call scans the workspace, and asks the declaring file's symbols to show
// the whole declaration (gopls's answer names only the identifier).
func BenchmarkDefinitionTool(b *testing.B) {
	root := repoRoot(b)
	g := serveRepo(b, lsptest.Gopls(b), root)
	sp := failfUse(b, root)
	args := map[string]any{"path": sp.rel, "symbol": "Failf", "line": sp.line}
	decl := failfDecl(b, root)
	want := "\n" + decl.rel + ":" + strconv.Itoa(decl.line) + "\n"
	def := func() {
		if text := callTool(b, g, "find_definition", args); !strings.Contains(text, want) {
			b.Fatalf("find_definition says:\n%s", text)
		}
	}
	for range 3 {
		def()
	}
	b.ResetTimer()
	for range b.N {
		def()
	}
}

// BenchmarkColdReferencesDirect is gopls's load time on this repository:
// from starting the process to its first answer for the references of
// sdk.Failf (initialize, open the file, ask). Each iteration starts gopls
// afresh; the shutdown is not timed. Run with -benchtime=3x or so.
func BenchmarkColdReferencesDirect(b *testing.B) {
	root := repoRoot(b)
	gopls := lsptest.Gopls(b)
	sp := failfDecl(b, root)
	for range b.N {
		c := startDirect(b, gopls, root)
		uri, pos := sp.open(b, c)
		locs, err := c.References(context.Background(), uri, pos, true)
		if err != nil {
			b.Fatal(err)
		}
		if len(locs) < 100 {
			b.Fatalf("gopls finds %d references of sdk.Failf", len(locs))
		}
		b.StopTimer()
		if err := c.Close(context.Background()); err != nil {
			b.Logf("Close: %v", err) // not what is measured
		}
		b.StartTimer()
	}
}

// BenchmarkColdReferencesTool is the first find_references of a fresh
// plugin on this repository: starting gopls in its sandbox, the first
// scan of the workspace, the load, the answer. Making and describing the
// plugin (done once, when the host starts) and stopping it are not timed.
func BenchmarkColdReferencesTool(b *testing.B) {
	root := repoRoot(b)
	gopls := lsptest.Gopls(b)
	sp := failfDecl(b, root)
	args := map[string]any{"path": sp.rel, "symbol": "Failf", "line": sp.line}
	want := "references to Failf at " + sp.where() + ","
	for range b.N {
		b.StopTimer()
		p, g := servePlugin(b, gopls, root)
		b.StartTimer()
		if text := callTool(b, g, "find_references", args); !strings.Contains(text, want) {
			b.Fatalf("find_references says:\n%s", text)
		}
		b.StopTimer()
		p.Close()
		b.StartTimer()
	}
}

// repoRoot is this repository's root: the folder of the go.mod above the
// package's.
func repoRoot(b *testing.B) string {
	b.Helper()
	dir, err := os.Getwd()
	if err != nil {
		b.Fatal(err)
	}
	if dir, err = filepath.EvalSymlinks(dir); err != nil {
		b.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			b.Fatal("no go.mod above the package's folder")
		}
		dir = parent
	}
}

// benchSpot is a place in a file of the repository: the line holding a
// text, and the column of a name on it.
type benchSpot struct {
	root, rel string
	data      []byte
	off       int // of the name, in bytes
	line, col int // 1-based, the column in bytes
}

func (s benchSpot) where() string {
	return s.rel + ":" + strconv.Itoa(s.line) + ":" + strconv.Itoa(s.col)
}

// findSpot finds the first line of rel holding text, and name on it.
// Others may edit the repository: the line is looked up, not assumed.
func findSpot(b *testing.B, root, rel, text, name string) benchSpot {
	b.Helper()
	data, err := os.ReadFile(filepath.Join(root, rel))
	if err != nil {
		b.Fatal(err)
	}
	at := bytes.Index(data, []byte(text))
	if at < 0 {
		b.Fatalf("%s holds no %q", rel, text)
	}
	off := at + bytes.Index([]byte(text), []byte(name))
	start := bytes.LastIndexByte(data[:off], '\n') + 1
	return benchSpot{root: root, rel: rel, data: data, off: off,
		line: bytes.Count(data[:off], []byte("\n")) + 1, col: off - start + 1}
}

// failfDecl is sdk.Failf's declaration (sdk/failure.go:21:6 as written).
func failfDecl(b *testing.B, root string) benchSpot {
	return findSpot(b, root, "sdk/failure.go", "\nfunc Failf(", "Failf")
}

// failfUse is a use of sdk.Failf in another package.
func failfUse(b *testing.B, root string) benchSpot {
	return findSpot(b, root, "plugins/files/move.go", "sdk.Failf(", "Failf")
}

// open opens the spot's file in c, and returns its URI and the name's
// position in c's encoding.
func (s benchSpot) open(b *testing.B, c *lspc.Client) (string, lspc.Position) {
	b.Helper()
	uri := lspc.URIFromPath(filepath.Join(s.root, s.rel))
	if err := c.DidOpen(uri, "go", s.data); err != nil {
		b.Fatal(err)
	}
	pos, err := lspc.NewText(s.data).Position(s.off, c.Encoding())
	if err != nil {
		b.Fatal(err)
	}
	return uri, pos
}

// startDirect starts gopls on root as the plugin does (the same
// initialization options and caches), without the sandbox, and closes it
// when the benchmark ends.
func startDirect(b *testing.B, gopls []string, root string) *lspc.Client {
	b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	c, err := lspc.Start(ctx, lspc.Config{
		Command:               gopls,
		Env:                   serverEnv(b),
		Dir:                   root,
		Folders:               []string{root},
		InitializationOptions: map[string]any{"pullDiagnostics": true},
	})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = c.Close(context.Background()) })
	return c
}

// serverEnv is the environment the plugin gives gopls, as far as its
// speed goes: its own cache folder (in which gopls keeps its file cache
// and go list its build cache) and the local toolchain. Sharing the cache
// makes both sides of a cold benchmark equally cold.
func serverEnv(b *testing.B) []string {
	b.Helper()
	base, err := os.UserCacheDir()
	if err != nil {
		base = os.TempDir()
	}
	cache := filepath.Join(base, "ramabana-mcp", "lsp", "cache")
	if err := os.MkdirAll(cache, 0o700); err != nil {
		b.Fatal(err)
	}
	return append(sdk.ChildEnv(), "XDG_CACHE_HOME="+cache, "GOTOOLCHAIN=local")
}

// serveRepo serves root with a plugin whose config names gopls, stopped
// when the benchmark ends.
func serveRepo(b *testing.B, gopls []string, root string) sdk.Group {
	b.Helper()
	_, g := servePlugin(b, gopls, root)
	return g
}

// servePlugin makes a plugin serving root (read-only) with gopls, and
// connects to it as the host does.
func servePlugin(b *testing.B, gopls []string, root string) (*lsp.Plugin, sdk.Group) {
	b.Helper()
	cfg := b.TempDir()
	data, err := json.Marshal(map[string]any{"lsp": map[string]any{"go": map[string]any{"command": gopls}}})
	if err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cfg, "config.json"), data, 0o644); err != nil {
		b.Fatal(err)
	}
	p := lsp.New()
	b.Cleanup(p.Close)
	g, _ := sdktest.Connect(b, p, sdk.Host{Roots: []string{root}, ConfigDir: cfg})
	return p, g
}

// callTool calls a tool and returns its text, failing on an error result.
func callTool(b *testing.B, g sdk.Group, tool string, args map[string]any) string {
	b.Helper()
	res := sdktest.Call(b, g, tool, args)
	if res.IsError {
		b.Fatalf("%s %v: %s", tool, args, res.Text())
	}
	return res.Text()
}

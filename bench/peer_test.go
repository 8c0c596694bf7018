package bench

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// peerFilesystem is @modelcontextprotocol/server-filesystem, installed by
// `npm ci` in bench/peer; benchmarks against it skip when it is absent.
func peerFilesystem(b *testing.B, root string) *exec.Cmd {
	b.Helper()
	script, err := filepath.Abs(filepath.Join("peer", "node_modules", "@modelcontextprotocol", "server-filesystem", "dist", "index.js"))
	if err != nil {
		b.Fatal(err)
	}
	if _, err := os.Stat(script); err != nil {
		b.Skip("server-filesystem not installed: run npm ci in bench/peer")
	}
	if _, err := exec.LookPath("node"); err != nil {
		b.Skip("node not on PATH")
	}
	return exec.Command("node", script, root)
}

// tree makes a project of 2,000 files in 100 folders, 10 of them per
// folder ending in _handler.py, the rest .go and .md files.
func tree(b *testing.B) string {
	b.Helper()
	root := b.TempDir()
	for d := range 100 {
		dir := filepath.Join(root, fmt.Sprintf("pkg%02d", d/10), fmt.Sprintf("mod%02d", d))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		for f := range 20 {
			var name string
			switch {
			case f < 2:
				name = fmt.Sprintf("x%02d_handler.py", f)
			case f%2 == 0:
				name = fmt.Sprintf("file%02d.go", f)
			default:
				name = fmt.Sprintf("notes%02d.md", f)
			}
			body := fmt.Sprintf("// file %d in %d\nfunc handle%d() error { return nil }\n", f, d, f)
			if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	return root
}

// BenchmarkNameSearch finds the 200 *_handler.py files among 2,000: ramabana's
// list_files with a glob against server-filesystem's search_files, through
// the same go-sdk client.
func BenchmarkNameSearch(b *testing.B) {
	root := tree(b)
	b.Run("ramabana", func(b *testing.B) {
		cs := start(b, command(ramabana, root, b.TempDir()))
		args := map[string]any{"path": ".", "glob": "**/*_handler.py"}
		if n := strings.Count(text(call(b, cs, "list_files", args)), "_handler.py"); n != 200 {
			b.Fatalf("list_files found %d handlers, want 200", n)
		}
		timeCalls(b, func() { call(b, cs, "list_files", args) })
	})
	b.Run("server-filesystem", func(b *testing.B) {
		cmd := peerFilesystem(b, root)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		cs, err := connect(ctx, cmd)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = cs.Close(); reap(cmd) })
		args := map[string]any{"path": root, "pattern": "**/*_handler.py"}
		if n := strings.Count(text(call(b, cs, "search_files", args)), "_handler.py"); n != 200 {
			b.Fatalf("search_files found %d handlers, want 200", n)
		}
		timeCalls(b, func() { call(b, cs, "search_files", args) })
	})
}

// BenchmarkSearchCode runs one regex over the 2,000-file tree: ramabana's
// search_code through the MCP client, against grep -rn and rg -n run as
// commands (each skipped when not installed).
func BenchmarkSearchCode(b *testing.B) {
	root := tree(b)
	const pattern = `func handle1[0-9]\(`
	const want = 1000 // files 10 to 19 of each of the 100 folders
	b.Run("ramabana", func(b *testing.B) {
		cs := start(b, command(ramabana, root, b.TempDir()))
		args := map[string]any{"pattern": pattern, "limit": 2000}
		if n := strings.Count(text(call(b, cs, "search_code", args)), "func handle1"); n != want {
			b.Fatalf("search_code found %d matches, want %d", n, want)
		}
		timeCalls(b, func() { call(b, cs, "search_code", args) })
	})
	for _, tool := range []struct{ name, bin string }{{"grep", "grep"}, {"rg", "rg"}} {
		b.Run(tool.name, func(b *testing.B) {
			path, err := exec.LookPath(tool.bin)
			if err != nil {
				b.Skipf("%s not installed", tool.bin)
			}
			args := []string{"-rn", "-E", pattern, root}
			if tool.name == "rg" {
				args = []string{"-n", pattern, root}
			}
			run := func() []byte {
				out, err := exec.Command(path, args...).Output()
				if err != nil {
					b.Fatalf("%s: %v", tool.name, err)
				}
				return out
			}
			if n := strings.Count(string(run()), "func handle1"); n != want {
				b.Fatalf("%s found %d matches, want %d", tool.name, n, want)
			}
			timeCalls(b, func() { run() })
		})
	}
}

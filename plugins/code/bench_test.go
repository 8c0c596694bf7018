package code_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ramabana/ramabana-mcp/plugins/code"
	"github.com/ramabana/ramabana-mcp/sdk"
)

// benchPatterns are the searches the benchmarks run, with the same search
// in grep -E's syntax: a literal inside a regexp, as most code searches
// are, and an alternation of literals.
var benchPatterns = []struct{ name, re, ere string }{
	{"inner-literal", `func \w+Handler\(`, `func [[:alnum:]_]+Handler\(`},
	{"alternation", `\b(server|client)\d\d\(`, `\b(server|client)[0-9][0-9]\(`},
}

var (
	benchTreeOnce sync.Once
	benchTreeDir  string
	benchTreeErr  error
)

// benchTree writes, once per test binary, 2,400 source files of 10 to 50
// lines in 120 directories; about one file in eight declares a handler that
// benchPattern matches.
func benchTree(b *testing.B) string {
	b.Helper()
	benchTreeOnce.Do(func() {
		dir, err := os.MkdirTemp("", "code-bench-")
		if err != nil {
			benchTreeErr = err
			return
		}
		benchTreeDir, benchTreeErr = filepath.EvalSymlinks(dir)
		if benchTreeErr != nil {
			return
		}
		rng := rand.New(rand.NewPCG(1, 2))
		words := []string{"server", "client", "request", "response", "value", "index", "buffer", "config", "result", "error"}
		for d := range 120 {
			sub := filepath.Join(benchTreeDir, fmt.Sprintf("pkg%03d", d), "internal")
			if err := os.MkdirAll(sub, 0o755); err != nil {
				benchTreeErr = err
				return
			}
			for f := range 20 {
				var sb strings.Builder
				fmt.Fprintf(&sb, "package pkg%03d\n\nimport \"context\"\n\n", d)
				lines := 10 + rng.IntN(41)
				for l := 4; l < lines; l++ {
					w1, w2 := words[rng.IntN(len(words))], words[rng.IntN(len(words))]
					switch {
					case l == 6 && (d*20+f)%8 == 0:
						fmt.Fprintf(&sb, "func %sHandler(ctx context.Context) error { return nil }\n", w1)
					case rng.IntN(6) == 0:
						fmt.Fprintf(&sb, "func %s%d(%s int) int { return %s * %d }\n", w1, l, w2, w2, l)
					default:
						fmt.Fprintf(&sb, "\t// %s handles the %s of the %s for %s.\n", w1, w2, w1, w2)
					}
				}
				if err := os.WriteFile(filepath.Join(sub, fmt.Sprintf("file%02d.go", f)), []byte(sb.String()), 0o644); err != nil {
					benchTreeErr = err
					return
				}
			}
		}
	})
	if benchTreeErr != nil {
		b.Fatal(benchTreeErr)
	}
	return benchTreeDir
}

// TestMain removes the benchmark tree, which outlives one benchmark so
// that all of them search the same files.
func TestMain(m *testing.M) {
	rc := m.Run()
	if benchTreeDir != "" {
		_ = os.RemoveAll(benchTreeDir)
	}
	os.Exit(rc)
}

// BenchmarkSearchCode runs search_code in-process (the toolbox, no gRPC)
// over the generated tree.
func BenchmarkSearchCode(b *testing.B) {
	root := benchTree(b)
	g := code.New()
	if _, err := g.Describe(context.Background(), sdk.Host{Roots: []string{root}}); err != nil {
		b.Fatal(err)
	}
	for _, p := range benchPatterns {
		b.Run(p.name, func(b *testing.B) {
			args, _ := json.Marshal(map[string]any{"pattern": p.re, "limit": 2000})
			call := &sdk.Call{Tool: "search_code", Arguments: args}
			res, err := g.Call(context.Background(), call, nil)
			if err != nil || res.IsError {
				b.Fatalf("search_code: %v %s", err, res.Text())
			}
			if n := strings.Count(res.Text(), "\n"); n < 100 || strings.Contains(res.Text(), "left out") {
				b.Fatalf("search_code found %d matches, want 100 to 2000:\n%s", n, res.Text())
			}
			for b.Loop() {
				if _, err := g.Call(context.Background(), call, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

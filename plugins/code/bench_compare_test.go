package code_test

import (
	"context"
	"encoding/json"
	"io"
	"os/exec"
	"testing"

	"github.com/ramabana/ramabana-mcp/plugins/code"
	"github.com/ramabana/ramabana-mcp/sdk"
)

// BenchmarkSearchCompare runs the same search over the same tree with
// search_code (in-process), grep -rn and rg -n, side by side:
//
//	go test -run '^$' -bench SearchCompare ./plugins/code/
//
// grep and rg are skipped when they are not on PATH. The tree has no
// .gitignore, so all three read every file; rg and grep pay for starting a
// process, which a model calling search_code over MCP pays for too, in
// the plugin hop.
func BenchmarkSearchCompare(b *testing.B) {
	root := benchTree(b)
	g := code.New()
	if _, err := g.Describe(context.Background(), sdk.Host{Roots: []string{root}}); err != nil {
		b.Fatal(err)
	}
	for _, p := range benchPatterns {
		b.Run(p.name+"/search_code", func(b *testing.B) {
			args, _ := json.Marshal(map[string]any{"pattern": p.re, "limit": 2000})
			call := &sdk.Call{Tool: "search_code", Arguments: args}
			for b.Loop() {
				res, err := g.Call(context.Background(), call, nil)
				if err != nil || res.IsError {
					b.Fatalf("search_code: %v %s", err, res.Text())
				}
			}
		})
		for _, tool := range []struct {
			name string
			args []string
		}{
			{"grep", []string{"-rnE", p.ere, "."}},
			{"rg", []string{"-n", p.re, "."}},
		} {
			b.Run(p.name+"/"+tool.name, func(b *testing.B) {
				bin, err := exec.LookPath(tool.name)
				if err != nil {
					b.Skipf("%s is not on PATH", tool.name)
				}
				for b.Loop() {
					cmd := exec.Command(bin, tool.args...)
					cmd.Dir = root
					cmd.Stdout = io.Discard
					if err := cmd.Run(); err != nil {
						b.Fatalf("%s: %v", tool.name, err)
					}
				}
			})
		}
	}
}

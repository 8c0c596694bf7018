package git_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/ramabana/ramabana-mcp/plugins/git"
	"github.com/ramabana/ramabana-mcp/sdk"
	"github.com/ramabana/ramabana-mcp/sdk/sdktest"
)

// BenchmarkStatusGuard measures what the trust boundary costs git_status
// on a small repository: "commands" (the user allows programs: no guard)
// against "guarded" (repository config listed and neutralised, git in the
// exec sandbox), side by side in one run. Run with -count to compare.
func BenchmarkStatusGuard(b *testing.B) {
	root := b.TempDir()
	for _, args := range [][]string{
		{"init", "-q", "-b", "main"},
		{"config", "user.name", "b"}, {"config", "user.email", "b@example.com"},
	} {
		if out, err := exec.Command("git", append([]string{"-C", root}, args...)...).CombinedOutput(); err != nil {
			b.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	for i := range 50 {
		if err := os.WriteFile(filepath.Join(root, "f"+string(rune('a'+i%26))+string(rune('a'+i/26))+".txt"), []byte("x\n"), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	for _, mode := range []struct {
		name     string
		commands bool
	}{{"commands", true}, {"guarded", false}} {
		b.Run(mode.name, func(b *testing.B) {
			g, _ := sdktest.Connect(b, git.New(), sdk.Host{Roots: []string{root}, Commands: mode.commands})
			for b.Loop() {
				if res := sdktest.Call(b, g, "git_status", map[string]any{}); res.IsError {
					b.Fatal(res.Text())
				}
			}
		})
	}
}

package lsptest

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestCommands: each command names files that exist, by absolute paths,
// and is a new slice each call; tsserver.js lies beside the TypeScript
// language server.
func TestCommands(t *testing.T) {
	for name, command := range map[string]func(testing.TB) []string{"gopls": Gopls, "pyright": Pyright, "typescript": TypeScript} {
		t.Run(name, func(t *testing.T) {
			cmd := command(t)
			for _, arg := range cmd {
				if arg == "--stdio" {
					continue
				}
				if !filepath.IsAbs(arg) {
					t.Errorf("%q is not an absolute path", arg)
				}
				if _, err := os.Stat(arg); err != nil {
					t.Error(err)
				}
			}
			again := command(t)
			if !slices.Equal(cmd, again) {
				t.Errorf("the command changed: %q, then %q", cmd, again)
			}
			again[0] = "changed"
			if cmd[0] == "changed" {
				t.Error("two calls share a slice")
			}
		})
	}
	t.Run("tsserver", func(t *testing.T) {
		path := TSServer(t)
		if _, err := os.Stat(path); err != nil {
			t.Error(err)
		}
		cli := TypeScript(t)[1]
		if rel, err := filepath.Rel(filepath.Dir(path), cli); err != nil || rel != "../../typescript-language-server/lib/cli.mjs" {
			t.Errorf("tsserver %s is not beside %s", path, cli)
		}
	})
}

//go:build linux

package e2e

import (
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ramabana/ramabana-mcp/internal/lsp/lsptest"
)

// The lsp group through the binary and a real MCP client: references from
// gopls in the plugin's process, a rename written with --write that builds,
// in the activity feed and the changes ledger; read-only, the rename is
// absent and refused naming --write.
func TestLanguageServerThroughTheServer(t *testing.T) {
	t.Parallel()
	gopls := lsptest.Gopls(t)
	root := t.TempDir()
	src := filepath.Join("..", "..", "plugins", "lsp", "testdata", "go")
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(root, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(root, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	cfg := t.TempDir()
	b, _ := json.Marshal(map[string]any{"lsp": map[string]any{"go": map[string]any{"command": gopls}}})
	if err := os.WriteFile(filepath.Join(cfg, "config.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}

	ro := startStdio(t, root, "--cfg", cfg)
	res, err := call(t, ro.session, "find_references", map[string]any{"path": "shape/shape.go", "symbol": "Area"})
	if err != nil || res.IsError || !strings.HasPrefix(text(res), "6 references to Area at shape/shape.go:5:6, in 6 files") {
		t.Fatalf("find_references = %q, %v\n%s", text(res), err, ro.stderr)
	}
	if _, err := call(t, ro.session, "rename_symbol", map[string]any{"path": "shape/shape.go", "symbol": "Area", "new_name": "Surface"}); err == nil || !strings.Contains(err.Error(), "--write") {
		t.Errorf("rename_symbol on a read-only server: %v, want it refused naming --write", err)
	}

	s := startStdio(t, root, "--cfg", cfg, "--write")
	res, err = call(t, s.session, "rename_symbol", map[string]any{"path": "shape/shape.go", "symbol": "Area", "new_name": "Surface"})
	if err != nil || res.IsError || !strings.HasPrefix(text(res), "Renamed Area to Surface: 7 edits in 6 files.") {
		t.Fatalf("rename_symbol = %q, %v\n%s", text(res), err, s.stderr)
	}
	cmd := exec.Command("go", "vet", "./...")
	cmd.Dir, cmd.Env = root, append(os.Environ(), "GOTOOLCHAIN=local", "GOFLAGS=-mod=mod", "GOPROXY=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("go vet after the rename: %v\n%s", err, out)
	}
	act, _ := call(t, s.session, "activity", map[string]any{})
	if !strings.Contains(text(act), "rename_symbol") {
		t.Errorf("activity lacks rename_symbol:\n%s", text(act))
	}
	changes, _ := call(t, s.session, "changes", map[string]any{})
	for _, want := range []string{"stats/stats.go", "cmd/tool/main.go", "+func Surface(w, h float64) float64 {"} {
		if !strings.Contains(text(changes), want) {
			t.Errorf("changes lack %q:\n%s", want, text(changes))
		}
	}
}

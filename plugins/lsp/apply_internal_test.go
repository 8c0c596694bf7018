package lsp

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	lspc "github.com/ramabana/ramabana-mcp/internal/lsp"
	"github.com/ramabana/ramabana-mcp/sdk/roots"
)

// An edit that would change a file outside the served folders, among
// files inside them, writes nothing at all, whatever the server proposed.
func TestApplyRefusesOutsideTheRoots(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root, outside := filepath.Join(base, "root"), filepath.Join(base, "elsewhere")
	for _, d := range []string{root, outside} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	in, out := filepath.Join(root, "a.go"), filepath.Join(outside, "b.go")
	// A symlink inside the root that leads outside is outside too.
	link := filepath.Join(root, "c.go")
	for _, f := range []string{in, out} {
		if err := os.WriteFile(f, []byte("package x\n\nvar Name = 1\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(out, link); err != nil {
		t.Fatal(err)
	}
	r, err := roots.New([]string{root}, true)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Close() })
	edit := func(abs string) fileEdits {
		return fileEdits{abs: abs, basis: []byte("package x\n\nvar Name = 1\n"), edits: []lspc.ByteEdit{{Start: 15, End: 19, NewText: "Other"}}}
	}
	g := &group{}
	for _, target := range []string{out, link} {
		_, err := g.apply(context.Background(), &call{r: r}, nil, []fileEdits{edit(in), edit(target)})
		if err == nil || !strings.Contains(err.Error(), "nothing was written") {
			t.Errorf("an edit of %s: %v", target, err)
		}
		for _, f := range []string{in, out} {
			if b, _ := os.ReadFile(f); string(b) != "package x\n\nvar Name = 1\n" {
				t.Errorf("%s was written: %q", f, b)
			}
		}
	}
}

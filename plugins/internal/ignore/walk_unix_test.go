//go:build unix

package ignore_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/ramabana/ramabana-mcp/plugins/internal/ignore"
)

// A .gitignore that is a link to /dev/zero, or a FIFO, is no ignore file:
// the walk neither reads it forever nor waits for a writer.
func TestIgnoreFileNotRegular(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"zero", "fifo"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, d, "kept.go"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("/dev/zero", filepath.Join(root, ".gitignore")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", filepath.Join(root, "zero", ".gitignore")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(root, "fifo", ".gitignore"), 0o644); err != nil {
		t.Fatal(err)
	}
	var seen []string
	err := ignore.Walk(os.DirFS(root), ".", ignore.Options{}, func(rel string, d fs.DirEntry) error {
		if !d.IsDir() && filepath.Ext(rel) == ".go" {
			seen = append(seen, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(seen) != 2 {
		t.Errorf("walked %v, want both kept.go", seen)
	}
	// Walking from below the root reads the ignore files above it too.
	if err := ignore.Walk(os.DirFS(root), "fifo", ignore.Options{}, func(string, fs.DirEntry) error { return nil }); err != nil {
		t.Fatal(err)
	}
}

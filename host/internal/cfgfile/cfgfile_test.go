package cfgfile

import (
	"os"
	"path/filepath"
	"testing"
)

// TestReplace: the folder is made 0700, the file replaced whole and
// 0600, and no temporary file is left; a write that cannot be renamed
// leaves the old file and no temporary one.
func TestReplace(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "kept")
	for _, data := range []string{"one", "two, longer"} {
		if err := Replace(dir, "f.json", []byte(data)); err != nil {
			t.Fatal(err)
		}
		if b, err := os.ReadFile(filepath.Join(dir, "f.json")); err != nil || string(b) != data {
			t.Fatalf("f.json = %q, %v; want %q", b, err, data)
		}
	}
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("folder: %v, %v; want mode 0700", fi, err)
	}
	if fi, err := os.Stat(filepath.Join(dir, "f.json")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("file: %v, %v; want mode 0600", fi, err)
	}
	if err := os.Mkdir(filepath.Join(dir, "d"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "d", "x"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Replace(dir, "d", []byte("x")); err == nil {
		t.Error("a file replaced a folder that holds files")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("entries = %v, want f.json and d only", entries)
	}
}

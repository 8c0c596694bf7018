package atomicfile

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestWrite(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		setup   func(t *testing.T, path string)
		mode    fs.FileMode
		wantErr bool
	}{
		"new file":            {mode: 0o644},
		"replace keeps given": {setup: func(t *testing.T, p string) { mustWrite(t, p, "old", 0o600) }, mode: 0o755},
		"setuid kept":         {setup: func(t *testing.T, p string) { mustWrite(t, p, "old", 0o644) }, mode: 0o755 | fs.ModeSetuid},
		"target is a directory": {
			setup:   func(t *testing.T, p string) { mustMkdir(t, filepath.Join(p, "child")) },
			mode:    0o644,
			wantErr: true,
		},
		"directory missing": {
			setup:   func(t *testing.T, p string) { mustRemove(t, filepath.Dir(p)) },
			mode:    0o644,
			wantErr: true,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), "d")
			mustMkdir(t, dir)
			path := filepath.Join(dir, "f.txt")
			if tc.setup != nil {
				tc.setup(t, path)
			}
			err := Write(path, []byte("new\n"), tc.mode)
			if tc.wantErr {
				if err == nil {
					t.Fatal("Write succeeded")
				}
				if entries, _ := os.ReadDir(dir); len(entries) > 1 {
					t.Errorf("left behind: %v", entries)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			fi, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			data, _ := os.ReadFile(path)
			if diff := cmp.Diff("new\n", string(data)); diff != "" {
				t.Errorf("content (-want +got):\n%s", diff)
			}
			if got := KeptMode(fi.Mode()); got != tc.mode {
				t.Errorf("mode %v, want %v", got, tc.mode)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 1 {
				t.Errorf("directory holds %v, want just f.txt", entries)
			}
		})
	}
}

func mustWrite(t *testing.T, p, s string, mode fs.FileMode) {
	t.Helper()
	if err := os.WriteFile(p, []byte(s), mode); err != nil {
		t.Fatal(err)
	}
}

func mustMkdir(t *testing.T, p string) {
	t.Helper()
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
}

func mustRemove(t *testing.T, p string) {
	t.Helper()
	if err := os.RemoveAll(p); err != nil {
		t.Fatal(err)
	}
}

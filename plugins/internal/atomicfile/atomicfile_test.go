package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ramabana/ramabana-mcp/plugins/internal/atomicfile/atomicfiletest"
)

// openDir opens a new directory d in a temporary folder as a root.
func openDir(t *testing.T) (string, *os.Root) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "d")
	mustMkdir(t, dir)
	r, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Close() })
	return dir, r
}

func replaceWith(s string) Edit {
	return func([]byte, fs.FileInfo) ([]byte, error) { return []byte(s), nil }
}

func TestUpdate(t *testing.T) {
	t.Parallel()
	boom := errors.New("boom")
	tests := map[string]struct {
		setup   func(t *testing.T, path string)
		edit    Edit
		want    string // content after; "" with wantErr
		wantErr error  // nil: none; errAny: any
	}{
		"keeps mode": {
			setup: func(t *testing.T, p string) { mustWrite(t, p, "old", 0o751) },
			edit:  replaceWith("new\n"), want: "new\n",
		},
		"setuid kept": {
			setup: func(t *testing.T, p string) { mustWrite(t, p, "old", 0o644); mustChmod(t, p, 0o755|fs.ModeSetuid) },
			edit:  replaceWith("new\n"), want: "new\n",
		},
		"edit sees the content": {
			setup: func(t *testing.T, p string) { mustWrite(t, p, "a", 0o644) },
			edit:  func(cur []byte, _ fs.FileInfo) ([]byte, error) { return append(cur, 'b'), nil },
			want:  "ab",
		},
		"edit error writes nothing": {
			setup:   func(t *testing.T, p string) { mustWrite(t, p, "old", 0o644) },
			edit:    func([]byte, fs.FileInfo) ([]byte, error) { return nil, boom },
			wantErr: boom,
		},
		"missing": {edit: replaceWith("x"), wantErr: fs.ErrNotExist},
		"directory": {
			setup:   func(t *testing.T, p string) { mustMkdir(t, p) },
			edit:    replaceWith("x"),
			wantErr: errAny,
		},
		"symlink in place": {
			setup: func(t *testing.T, p string) {
				mustWrite(t, filepath.Join(filepath.Dir(p), "real"), "old", 0o644)
				if err := os.Symlink("real", p); err != nil {
					t.Fatal(err)
				}
			},
			edit:    replaceWith("x"),
			wantErr: ErrSymlink,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir, root := openDir(t)
			path := filepath.Join(dir, "f.txt")
			if tc.setup != nil {
				tc.setup(t, path)
			}
			before, _ := os.Lstat(path)
			entriesBefore, _ := os.ReadDir(dir)
			err := Update(t.Context(), root, "f.txt", nil, tc.edit)
			if tc.wantErr != nil {
				if err == nil || (tc.wantErr != errAny && !errors.Is(err, tc.wantErr)) {
					t.Fatalf("Update = %v, want %v", err, tc.wantErr)
				}
				if entries, _ := os.ReadDir(dir); len(entries) != len(entriesBefore) {
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
			if diff := cmp.Diff(tc.want, string(data)); diff != "" {
				t.Errorf("content (-want +got):\n%s", diff)
			}
			if got, want := KeptMode(fi.Mode()), KeptMode(before.Mode()); got != want {
				t.Errorf("mode %v, want %v", got, want)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 1 {
				t.Errorf("directory holds %v, want just f.txt", entries)
			}
		})
	}
}

// errAny stands for any error in a table.
var errAny = errors.New("any error")

func TestCreate(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		setup   func(t *testing.T, path string)
		wantErr bool
	}{
		"new":              {},
		"existing file":    {setup: func(t *testing.T, p string) { mustWrite(t, p, "old", 0o644) }, wantErr: true},
		"existing dir":     {setup: func(t *testing.T, p string) { mustMkdir(t, p) }, wantErr: true},
		"dangling symlink": {setup: func(t *testing.T, p string) { _ = os.Symlink("/nonexistent/x", p) }, wantErr: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir, root := openDir(t)
			path := filepath.Join(dir, "f.txt")
			if tc.setup != nil {
				tc.setup(t, path)
			}
			err := Create(t.Context(), root, "f.txt", []byte("new\n"), 0o640)
			entries, _ := os.ReadDir(dir)
			if tc.wantErr {
				if !errors.Is(err, fs.ErrExist) {
					t.Errorf("Create = %v, want fs.ErrExist", err)
				}
				if len(entries) != 1 {
					t.Errorf("left behind: %v", entries)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			fi, _ := os.Stat(path)
			if fi.Mode() != 0o640 || len(entries) != 1 {
				t.Errorf("mode %v, entries %v", fi.Mode(), entries)
			}
		})
	}
}

// TestUpdateConcurrent runs many read-modify-writes on one file from
// goroutines with separate opens (each its own lock holder, as separate
// processes are): none is lost.
func TestUpdateConcurrent(t *testing.T) {
	// 40 writers queue for one lock: only their count, not the machine's
	// speed, may decide the outcome.
	atomicfiletest.Set(t, &LockTimeout, time.Hour)
	dir, root := openDir(t)
	path := filepath.Join(dir, "f.txt")
	mustWrite(t, path, "", 0o644)
	const n = 40
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			if err := Update(t.Context(), root, "f.txt", nil, func(cur []byte, _ fs.FileInfo) ([]byte, error) {
				runtime.Gosched()
				return append(cur, 'x'), nil
			}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	data, _ := os.ReadFile(path)
	if len(data) != n {
		t.Errorf("file has %d updates, want %d", len(data), n)
	}
}

func mustWrite(t *testing.T, p, s string, mode fs.FileMode) {
	t.Helper()
	if err := os.WriteFile(p, []byte(s), mode); err != nil {
		t.Fatal(err)
	}
	mustChmod(t, p, mode)
}

func mustChmod(t *testing.T, p string, mode fs.FileMode) {
	t.Helper()
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
}

func mustMkdir(t *testing.T, p string) {
	t.Helper()
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
}

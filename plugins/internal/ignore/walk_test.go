package ignore_test

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ramabana/ramabana-mcp/plugins/internal/ignore"
)

var tree = map[string]string{
	".gitignore":                "*.log\n/build/\nnode_modules/\n!important.log\ndocs/**/*.tmp\ntmp*/\n!tmp-keep/\ndeep/**/out/\n",
	"tmp1/a":                    "",
	"tmp-keep/b":                "",
	"deep/x/y/out/f":            "",
	"deep/out/g":                "",
	"deep/x/out.txt":            "",
	"a.go":                      "",
	"b.log":                     "",
	"important.log":             "",
	"build/x.go":                "",
	"lib/node_modules":          "a file, not a directory",
	"lib/build/y.go":            "",
	"node_modules/pkg/index.js": "",
	"docs/readme.md":            "",
	"docs/c.tmp":                "",
	"docs/a/b/c.tmp":            "",
	"secret.txt":                "",
	"src/.gitignore":            "*.gen.go\n!keep.gen.go\n/local.txt\n",
	"src/main.go":               "",
	"src/z.gen.go":              "",
	"src/keep.gen.go":           "",
	"src/local.txt":             "",
	"src/sub/.gitignore":        "!deep.log\n",
	"src/sub/local.txt":         "",
	"src/sub/deep.log":          "",
	"src/sub/other.log":         "",
}

// makeTree writes tree into a git work tree (a real one when git is
// installed) whose info/exclude ignores secret.txt.
func makeTree(t testing.TB, files map[string]string) (dir string, withGit bool) {
	t.Helper()
	dir = t.TempDir()
	if _, err := exec.LookPath("git"); err == nil {
		if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
			t.Fatalf("git init: %v\n%s", err, out)
		}
		withGit = true
	}
	write(t, dir, ".git/info/exclude", "# local\nsecret.txt\n")
	for name, content := range files {
		write(t, dir, name, content)
	}
	return dir, withGit
}

func write(t testing.TB, dir, name, content string) {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// rootFS is the file system of an os.Root on dir, as sdk/roots hands out.
func rootFS(t testing.TB, dir string) fs.FS {
	t.Helper()
	r, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Close() })
	return r.FS()
}

// collect lists what Walk visits, directories with a trailing '/'.
func collect(t *testing.T, top, root string, opts ignore.Options, stop func(rel string) error) []string {
	t.Helper()
	var got []string
	err := ignore.Walk(rootFS(t, top), root, opts, func(rel string, d fs.DirEntry) error {
		if d.IsDir() {
			rel += "/"
		}
		got = append(got, rel)
		if stop != nil {
			return stop(rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func TestWalk(t *testing.T) {
	t.Parallel()
	dir, _ := makeTree(t, tree)
	tests := map[string]struct {
		top  string // the file system's top, relative to dir
		root string // the walk root in it; "" for "."
		opts ignore.Options
		stop func(rel string) error
		want []string
	}{
		"whole tree": {
			want: []string{
				".gitignore", "a.go", "deep/", "deep/x/", "deep/x/out.txt", "deep/x/y/", "docs/", "docs/a/", "docs/a/b/", "docs/readme.md", "important.log",
				"lib/", "lib/build/", "lib/build/y.go", "lib/node_modules",
				"src/", "src/.gitignore", "src/keep.gen.go", "src/main.go",
				"src/sub/", "src/sub/.gitignore", "src/sub/deep.log", "src/sub/local.txt", "tmp-keep/", "tmp-keep/b",
			},
		},
		"depth 1": {
			opts: ignore.Options{MaxDepth: 1},
			want: []string{".gitignore", "a.go", "deep/", "docs/", "important.log", "lib/", "src/", "tmp-keep/"},
		},
		"subdirectory with base": {
			root: "src",
			want: []string{".gitignore", "keep.gen.go", "main.go", "sub/", "sub/.gitignore", "sub/deep.log", "sub/local.txt"},
		},
		"subdirectory without base": {
			top:  "src",
			want: []string{".gitignore", "keep.gen.go", "main.go", "sub/", "sub/.gitignore", "sub/deep.log", "sub/local.txt", "sub/other.log"},
		},
		"ignored directory named explicitly": {
			root: "node_modules",
			want: []string{"pkg/", "pkg/index.js"},
		},
		"no ignore": {
			top:  "src/sub",
			opts: ignore.Options{NoIgnore: true},
			want: []string{".gitignore", "deep.log", "local.txt", "other.log"},
		},
		"skip dir": {
			opts: ignore.Options{MaxDepth: 2},
			stop: func(rel string) error {
				if rel == "deep/" || rel == "docs/" || rel == "lib/build/" || strings.HasPrefix(rel, "tmp") {
					return filepath.SkipDir
				}
				return nil
			},
			want: []string{".gitignore", "a.go", "deep/", "docs/", "important.log", "lib/", "lib/build/", "lib/node_modules", "src/", "src/.gitignore", "src/keep.gen.go", "src/main.go", "src/sub/", "tmp-keep/"},
		},
		"skip rest of directory": {
			top: "src",
			stop: func(rel string) error {
				if rel == "keep.gen.go" {
					return filepath.SkipDir
				}
				return nil
			},
			want: []string{".gitignore", "keep.gen.go"},
		},
		"skip listed": {
			opts: ignore.Options{Skip: []string{"src", "deep/x", "docs"}},
			want: []string{".gitignore", "a.go", "deep/", "deep/x/", "docs/", "important.log", "lib/", "lib/build/", "lib/build/y.go", "lib/node_modules", "src/", "tmp-keep/", "tmp-keep/b"},
		},
		"skip all": {
			stop: func(rel string) error {
				if rel == "deep/x/" {
					return filepath.SkipAll
				}
				return nil
			},
			want: []string{".gitignore", "a.go", "deep/", "deep/x/"},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got := collect(t, filepath.Join(dir, tc.top), cmpOr(tc.root, "."), tc.opts, tc.stop)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("walk (-want +got):\n%s", diff)
			}
		})
	}
}

// TestWalkAgreesWithGit checks the files Walk keeps against git's own list
// of untracked, not ignored files.
func TestWalkAgreesWithGit(t *testing.T) {
	t.Parallel()
	dir, withGit := makeTree(t, tree)
	if !withGit {
		t.Skip("git is not installed")
	}
	cmd := exec.Command("git", "ls-files", "--others", "--exclude-standard")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	want := strings.Fields(string(out))
	var got []string
	err = ignore.Walk(rootFS(t, dir), ".", ignore.Options{}, func(rel string, d fs.DirEntry) error {
		if !d.IsDir() {
			got = append(got, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(want)
	slices.Sort(got)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("walk vs git ls-files (-git +walk):\n%s", diff)
	}
}

// errLimit stands for any *ignore.LimitError in a table.
var errLimit = errors.New("limit")

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func TestWalkErrors(t *testing.T) {
	t.Parallel()
	dir, _ := makeTree(t, tree)
	boom := errors.New("boom")
	tests := map[string]struct {
		root string
		opts ignore.Options
		fn   func(string, fs.DirEntry) error
		want error // nil: any error
	}{
		"missing root":       {root: "nope", want: fs.ErrNotExist},
		"root above the top": {root: "../x"},
		"callback error":     {root: ".", fn: func(string, fs.DirEntry) error { return boom }, want: boom},
		"entry budget":       {root: ".", opts: ignore.Options{MaxEntries: 5}, want: errLimit},
		"time budget":        {root: ".", opts: ignore.Options{Timeout: time.Nanosecond}, want: errLimit},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			fn := tc.fn
			if fn == nil {
				fn = func(string, fs.DirEntry) error { return nil }
			}
			err := ignore.Walk(rootFS(t, dir), tc.root, tc.opts, fn)
			if tc.want == errLimit {
				var le *ignore.LimitError
				if !errors.As(err, &le) || le.Entries == 0 {
					t.Errorf("Walk = %v; want a *LimitError", err)
				}
				return
			}
			if err == nil || (tc.want != nil && !errors.Is(err, tc.want)) {
				t.Errorf("Walk = %v; want %v", err, tc.want)
			}
		})
	}
}

// BenchmarkWalk2000 walks 2,000 files in 100 directories, half of them
// ignored by name.
func BenchmarkWalk2000(b *testing.B) {
	files := map[string]string{".gitignore": "*.o\nbuild/\n"}
	for d := range 100 {
		for f := range 20 {
			ext := ".go"
			if f%2 == 1 {
				ext = ".o"
			}
			files[fmt.Sprintf("pkg%02d/sub/file%02d%s", d, f, ext)] = ""
		}
	}
	dir, _ := makeTree(b, files)
	fsys := rootFS(b, dir)
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		if err := ignore.Walk(fsys, ".", ignore.Options{}, func(string, fs.DirEntry) error { n++; return nil }); err != nil {
			b.Fatal(err)
		}
		if n != 1000+200+1 {
			b.Fatalf("visited %d", n)
		}
	}
}

package files_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ramabana/ramabana-mcp/plugins/files"
	"github.com/ramabana/ramabana-mcp/sdk"
	"github.com/ramabana/ramabana-mcp/sdk/sdktest"
)

func TestListFiles(t *testing.T) {
	t.Parallel()
	e := newEnv(t, map[string]string{
		".gitignore":          "*.log\n/dist/\n",
		".git/HEAD":           "ref: refs/heads/main\n",
		"README.md":           "",
		"app.log":             "",
		"dist/bundle.js":      "",
		"cmd/tool/main.go":    "",
		"cmd/tool/main.log":   "",
		"pkg/a.go":            "",
		"pkg/a_test.go":       "",
		"pkg/.gitignore":      "gen/\n!keep.log\n",
		"pkg/keep.log":        "",
		"pkg/gen/x.go":        "",
		"pkg/sub/dist/y.go":   "",
		"pkg/sub/deep/z.go":   "",
		"pkg/sub/deep/z.json": "",
	}, false)
	tests := map[string]struct {
		args    map[string]any
		want    []string
		wantErr string
	}{
		"everything": {
			args: map[string]any{},
			want: []string{
				".gitignore", "README.md", "cmd/", "cmd/tool/", "cmd/tool/main.go",
				"pkg/", "pkg/.gitignore", "pkg/a.go", "pkg/a_test.go", "pkg/keep.log",
				"pkg/sub/", "pkg/sub/deep/", "pkg/sub/deep/z.go", "pkg/sub/deep/z.json", "pkg/sub/dist/", "pkg/sub/dist/y.go",
			},
		},
		"subdirectory keeps the root's .gitignore": {
			args: map[string]any{"path": "cmd"},
			want: []string{"tool/", "tool/main.go"},
		},
		"base name glob at any depth": {
			args: map[string]any{"glob": "*.go"},
			want: []string{"cmd/tool/main.go", "pkg/a.go", "pkg/a_test.go", "pkg/sub/deep/z.go", "pkg/sub/dist/y.go"},
		},
		"path glob": {
			args: map[string]any{"glob": "pkg/*.go"},
			want: []string{"pkg/a.go", "pkg/a_test.go"},
		},
		"double star": {
			args: map[string]any{"path": "pkg", "glob": "sub/**/*.{go,json}"},
			want: []string{"sub/deep/z.go", "sub/deep/z.json", "sub/dist/y.go"},
		},
		"glob matches directories": {
			args: map[string]any{"glob": "*/"},
			want: nil, // a glob never sees the trailing slash
		},
		"depth 1": {
			args: map[string]any{"depth": 1},
			want: []string{".gitignore", "README.md", "cmd/", "pkg/"},
		},
		"depth 2 with glob": {
			args: map[string]any{"depth": 2, "glob": "*.go"},
			want: []string{"pkg/a.go", "pkg/a_test.go"},
		},
		"cap": {
			args: map[string]any{"glob": "*.go", "limit": 2},
			want: []string{"cmd/tool/main.go", "pkg/a.go", "(entries 1-2 shown; 3 more left out: continue with start=3, or narrow path or glob, or set depth)"},
		},
		"continued": {
			args: map[string]any{"glob": "*.go", "limit": 2, "start": 3},
			want: []string{"pkg/a_test.go", "pkg/sub/deep/z.go", "(entries 3-4 shown; 1 more left out: continue with start=5, or narrow path or glob, or set depth)"},
		},
		"continued to the end": {
			args: map[string]any{"glob": "*.go", "start": 5},
			want: []string{"pkg/sub/dist/y.go"},
		},
		"start past the end": {
			args:    map[string]any{"glob": "*.go", "start": 6},
			wantErr: `start=6 is past the end: . lists 5 entries matching glob "*.go"`,
		},
		"absolute path": {
			args: map[string]any{"path": e.path("pkg/sub")},
			want: []string{"deep/", "deep/z.go", "deep/z.json", "dist/", "dist/y.go"},
		},
		"nothing matches": {
			args: map[string]any{"glob": "*.rs"},
			want: []string{`(nothing in . matches glob "*.rs")`},
		},
		"a file": {
			args:    map[string]any{"path": "README.md"},
			wantErr: "README.md is a file, not a directory; use view_file to read it",
		},
		"missing": {
			args:    map[string]any{"path": "nope"},
			wantErr: "nope does not exist",
		},
		"bad glob": {
			args:    map[string]any{"glob": "[a-"},
			wantErr: `glob "[a-" is not a valid pattern`,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, isErr := e.call(t, "list_files", tc.args)
			if !sdktest.Outcome(t, got, isErr, tc.wantErr) {
				return
			}
			want := strings.Join(tc.want, "\n")
			if tc.want == nil {
				want = fmt.Sprintf("(nothing in . matches glob %q)", tc.args["glob"])
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("list_files (-want +got):\n%s", diff)
			}
		})
	}
}

func TestListFilesEmptyDir(t *testing.T) {
	t.Parallel()
	e := newEnv(t, map[string]string{"only.log": "", ".gitignore": "*.log\n.gitignore\n"}, false)
	got, isErr := e.call(t, "list_files", map[string]any{"path": "."})
	if want := "(. has no entries that git does not ignore)"; isErr || got != want {
		t.Errorf("got %q (error %v), want %q", got, isErr, want)
	}
}

// TestListFilesByteBudget checks that a listing stops at its byte budget
// before its entry count, says where to continue, and that following the
// notes lists every entry once, in order.
func TestListFilesByteBudget(t *testing.T) {
	t.Parallel()
	tree := map[string]string{}
	var all []string
	// 900 entries of about 60 bytes: about 53 KiB, two pages.
	for i := range 900 {
		name := fmt.Sprintf("a-rather-long-directory-name/file-with-a-long-name-%04d.txt", i)
		tree[name] = ""
		all = append(all, name)
	}
	e := newEnv(t, tree, false)
	all = append([]string{"a-rather-long-directory-name/"}, all...)
	var got []string
	pages := 0
	note := regexp.MustCompile(`^\(entries (\d+)-(\d+) shown, up to the 32 KiB output limit; (\d+) more left out: continue with start=(\d+), or narrow path or glob, or set depth\)$`)
	for start := 1; pages < 5; pages++ {
		text, isErr := e.call(t, "list_files", map[string]any{"start": start})
		if isErr {
			t.Fatal(text)
		}
		lines := strings.Split(text, "\n")
		last := lines[len(lines)-1]
		m := note.FindStringSubmatch(last)
		if m == nil {
			got = append(got, lines...)
			break
		}
		if listed := len(strings.Join(lines[:len(lines)-1], "\n")); listed > 32<<10 {
			t.Errorf("page at start=%d lists %d bytes, over 32 KiB", start, listed)
		}
		got = append(got, lines[:len(lines)-1]...)
		if want := []string{strconv.Itoa(start), strconv.Itoa(len(got)), strconv.Itoa(len(all) - len(got)), strconv.Itoa(len(got) + 1)}; !slices.Equal(m[1:], want) {
			t.Errorf("note %q, want numbers %v", last, want)
		}
		start = len(got) + 1
	}
	if pages != 1 {
		t.Errorf("%d pages were cut, want 1", pages)
	}
	if diff := cmp.Diff(all, got); diff != "" {
		t.Errorf("entries over the pages (-want +got):\n%s", diff)
	}
}

// BenchmarkListFiles2000 lists 2,000 files (half ignored) with a glob,
// calling the plugin in-process.
func BenchmarkListFiles2000(b *testing.B) {
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, ".gitignore"), []byte("*.o\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	for d := range 100 {
		sub := filepath.Join(dir, fmt.Sprintf("pkg%02d", d), "sub")
		if err := os.MkdirAll(sub, 0o755); err != nil {
			b.Fatal(err)
		}
		for f := range 20 {
			ext := map[bool]string{true: ".go", false: ".o"}[f%2 == 0]
			if err := os.WriteFile(filepath.Join(sub, fmt.Sprintf("file%02d%s", f, ext)), nil, 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	box := files.New()
	if _, err := box.Describe(context.Background(), sdk.Host{Roots: []string{dir}}); err != nil {
		b.Fatal(err)
	}
	call := &sdk.Call{Tool: "list_files", Arguments: []byte(`{"glob":"*.go"}`)}
	b.ReportAllocs()
	for b.Loop() {
		res, err := box.Call(context.Background(), call, nil)
		if err != nil || res.IsError || strings.Count(res.Text(), "\n") != 999 {
			b.Fatal(err, res.Text()[:100])
		}
	}
}

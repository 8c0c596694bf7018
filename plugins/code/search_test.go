package code_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ramabana/ramabana-mcp/sdk/sdktest"
)

func TestSearchCode(t *testing.T) {
	t.Parallel()
	e := newEnv(t, map[string]string{
		".gitignore":           "*.log\n/build/\n",
		".git/config":          "needle in git\n",
		"a.go":                 "package a\n\nfunc Alpha() {}\n\nfunc beta() {}\n// Needle here\n",
		"b.py":                 "def alpha():\n    return 'needle'\n",
		"app.log":              "needle in a log\n",
		"build/out.go":         "needle in build\n",
		"src/.gitignore":       "gen/\n!keep.log\n",
		"src/keep.log":         "needle kept\n",
		"src/gen/x.go":         "needle generated\n",
		"src/deep/c.go":        "x := needle()\n",
		"src/deep/d.txt":       "a.b[0] and aXb[0]\n",
		"crlf.txt":             "one needle\r\ntwo\r\n",
		"ctx.txt":              "l1\nl2 hit\nl3\nl4\nl5\nl6\nl7 hit\nl8\nl9 hit\nl10\n",
		"span.txt":             "alpha\nbeta\nalpha beta\n",
		"anchors.txt":          "start here\nnot start\nend\n",
		"kelvin.txt":           "\u212Aelvin scale\n",
		"long.txt":             strings.Repeat("x", 500) + "needle" + strings.Repeat("é", 10) + "\n",
		"bad-utf8.txt":         "needle \xff\xfe\x01 end\n",
		"nested/no-newline.md": "last needle",
	})
	tests := map[string]struct {
		args    map[string]any
		want    string
		wantErr string
	}{
		"regexp": {
			args: map[string]any{"pattern": `func [a-z]\w*\(`},
			want: "a.go:5:func beta() {}\n(1 match in 1 file; 15 files searched)",
		},
		"case insensitive": {
			args: map[string]any{"pattern": `func alpha`, "case_sensitive": false},
			want: "a.go:3:func Alpha() {}\n(1 match in 1 file; 15 files searched)",
		},
		"literal": {
			args: map[string]any{"pattern": "a.b[0]", "literal": true},
			want: "src/deep/d.txt:1:a.b[0] and aXb[0]\n(1 match in 1 file; 15 files searched)",
		},
		"gitignore at every level, .git left out": {
			args: map[string]any{"pattern": "needle", "case_sensitive": false, "glob": "*.{go,log,py}"},
			want: "a.go:6:// Needle here\nb.py:2:    return 'needle'\nsrc/deep/c.go:1:x := needle()\nsrc/keep.log:1:needle kept\n(4 matches in 4 files; 4 files searched)",
		},
		"path glob relative to path": {
			args: map[string]any{"pattern": "needle", "path": "src", "glob": "deep/*.go"},
			want: "src/deep/c.go:1:x := needle()\n(1 match in 1 file; 1 file searched)",
		},
		"single file": {
			args: map[string]any{"pattern": "needle", "path": "b.py"},
			want: "b.py:2:    return 'needle'\n(1 match in 1 file; 1 file searched)",
		},
		"absolute path": {
			args: map[string]any{"pattern": "needle", "path": e.path("src/deep")},
			want: "src/deep/c.go:1:x := needle()\n(1 match in 1 file; 2 files searched)",
		},
		"context lines with separators": {
			args: map[string]any{"pattern": "hit", "path": "ctx.txt", "context_lines": 1},
			want: "ctx.txt-1-l1\nctx.txt:2:l2 hit\nctx.txt-3-l3\n--\nctx.txt-6-l6\nctx.txt:7:l7 hit\nctx.txt-8-l8\nctx.txt:9:l9 hit\nctx.txt-10-l10\n(3 matches in 1 file; 1 file searched)",
		},
		"context separators between files": {
			args: map[string]any{"pattern": "alpha", "glob": "{b.py,span.txt}", "context_lines": 1},
			want: "b.py:1:def alpha():\nb.py-2-    return 'needle'\n--\nspan.txt:1:alpha\nspan.txt-2-beta\nspan.txt:3:alpha beta\n(3 matches in 2 files; 2 files searched)",
		},
		"no match spans lines": {
			args: map[string]any{"pattern": `alpha\s+beta`, "path": "span.txt"},
			want: "span.txt:3:alpha beta\n(1 match in 1 file; 1 file searched)",
		},
		"anchors are per line": {
			args: map[string]any{"pattern": `^start|^end$`, "path": "anchors.txt"},
			want: "anchors.txt:1:start here\nanchors.txt:3:end\n(2 matches in 1 file; 1 file searched)",
		},
		"crlf kept out of the line": {
			args: map[string]any{"pattern": "needle", "path": "crlf.txt"},
			want: "crlf.txt:1:one needle\n(1 match in 1 file; 1 file searched)",
		},
		"unicode case folding": {
			args: map[string]any{"pattern": "kelvin", "case_sensitive": false, "path": "kelvin.txt"},
			want: "kelvin.txt:1:\u212Aelvin scale\n(1 match in 1 file; 1 file searched)",
		},
		"long line cut": {
			args: map[string]any{"pattern": "needle", "path": "long.txt"},
			want: "long.txt:1:" + strings.Repeat("x", 400) + "… (+126 bytes)\n(1 match in 1 file; 1 file searched)",
		},
		"invalid utf-8 replaced": {
			args: map[string]any{"pattern": "needle", "path": "bad-utf8.txt"},
			want: "bad-utf8.txt:1:needle \uFFFD\x01 end\n(1 match in 1 file; 1 file searched)",
		},
		"last line without newline": {
			args: map[string]any{"pattern": "needle$", "path": "nested"},
			want: "nested/no-newline.md:1:last needle\n(1 match in 1 file; 1 file searched)",
		},
		"no match": {
			args: map[string]any{"pattern": "zebra"},
			want: "(no matches for /zebra/ in 15 files searched)",
		},
		"nothing to search": {
			args: map[string]any{"pattern": "x", "glob": "*.rs"},
			want: `(no files searched under .: nothing in it matches glob "*.rs" that git does not ignore)`,
		},
		"invalid regexp": {
			args:    map[string]any{"pattern": "func("},
			wantErr: `pattern "func(" is not a valid regular expression (Go RE2 syntax): missing closing ) in "func("; set literal: true to search for the text as is`,
		},
		"newline in pattern": {
			args:    map[string]any{"pattern": `a\nb`},
			wantErr: "search_code matches one line at a time",
		},
		"empty pattern": {
			args:    map[string]any{"pattern": ""},
			wantErr: "invalid arguments for search_code: \"pattern\" must not be empty",
		},
		"bad glob": {
			args:    map[string]any{"pattern": "x", "glob": "[a-"},
			wantErr: `glob "[a-" is not a valid pattern`,
		},
		"context too large": {
			args:    map[string]any{"pattern": "x", "context_lines": 11},
			wantErr: "invalid arguments for search_code: \"context_lines\" must be at most 10 (got 11)",
		},
		"missing path": {
			args:    map[string]any{"pattern": "x", "path": "nope"},
			wantErr: "nope does not exist",
		},
		"path outside the roots": {
			args:    map[string]any{"pattern": "x", "path": "/etc"},
			wantErr: `path "/etc" is outside the served folders`,
		},
		"dot-dot outside the roots": {
			args:    map[string]any{"pattern": "x", "path": "../.."},
			wantErr: "is outside the served folders",
		},
		"unknown argument": {
			args:    map[string]any{"pattern": "x", "regex": true},
			wantErr: `invalid arguments for search_code: unknown argument "regex"; search_code takes: pattern, literal, case_sensitive, path, glob, context_lines, limit, max_files, max_seconds`,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, isErr := e.call(t, "search_code", tc.args)
			if !sdktest.Outcome(t, got, isErr, tc.wantErr) {
				return
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("search_code (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSearchCodeSkipsBinaryAndLarge(t *testing.T) {
	t.Parallel()
	e := newEnv(t, map[string]string{
		"text.txt":  "needle\n",
		"bin.dat":   "needle\x00\x01\x02",
		"late.dat":  strings.Repeat("a", 9000) + "\x00needle\n", // NUL past 8 KiB: text
		"big.txt":   strings.Repeat("needle\n", (2<<20)/7+1),
		"empty.txt": "",
	})
	got, isErr := e.call(t, "search_code", map[string]any{"pattern": "needle"})
	if isErr {
		t.Fatal(got)
	}
	want := "late.dat:1:" + strings.Repeat("a", 400) + "… (+8607 bytes)\ntext.txt:1:needle\n" +
		"(2 matches in 2 files; 3 files searched; skipped 1 binary file, 1 file over 2 MiB)"
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("search_code (-want +got):\n%s", diff)
	}
}

func TestSearchCodeSymlinks(t *testing.T) {
	t.Parallel()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root, outside, other := filepath.Join(dir, "root"), filepath.Join(dir, "outside"), filepath.Join(dir, "other")
	writeFile(t, filepath.Join(root, "real.txt"), "needle real\n")
	writeFile(t, filepath.Join(outside, "secret.txt"), "needle secret\n")
	writeFile(t, filepath.Join(other, "shared.txt"), "needle in another served folder\n")
	for link, target := range map[string]string{
		"in-link.txt":    filepath.Join(root, "real.txt"),
		"out-link.txt":   filepath.Join(outside, "secret.txt"),
		"out-dir":        outside,
		"self-dir":       root,
		"dangling.txt":   filepath.Join(root, "missing.txt"),
		"other-link.txt": filepath.Join(other, "shared.txt"),
	} {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	e := connect(t, root, other)
	got, isErr := e.call(t, "search_code", map[string]any{"pattern": "needle"})
	if isErr {
		t.Fatal(got)
	}
	want := "in-link.txt:1:needle real\nother-link.txt:1:needle in another served folder\nreal.txt:1:needle real\n(3 matches in 3 files; 3 files searched)"
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("search_code (-want +got):\n%s", diff)
	}
	got, isErr = e.call(t, "search_code", map[string]any{"pattern": "needle", "path": "out-dir"})
	if !isErr || !strings.Contains(got, "is outside the served folders") {
		t.Errorf("search through a symlink out of the roots: got %q (error %v), want it refused", got, isErr)
	}
	got, isErr = e.call(t, "search_code", map[string]any{"pattern": "needle", "path": other})
	if isErr {
		t.Fatal(got)
	}
	if want := other + "/shared.txt:1:needle in another served folder\n(1 match in 1 file; 1 file searched)"; got != want {
		t.Errorf("search in the second root: got %q, want %q", got, want)
	}
}

func TestSearchCodeCap(t *testing.T) {
	t.Parallel()
	tree := map[string]string{}
	// 200 files, each with 3 matches; the cap falls inside file 010.
	for i := range 200 {
		tree[fmt.Sprintf("f%03d.txt", i)] = "hit one\nmiss\nhit two\nhit three\n"
	}
	e := newEnv(t, tree)
	tests := map[string]struct {
		args      map[string]any
		wantLines int
		wantLast  string
	}{
		"cap inside a file, files after the lookahead not searched": {
			args:      map[string]any{"pattern": "hit", "limit": 32},
			wantLines: 32,
			wantLast:  "(32 matches shown in 11 files; 75 files searched; limit=32 reached: at least 193 more matches in 65 files left out, and files after those were not searched; continue with start=33, or narrow pattern, path or glob)",
		},
		"cap near the end: everything after it counted": {
			args:      map[string]any{"pattern": "hit", "limit": 591},
			wantLines: 591,
			wantLast:  "(591 matches shown in 197 files; 200 files searched; limit=591 reached: 9 more matches in 3 files left out; continue with start=592, or narrow pattern, path or glob)",
		},
		"cap equal to the total": {
			args:      map[string]any{"pattern": "hit", "path": "f000.txt", "limit": 3},
			wantLines: 3,
			wantLast:  "(3 matches in 1 file; 1 file searched)",
		},
		"default cap": {
			args:      map[string]any{"pattern": "hit"},
			wantLines: 200,
			wantLast:  "(200 matches shown in 67 files; 131 files searched; limit=200 reached: at least 193 more matches in 65 files left out, and files after those were not searched; continue with start=201, or narrow pattern, path or glob)",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var first string
			// The same call twice: parallel workers must not change a byte.
			for run := range 2 {
				got, isErr := e.call(t, "search_code", tc.args)
				if isErr {
					t.Fatal(got)
				}
				lines := strings.Split(got, "\n")
				if n := len(lines) - 1; n != tc.wantLines {
					t.Errorf("got %d match lines, want %d", n, tc.wantLines)
				}
				if diff := cmp.Diff(tc.wantLast, lines[len(lines)-1]); diff != "" {
					t.Errorf("totals (-want +got):\n%s", diff)
				}
				if lines[0] != "f000.txt:1:hit one" {
					t.Errorf("first line %q, want f000.txt:1:hit one", lines[0])
				}
				if run == 0 {
					first = got
				} else if got != first {
					t.Errorf("second run differs:\n%s", cmp.Diff(first, got))
				}
			}
		})
	}
}

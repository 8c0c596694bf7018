package files_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/ramabana/ramabana-mcp/plugins/files"
	"github.com/ramabana/ramabana-mcp/sdk"
	"github.com/ramabana/ramabana-mcp/sdk/sdktest"
)

const sizesPy = "RESERVE = 16_384\n\ndef threshold(ctx):\n    return ctx - RESERVE\n"

func numbered(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

func TestViewFile(t *testing.T) {
	t.Parallel()
	e := newEnv(t, map[string]string{
		"pkg/sizes.py":  sizesPy,
		"ten.txt":       numbered(10),
		"crlf.txt":      "a\r\nb\r\n",
		"no-final.txt":  "x\ny",
		"empty.txt":     "",
		"blank.txt":     "\n",
		"pkg/x.bin":     "abc\x00def",
		"latin1.txt":    "caf\xe9\n",
		"unicode.txt":   "naïve ✓\n",
		"dir/inner.txt": "",
	}, false)
	tests := map[string]struct {
		args    map[string]any
		want    string
		wantErr string // substring of an error result
	}{
		"sizes.py": {
			args: map[string]any{"path": "pkg/sizes.py"},
			want: lines(1, "RESERVE = 16_384", "", "def threshold(ctx):", "    return ctx - RESERVE"),
		},
		"absolute path inside": {
			args: map[string]any{"path": e.path("pkg/sizes.py"), "limit": 1},
			want: lines(1, "RESERVE = 16_384") + "\n(lines 1-1 of 4; continue with start=2)",
		},
		"first page": {
			args: map[string]any{"path": "ten.txt", "limit": 3},
			want: lines(1, "line 1", "line 2", "line 3") + "\n(lines 1-3 of 10; continue with start=4)",
		},
		"middle page": {
			args: map[string]any{"path": "ten.txt", "start": 4, "limit": 3},
			want: lines(4, "line 4", "line 5", "line 6") + "\n(lines 4-6 of 10; continue with start=7)",
		},
		"last page": {
			args: map[string]any{"path": "ten.txt", "start": 9, "limit": 3},
			want: lines(9, "line 9", "line 10"),
		},
		"page ends at the end": {
			args: map[string]any{"path": "ten.txt", "start": 8, "limit": 3},
			want: lines(8, "line 8", "line 9", "line 10"),
		},
		"start past end": {
			args:    map[string]any{"path": "ten.txt", "start": 11},
			wantErr: "start=11 is past the end: ten.txt has 10 lines",
		},
		"crlf": {
			args: map[string]any{"path": "crlf.txt"},
			want: lines(1, "a", "b"),
		},
		"no final newline": {
			args: map[string]any{"path": "no-final.txt"},
			want: lines(1, "x", "y"),
		},
		"one blank line": {
			args: map[string]any{"path": "blank.txt"},
			want: lines(1, ""),
		},
		"unicode": {
			args: map[string]any{"path": "unicode.txt"},
			want: lines(1, "naïve ✓"),
		},
		"empty": {
			args: map[string]any{"path": "empty.txt"},
			want: "(empty.txt is empty: 0 lines, 0 bytes)",
		},
		"binary": {
			args:    map[string]any{"path": "pkg/x.bin"},
			wantErr: "pkg/x.bin is a binary file (7 bytes); view_file works on text files only",
		},
		"invalid utf-8 is windows-1252": {
			args: map[string]any{"path": "latin1.txt"},
			want: "(encoding windows-1252, shown as UTF-8; edits are written back in windows-1252)\n" + lines(1, "café"),
		},
		"directory": {
			args:    map[string]any{"path": "dir"},
			wantErr: "dir is a directory; view_file works on files (use list_files",
		},
		"missing": {
			args:    map[string]any{"path": "nope.txt"},
			wantErr: "nope.txt does not exist",
		},
		"unknown argument": {
			args:    map[string]any{"path": "ten.txt", "offset": 3},
			wantErr: `invalid arguments for view_file: unknown argument "offset"; view_file takes: path, start, column, limit`,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, isErr := e.call(t, "view_file", tc.args)
			if !sdktest.Outcome(t, got, isErr, tc.wantErr) {
				return
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("view_file (-want +got):\n%s", diff)
			}
		})
	}
}

func TestViewFileFirstLine(t *testing.T) {
	t.Parallel()
	e := newEnv(t, map[string]string{"pkg/sizes.py": sizesPy}, false)
	got, _ := e.call(t, "view_file", map[string]any{"path": "pkg/sizes.py"})
	first, _, _ := strings.Cut(got, "\n")
	if want := "1|" + files.LineHash("RESERVE = 16_384") + "|RESERVE = 16_384"; first != want {
		t.Errorf("first line %q, want %q", first, want)
	}
}

func TestViewFileDefaultsAndByteCap(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 100_000)
	e := newEnv(t, map[string]string{
		"short.txt": strings.Repeat("x\n", 2500),
		"big.txt":   numbered(2500),
		"wide.txt":  strings.Repeat(long+"\n", 20),
		"huge.txt":  strings.Repeat("é", 600_000) + "\nafter\n",
		"mixed.txt": "a\n" + long + "\nb\n",
	}, false)
	tests := map[string]struct {
		args    map[string]any
		lines   int    // newlines in the page
		suffix  string // how the page ends
		wantErr string
	}{
		"default page of short lines": {
			args:   map[string]any{"path": "short.txt"},
			lines:  2000,
			suffix: "\n(lines 1-2000 of 2500; continue with start=2001)",
		},
		"byte budget": {
			args:   map[string]any{"path": "big.txt"},
			lines:  1749,
			suffix: "|line 1749\n(lines 1-1749 of 2500; continue with start=1750)",
		},
		"overlong first line": {
			args:   map[string]any{"path": "wide.txt"},
			lines:  1,
			suffix: "\n(line 1 of 20 is 100000 bytes long; bytes 1-32761 are shown: continue with start=1, column=32762)",
		},
		"overlong line after a short one": {
			args:   map[string]any{"path": "mixed.txt"},
			lines:  1,
			suffix: "|a\n(lines 1-1 of 3; continue with start=2)",
		},
		"multibyte characters are not split": {
			args:   map[string]any{"path": "huge.txt"},
			lines:  1,
			suffix: "é\n(line 1 of 2 is 1200000 bytes long; bytes 1-32760 are shown: continue with start=1, column=32761)",
		},
		"column past the end of the line": {
			args:    map[string]any{"path": "mixed.txt", "start": 3, "column": 2},
			wantErr: "column=2 is past the end of line 3, which is 1 byte long",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, isErr := e.call(t, "view_file", tc.args)
			if !sdktest.Outcome(t, got, isErr, tc.wantErr) {
				return
			}
			if n := strings.Count(got, "\n"); n != tc.lines || !strings.HasSuffix(got, tc.suffix) || len(got) > 40_000 {
				t.Errorf("%d bytes, %d newlines (want %d), ends %q\nwant suffix %q", len(got), n, tc.lines, got[max(0, len(got)-120):], tc.suffix)
			}
		})
	}
}

// TestViewFilePages reads whole files by following view_file's notes, and
// checks that every page stays under 40 KB and that the pages put
// together are the file.
func TestViewFilePages(t *testing.T) {
	t.Parallel()
	var minified strings.Builder
	for i := range 40_000 {
		fmt.Fprintf(&minified, "function f%d(a){return a+%d};", i, i)
	}
	tree := map[string]string{
		"big.txt":      numbered(5000),
		"wide.txt":     strings.Repeat(strings.Repeat("x", 100_000)+"\n", 5),
		"huge.txt":     strings.Repeat("é", 600_000) + "\nafter",
		"bundle.js":    "/*! bundle */\n" + minified.String() + "\n//# sourceMappingURL=bundle.js.map\n",
		"crlf.txt":     strings.Repeat(strings.Repeat("y", 50_000)+"\r\n", 3),
		"one line.txt": strings.Repeat("✓", 20_000),
	}
	e := newEnv(t, tree, false)
	note := regexp.MustCompile(`\n\((?:lines \d+-\d+ of \d+|line \d+ of \d+ is \d+ bytes long; bytes \d+-\d+ are shown:)[^()]* continue with start=(\d+)(?:, column=(\d+))?\)$`)
	header := regexp.MustCompile(`^\(line \d+ from byte \d+ of \d+:\)\n`)
	for name, content := range tree {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var lines []string
			args := map[string]any{"path": name}
			for pages := 0; ; pages++ {
				if pages > 200 {
					t.Fatal("more than 200 pages")
				}
				got, isErr := e.call(t, "view_file", args)
				if isErr || len(got) > 40_000 || !utf8.ValidString(got) {
					t.Fatalf("page %v: %d bytes, error %v: %.200s", args, len(got), isErr, got)
				}
				body, more := got, note.FindStringSubmatch(got)
				if more != nil {
					body = got[:len(got)-len(more[0])]
				}
				cont := header.MatchString(body)
				body = header.ReplaceAllString(body, "")
				for i, l := range strings.Split(body, "\n") {
					_, rest, _ := strings.Cut(l, "|")
					_, text, _ := strings.Cut(rest, "|")
					if i == 0 && cont {
						lines[len(lines)-1] += text
					} else {
						lines = append(lines, text)
					}
				}
				if more == nil {
					break
				}
				args = map[string]any{"path": name, "start": atoi(t, more[1])}
				if more[2] != "" {
					args["column"] = atoi(t, more[2])
				}
			}
			want := strings.Split(strings.TrimSuffix(strings.ReplaceAll(content, "\r\n", "\n"), "\n"), "\n")
			if diff := cmp.Diff(want, lines); diff != "" {
				t.Errorf("pages put together (-file +pages):\n%.2000s", diff)
			}
		})
	}
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// BenchmarkViewFile10k views a 10,000-line file (~340 KB), calling the
// plugin in-process: the file is read and its lines counted whole, and its
// first page (the byte budget's worth) is rendered.
func BenchmarkViewFile10k(b *testing.B) {
	dir := b.TempDir()
	var sb strings.Builder
	for i := range 10_000 {
		fmt.Fprintf(&sb, "    total_%05d = calc(a, b) + %04d\n", i, i%10000)
	}
	if err := os.WriteFile(filepath.Join(dir, "big.py"), []byte(sb.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	box := files.New()
	if _, err := box.Describe(context.Background(), sdk.Host{Roots: []string{dir}}); err != nil {
		b.Fatal(err)
	}
	call := &sdk.Call{Tool: "view_file", Arguments: []byte(`{"path":"big.py","limit":10000}`)}
	b.SetBytes(int64(sb.Len()))
	b.ReportAllocs()
	for b.Loop() {
		res, err := box.Call(context.Background(), call, nil)
		if err != nil || res.IsError {
			b.Fatal(err, res.Text())
		}
	}
}

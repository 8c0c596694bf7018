package files_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
		"invalid utf-8": {
			args:    map[string]any{"path": "latin1.txt"},
			wantErr: "latin1.txt is a binary file (5 bytes)",
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
			wantErr: `invalid arguments for view_file: unknown argument "offset"; view_file takes: path, start, limit`,
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
	long := strings.Repeat("x", 100_000) // 11 such lines pass 1 MiB
	e := newEnv(t, map[string]string{
		"big.txt":  numbered(2500),
		"wide.txt": strings.Repeat(long+"\n", 20),
		"huge.txt": strings.Repeat("é", 600_000) + "\nafter\n",
	}, false)

	got, _ := e.call(t, "view_file", map[string]any{"path": "big.txt"})
	if n := strings.Count(got, "\n"); n != 2000 || !strings.HasSuffix(got, "\n(lines 1-2000 of 2500; continue with start=2001)") {
		t.Errorf("default page: %d newlines, ends %q", n, got[len(got)-60:])
	}

	got, _ = e.call(t, "view_file", map[string]any{"path": "wide.txt"})
	if len(got) > 1<<20+200 || !strings.HasSuffix(got, "\n(lines 1-10 of 20; continue with start=11)") {
		t.Errorf("byte cap: %d bytes, ends %q", len(got), got[len(got)-60:])
	}

	got, _ = e.call(t, "view_file", map[string]any{"path": "huge.txt", "limit": 1})
	if len(got) > 1<<20+200 || !strings.Contains(got, "(line 1 is longer than 1 MiB") ||
		!strings.HasSuffix(got, "(lines 1-1 of 2; continue with start=2)") || !json.Valid(mustJSON(t, got)) {
		t.Errorf("overlong line: %d bytes, ends %q", len(got), got[len(got)-120:])
	}
}

func mustJSON(t *testing.T, s string) []byte {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// BenchmarkViewFile10k views a 10,000-line file (~340 KB) whole, calling
// the plugin in-process.
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

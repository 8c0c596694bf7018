package code_test

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// filler is n numbered lines of about 60 bytes each.
func filler(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %07d: nothing to find here, just bytes to fill it up\n", i)
	}
	return b.String()
}

// utf16LE encodes ASCII s as UTF-16LE with its byte order mark.
func utf16LE(s string) string {
	var b strings.Builder
	b.WriteString("\xFF\xFE")
	for i := 0; i < len(s); i++ {
		b.WriteByte(s[i])
		b.WriteByte(0)
	}
	return b.String()
}

// TestSearchCodeLargeFileNamed checks that a file over 2 MiB is searched,
// streamed, when it is named as path, and skipped when met in a walk.
func TestSearchCodeLargeFileNamed(t *testing.T) {
	t.Parallel()
	const n = 50000 // 50000 lines of 60 bytes: about 2.9 MiB
	big := filler(n) + "the needle near the end\n" + filler(2)
	longLine := "needle first, " + strings.Repeat("x", 1536<<10) + " needle past the first MiB\n"
	e := newEnv(t, map[string]string{
		"big.txt":       big,
		"big-utf16.txt": utf16LE(big),
		"long-line.txt": filler(40000) + longLine + "needle after it\n",
	})
	if len(big) <= 2<<20 {
		t.Fatalf("big.txt is %d bytes, not over 2 MiB", len(big))
	}
	tests := map[string]struct {
		args map[string]any
		want string
	}{
		"named": {
			args: map[string]any{"pattern": "needle", "path": "big.txt"},
			want: "big.txt:50001:the needle near the end\n(1 match in 1 file; 1 file searched)",
		},
		"named, with context": {
			args: map[string]any{"pattern": "needle", "path": "big.txt", "context_lines": 1},
			want: "big.txt-50000-line 0050000: nothing to find here, just bytes to fill it up\n" +
				"big.txt:50001:the needle near the end\n" +
				"big.txt-50002-line 0000001: nothing to find here, just bytes to fill it up\n" +
				"(1 match in 1 file; 1 file searched)",
		},
		"named, utf-16": {
			args: map[string]any{"pattern": "the needle", "path": "big-utf16.txt"},
			want: "big-utf16.txt:50001:the needle near the end\n(1 match in 1 file; 1 file searched)",
		},
		"named, no match": {
			args: map[string]any{"pattern": "absent", "path": "big.txt"},
			want: "(no matches for /absent/ in 1 file searched)",
		},
		"named, a line over 1 MiB": {
			args: map[string]any{"pattern": "needle", "path": "long-line.txt"},
			want: "long-line.txt:40001:needle first, " + strings.Repeat("x", 386) + fmt.Sprintf("… (+%d bytes)\n", len(longLine)-1-400) +
				"long-line.txt:40002:needle after it\n" +
				"(2 matches in 1 file; 1 file searched; only the first 1 MiB of 1 line over 1 MiB searched)",
		},
		"walked": {
			args: map[string]any{"pattern": "needle"},
			want: "(no files searched under .; skipped 3 files over 2 MiB)",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, isErr := e.call(t, "search_code", tc.args)
			if isErr {
				t.Fatal(got)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("search_code (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSearchCodeEncodings checks that text in UTF-16 (with its byte order
// mark), windows-1252 and ISO-8859-1 is searched as UTF-8, shown as UTF-8,
// with the lines of the file.
func TestSearchCodeEncodings(t *testing.T) {
	t.Parallel()
	e := newEnv(t, map[string]string{
		"a-utf8.txt":     "x\ncafé crème\n",
		"b-utf8-bom.txt": "\xEF\xBB\xBFcafé crème\n",
		"c-utf16le.txt":  "\xFF\xFE" + "x\x00\n\x00c\x00a\x00f\x00\xE9\x00 \x00\xAC\x20\n\x00",
		"d-utf16be.txt":  "\xFE\xFF" + "\x00c\x00a\x00f\x00\xE9\x00\r\x00\n",
		"e-cp1252.txt":   "x\r\ny\r\ncaf\xE9 \x80\r\n",
		"f-latin1.txt":   "caf\xE9 \x81\n",
		"g-binary.dat":   "caf\xE9\x00",
	})
	got, isErr := e.call(t, "search_code", map[string]any{"pattern": "^café"})
	if isErr {
		t.Fatal(got)
	}
	want := "a-utf8.txt:2:café crème\n" +
		"b-utf8-bom.txt:1:café crème\n" +
		"c-utf16le.txt:2:café €\n" +
		"d-utf16be.txt:1:café\n" +
		"e-cp1252.txt:3:café €\n" +
		"f-latin1.txt:1:café \u0081\n" +
		"(6 matches in 6 files; 6 files searched; skipped 1 binary file)"
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("search_code (-want +got):\n%s", diff)
	}
}

// TestSearchCodePages follows search_code's notes from the first page to
// the last, where the 32 KiB output limit cuts the pages (between files
// and inside one), and checks that every match is shown once, in order,
// and that no page's listing passes the limit by more than one match.
func TestSearchCodePages(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("z", 300)
	tree := map[string]string{}
	var all []string // "path:line" of every match, in order
	for f := range 30 {
		var b strings.Builder
		name := fmt.Sprintf("f%02d.txt", f)
		for l := 1; l <= 40; l++ {
			if l%2 == 1 {
				fmt.Fprintf(&b, "hit %s\n", long)
				all = append(all, fmt.Sprintf("%s:%d", name, l))
			} else {
				b.WriteString("miss\n")
			}
		}
		tree[name] = b.String()
	}
	e := newEnv(t, tree)
	note := regexp.MustCompile(`; continue with start=(\d+), or narrow pattern, path or glob\)$`)
	for _, context := range []int{0, 2} {
		t.Run(fmt.Sprintf("context=%d", context), func(t *testing.T) {
			t.Parallel()
			var got []string
			pages := 0
			for start := 1; pages < 20; pages++ {
				text, isErr := e.call(t, "search_code", map[string]any{"pattern": "^hit", "start": start, "limit": 2000, "context_lines": context})
				if isErr {
					t.Fatal(text)
				}
				lines := strings.Split(text, "\n")
				listing := strings.Join(lines[:len(lines)-1], "\n")
				if len(listing) > 32<<10+(2*context+1)*400 {
					t.Errorf("page at start=%d lists %d bytes", start, len(listing))
				}
				for _, l := range lines[:len(lines)-1] {
					if path, rest, ok := strings.Cut(l, ":"); ok && !strings.HasPrefix(l, "--") {
						no, _, _ := strings.Cut(rest, ":")
						got = append(got, path+":"+no)
					}
				}
				m := note.FindStringSubmatch(lines[len(lines)-1])
				if m == nil {
					break
				}
				if want := strconv.Itoa(len(got) + 1); m[1] != want {
					t.Fatalf("page at start=%d: continue with start=%s, want %s", start, m[1], want)
				}
				start = len(got) + 1
			}
			if pages < 2 {
				t.Errorf("%d pages cut, want several", pages)
			}
			if diff := cmp.Diff(all, got); diff != "" {
				t.Errorf("matches over the pages (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("one file", func(t *testing.T) {
		t.Parallel()
		text, _ := e.call(t, "search_code", map[string]any{"pattern": "^hit", "path": "f03.txt", "start": 11})
		lines := strings.Split(text, "\n")
		if lines[0] != "f03.txt:21:hit "+long || lines[len(lines)-1] != "(matches 11-20 in 1 file; 1 file searched)" {
			t.Errorf("got first %q and last %q", lines[0], lines[len(lines)-1])
		}
	})
	t.Run("start past the end", func(t *testing.T) {
		t.Parallel()
		text, isErr := e.call(t, "search_code", map[string]any{"pattern": "^hit", "path": "f03.txt", "start": 21})
		if want := "start=21 is past the end: /^hit/ has 20 matches in 1 file searched"; !isErr || text != want {
			t.Errorf("got %q (error %v), want %q", text, isErr, want)
		}
	})
}

package code

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ramabana/ramabana-mcp/sdk/roots"
)

func TestLineReader(t *testing.T) {
	t.Parallel()
	type line struct {
		Text    string
		Dropped int
	}
	tests := map[string]struct {
		in   string
		want []line
	}{
		"empty":                {"", nil},
		"one line":             {"abc\n", []line{{"abc", 0}}},
		"no final newline":     {"a\nbc", []line{{"a", 0}, {"bc", 0}}},
		"empty lines":          {"\n\nx\n", []line{{"", 0}, {"", 0}, {"x", 0}}},
		"crlf kept":            {"a\r\nb\r\n", []line{{"a\r", 0}, {"b\r", 0}}},
		"exactly max":          {"12345678\nx\n", []line{{"12345678", 0}, {"x", 0}}},
		"over max":             {"1234567890\nx\n", []line{{"12345678", 2}, {"x", 0}}},
		"over the read buffer": {strings.Repeat("a", 40) + "\nb", []line{{"aaaaaaaa", 32}, {"b", 0}}},
		"cut at a character":   {"1234567é9\n", []line{{"1234567", 3}}},
		"last line over max":   {"x\n" + strings.Repeat("z", 20), []line{{"x", 0}, {"zzzzzzzz", 12}}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			// The smallest buffer bufio allows, to cross it often.
			lr := lineReader{r: bufio.NewReaderSize(strings.NewReader(tc.in), 16), max: 8}
			var got []line
			for {
				l, dropped, err := lr.next()
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, line{string(l), dropped})
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("lines (-want +got):\n%s", diff)
			}
		})
	}
}

// TestStreamMatchesWholeRead checks that a streamed search finds what a
// search of the file read whole finds: the same matches, context lines
// and counts, whatever the pattern, context and limit.
func TestStreamMatchesWholeRead(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r, err := roots.New([]string{dir}, false)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	contents := map[string]string{
		"plain":        "l1\nl2 hit\nl3\nl4\nl5\nl6\nl7 hit\nl8\nl9 hit\nl10\n",
		"adjacent":     "hit\nhit\nx\nhit\n",
		"crlf":         "a hit\r\nb\r\n\r\nc hit\r\n",
		"no newline":   "x\ny\nhit",
		"empty lines":  "\n\nhit\n\n\n",
		"long line":    strings.Repeat("ä", 500) + " hit\nhit " + strings.Repeat("b", 600) + "\n",
		"windows-1252": "caf\xe9 hit\nna\xefve\nhit \x80\n",
		"utf-16le bom": "\xff\xfeh\x00i\x00t\x00\n\x00x\x00\n\x00",
		"utf-8 bom":    "\xef\xbb\xbfhit\nx\n",
	}
	patterns := []struct {
		pattern string
		literal bool
	}{{"hit", true}, {"^hit", false}, {"t$", false}, {"^$", false}, {"(?i)HIT|na", false}, {"é|ä", false}}
	for name, content := range contents {
		path := filepath.Join(dir, strings.ReplaceAll(name, " ", "-"))
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		tgt, err := r.Read(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range patterns {
			m, err := newMatcher(p.pattern, p.literal, true)
			if err != nil {
				t.Fatal(err)
			}
			for _, context := range []int{0, 1, 3} {
				for _, limit := range []int{1, 2, 200} {
					t.Run(fmt.Sprintf("%s/%s/context=%d/limit=%d", name, p.pattern, context, limit), func(t *testing.T) {
						q := &searchQuery{m: m, limit: limit, context: context}
						st := newWorkerState()
						whole := q.searchFile(t.Context(), st, fileJob{t: tgt})
						streamed := q.searchStream(t.Context(), st, tgt)
						if diff := cmp.Diff(whole, streamed, cmp.AllowUnexported(fileHits{}, shownLine{})); diff != "" {
							t.Errorf("(-whole +streamed):\n%s", diff)
						}
					})
				}
			}
		}
	}
}

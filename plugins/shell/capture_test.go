package shell

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCapture(t *testing.T) {
	t.Parallel()
	digits := "0123456789"
	tests := map[string]struct {
		limit int
		input string
		head  string // the whole stream when nothing is cut
		tail  string
		cut   int64
	}{
		"empty":             {limit: 10, input: ""},
		"short":             {limit: 10, input: "abc", head: "abc"},
		"head only":         {limit: 10, input: "abcdef", head: "abcdef"},
		"exactly the limit": {limit: 10, input: digits, head: digits},
		"one over":          {limit: 10, input: digits + "x", head: "012345", tail: "789x", cut: 1},
		"long":              {limit: 10, input: strings.Repeat(digits, 10), head: "012345", tail: "6789", cut: 90},
		"cut at line breaks": {
			limit: 40,
			input: "line 1\nline 2\nline 3\nline 4\nline 5\nline 6\nline 7\nline 8\nline 9\n",
			head:  "line 1\nline 2\nline 3\n", tail: "line 8\nline 9\n", cut: 28,
		},
		"no split rune": {
			limit: 10,
			input: "abcde" + "é" + "xxxxxxxxxx" + "é" + "yyy",
			head:  "abcde", tail: "yyy", cut: 14,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			// The result must not depend on how the stream is chunked.
			for _, chunk := range []int{1, 3, 7, len(tc.input) + 1} {
				c := newCapture(tc.limit)
				for s := tc.input; s != ""; {
					n := min(chunk, len(s))
					if _, err := c.Write([]byte(s[:n])); err != nil {
						t.Fatal(err)
					}
					s = s[n:]
				}
				head, tail, cut := c.parts()
				got := []any{string(head), string(tail), cut, c.Total()}
				want := []any{tc.head, tc.tail, tc.cut, int64(len(tc.input))}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("chunks of %d: head, tail, cut, total (-want +got):\n%s", chunk, diff)
				}
			}
		})
	}
}

func TestWriteSection(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		limit int
		input string
		want  string
	}{
		"empty":           {limit: 10, input: "", want: ""},
		"newline added":   {limit: 10, input: "abc", want: "--- out ---\nabc\n"},
		"newline kept":    {limit: 10, input: "abc\n", want: "--- out ---\nabc\n"},
		"invalid utf-8":   {limit: 10, input: "a\xffb", want: "--- out ---\na\uFFFDb\n"},
		"cut with a note": {limit: 10, input: "0123456789abcdefghij", want: "--- out (20 bytes in all; the first 6 and the last 4 shown) ---\n012345\n[... 10 bytes cut ...]\nghij\n"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := newCapture(tc.limit)
			_, _ = c.Write([]byte(tc.input))
			var b strings.Builder
			c.writeSection(&b, "out")
			if diff := cmp.Diff(tc.want, b.String()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestFormatBytes(t *testing.T) {
	t.Parallel()
	tests := map[int64]string{0: "0 B", 1023: "1023 B", 1024: "1.0 KiB", 1229: "1.2 KiB", 3 << 20: "3.0 MiB", 5 << 30: "5.0 GiB"}
	for n, want := range tests {
		if got := formatBytes(n); got != want {
			t.Errorf("formatBytes(%d) = %q, want %q", n, got, want)
		}
	}
}

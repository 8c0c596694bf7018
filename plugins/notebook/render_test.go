package notebook

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestLastFrame(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		traceback []string
		summary   string
		want      []string
	}{
		"ipython 8 cell": {
			traceback: []string{"\x1b[0;31mNameError\x1b[0m   Traceback (most recent call last)", "Cell \x1b[0;32mIn[2], line 1\x1b[0m\n\x1b[0;32m----> 1\x1b[0m \x1b[43mundefined\x1b[49m\n", "\x1b[0;31mNameError\x1b[0m: name 'undefined' is not defined"},
			summary:   "NameError: name 'undefined' is not defined",
			want:      []string{"Cell In[2], line 1", "----> 1 undefined"},
		},
		"ipython 7 with context after the arrow": {
			traceback: []string{"<ipython-input-3-1a2b> in <module>\n      1 x = 0\n----> 2 1/x\n      3 print(x)\n", "ZeroDivisionError: division by zero"},
			summary:   "ZeroDivisionError: division by zero",
			want:      []string{"<ipython-input-3-1a2b> in <module>", "----> 2 1/x"},
		},
		"plain python": {
			traceback: []string{"Traceback (most recent call last):\n  File \"/srv/job.py\", line 12, in run\n    return load(path)\nFileNotFoundError: [Errno 2] No such file"},
			summary:   "FileNotFoundError: [Errno 2] No such file",
			want:      []string{`File "/srv/job.py", line 12, in run`, "    return load(path)"},
		},
		"only the summary": {
			traceback: []string{"KeyboardInterrupt: "},
			summary:   "KeyboardInterrupt: ",
			want:      []string{"KeyboardInterrupt:"},
		},
		"empty": {summary: "E: x"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var lines []string
			for _, e := range tc.traceback {
				for l := range strings.SplitSeq(stripANSI(e), "\n") {
					if l = strings.TrimRight(l, " "); strings.TrimSpace(l) != "" {
						lines = append(lines, l)
					}
				}
			}
			if diff := cmp.Diff(tc.want, lastFrame(lines, tc.summary)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestTextCleanup(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		fn       func(string) string
		in, want string
	}{
		"ansi colours":       {stripANSI, "\x1b[1;31mred\x1b[0m \x1b[38;5;241mgrey\x1b[39m", "red grey"},
		"ansi osc link":      {stripANSI, "\x1b]8;;https://x.org\x1b\\link\x1b]8;;\x1b\\ and \x1b]0;title\x07done", "link and done"},
		"ansi cursor":        {stripANSI, "a\x1b[2Kb\x1b[1Ac\x1b(B", "abc"},
		"ansi cut off":       {stripANSI, "text\x1b[0", "text"},
		"cr progress":        {settleCR, "start\n 10%\r 50%\r100%\ndone\r\n", "start\n100%\ndone\n"},
		"crlf only":          {settleCR, "a\r\nb\r\n", "a\nb\n"},
		"no cr":              {settleCR, "plain\n", "plain\n"},
		"clip short":         {clip, strings.Repeat("é", maxOutputChars), strings.Repeat("é", maxOutputChars)},
		"clip without lines": {clip, strings.Repeat("a", 1500) + strings.Repeat("b", 1500), strings.Repeat("a", 1000) + "\n[… 1,000 characters elided; the output has 3,000 characters …]\n" + strings.Repeat("b", 1000)},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tc.want, tc.fn(tc.in)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestSizes(t *testing.T) {
	t.Parallel()
	s := &canonicalStyle
	tests := map[string]struct {
		mime string
		v    *node
		want string
	}{
		"base64 with newline": {"image/png", s.stringNode("aGVsbG8gd29ybGQ=\n"), "11 B"}, // "hello world"
		"base64 lines":        {"image/jpeg", arrayNode(s.stringNode("aGVs\n"), s.stringNode("bG8=")), "5 B"},
		"html":                {"text/html", arrayNode(s.stringNode("<b>café</b>\n")), "13 B"},
		"json":                {"application/vnd.plotly.v1+json", s.objectNode("data", arrayNode(nullNode())), "15 B"},
		"kilobytes":           {"text/html", s.stringNode(strings.Repeat("x", 12700)), "12.4 KB"},
		"megabytes":           {"text/html", s.stringNode(strings.Repeat("x", 3<<20)), "3.0 MB"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if got := humanSize(dataSize(tc.mime, tc.v)); got != tc.want {
				t.Errorf("size of %s: %s, want %s", tc.mime, got, tc.want)
			}
		})
	}
}

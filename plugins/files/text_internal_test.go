package files

import "testing"

func TestViewPrefix(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		text   string
		line   int
		prefix string
	}{
		"plain":               {"x := 1\n", 0, ""},
		"first line":          {"12|a3f0|    return x", 1, "12|a3f0|"},
		"later line":          {"a\nb\n3|FFFF|c\n", 3, "3|FFFF|"},
		"empty content":       {"7|0000|", 1, "7|0000|"},
		"indented":            {"  12|a3f0|x", 0, ""},
		"three hex digits":    {"12|a3f|x", 0, ""},
		"not hex":             {"12|a3g0|x", 0, ""},
		"no line number":      {"|a3f0|x", 0, ""},
		"markdown table":      {"| 1 | abcd |", 0, ""},
		"bar after digits":    {"1|2|3", 0, ""},
		"empty":               {"", 0, ""},
		"crlf":                {"x\r\n2|beef|y\r\n", 2, "2|beef|"},
		"shell pipe and hash": {"10|head -n 1", 0, ""},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			line, prefix := viewPrefix(tc.text)
			if line != tc.line || prefix != tc.prefix {
				t.Errorf("viewPrefix(%q) = %d, %q; want %d, %q", tc.text, line, prefix, tc.line, tc.prefix)
			}
		})
	}
}

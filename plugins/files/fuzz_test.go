package files

import (
	"strings"
	"testing"
)

// FuzzHashlineEdit feeds the hashline edit parser and applier one edit
// against any file text: it never panics, an anchor whose hash does not
// match the line is always refused, and a file with CRLF line endings
// keeps them.
func FuzzHashlineEdit(f *testing.F) {
	f.Add("a\nb\nc\n", "replace", 2, "", 0, "", "B")
	f.Add("a\r\nb\r\nc\r\n", "insert_after", 0, "", 0, "", "top\nsecond")
	f.Add("\ufeffone\ntwo", "delete", 1, "", 2, "", "")
	f.Add("x\ny\n", "replace", 1, "0000", 0, "", "z")
	f.Add("", "insert_after", 0, "", 0, "", "\n")
	f.Fuzz(func(t *testing.T, text, op string, line int, hash string, endLine int, endHash, newText string) {
		lines := splitLines(text)
		// An empty hash means "the right one", so that edits get applied too.
		if hash == "" && line >= 1 && line <= len(lines) {
			hash = LineHash(content(lines[line-1]))
		}
		if endHash == "" && endLine >= 1 && endLine <= len(lines) {
			endHash = LineHash(content(lines[endLine-1]))
		}
		spans, anchors, err := parseEdits([]lineEdit{{Op: op, Line: line, Hash: hash, EndLine: endLine, EndHash: endHash, Text: newText}})
		if err != nil {
			return
		}
		out, _, err := applyEdits(text, spans, anchors, "f")
		stale := false
		for _, a := range anchors {
			if a.line > len(lines) || LineHash(content(lines[a.line-1])) != a.hash {
				stale = true
			}
		}
		if stale {
			if err == nil {
				t.Fatalf("a stale anchor was accepted: %+v on %q", anchors, text)
			}
			return
		}
		if err != nil {
			return
		}
		crlfOnly := strings.Contains(text, "\r\n") && strings.Count(text, "\n") == strings.Count(text, "\r\n")
		if crlfOnly && !strings.Contains(newText, "\r") && strings.Count(out, "\n") != strings.Count(out, "\r\n") {
			t.Fatalf("CRLF file got a bare LF: %q -> %q", text, out)
		}
	})
}

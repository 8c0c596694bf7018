package pii

import "github.com/ramabana/ramabana-mcp/internal/textcut"

// cutWindow bounds how far Prefix looks on each side of a cut for a
// finding that spans it: more than a private key block of RSA-4096.
const cutWindow = 8 << 10

// Prefix is the longest prefix of text of at most n bytes that ends
// neither inside a character nor inside a finding (of the patterns or of
// personal names): text itself when it is that short. Whatever cuts text
// that has not yet been filtered (a capped tool result, a log line, a
// summary of arguments) cuts with it, so that the filter, which sees only
// the cut text, is never shown part of a value it would then not know.
func Prefix(text string, n int) string {
	if len(text) <= n {
		return text
	}
	cut := len(textcut.Prefix(text, n))
	lo, hi := max(0, cut-cutWindow), min(len(text), cut+cutWindow)
	for _, f := range (Filter{Names: true}).Find(text[lo:hi]) {
		if s, e := lo+f.Start, lo+f.End; s < cut && cut < e {
			cut = s // findings do not overlap: no other spans s
			break
		}
	}
	return text[:cut]
}

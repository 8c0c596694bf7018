package memory

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// dateFormat is how a memory's times are shown.
const dateFormat = "2006-01-02 15:04 UTC"

// block formats one memory: a header line, then its content, cut to
// maxChars characters with a note saying how to see the rest. The header
// is "id N · relevance R · scope X · tags a, b · saved DATE", leaving out
// the relevance when score is false and the tags when there are none, and adding
// "updated DATE" when the memory changed after it was saved.
func block(m memory, score bool, maxChars int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "id %d", m.ID)
	if score {
		fmt.Fprintf(&b, " · relevance %.2f", m.Score)
	}
	fmt.Fprintf(&b, " · scope %s", m.Scope)
	if len(m.Tags) > 0 {
		fmt.Fprintf(&b, " · tags %s", strings.Join(m.Tags, ", "))
	}
	fmt.Fprintf(&b, " · saved %s", m.Created.Format(dateFormat))
	if m.Updated.Sub(m.Created) >= time.Minute {
		fmt.Fprintf(&b, " · updated %s", m.Updated.Format(dateFormat))
	}
	b.WriteByte('\n')
	text, cut := truncate(m.Content, maxChars)
	b.WriteString(text)
	if cut {
		n := utf8.RuneCountInString(m.Content)
		fmt.Fprintf(&b, "\n[truncated: %d of %d characters shown; call again with max_chars=%d to see all of it]", maxChars, n, n)
	}
	return b.String()
}

// truncate cuts s to at most n characters.
func truncate(s string, n int) (string, bool) {
	if utf8.RuneCountInString(s) <= n {
		return s, false
	}
	i := 0
	for range n {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s[:i], true
}

// snippet is the first line of s, cut to n characters, for one-line
// mentions of a memory.
func snippet(s string, n int) string {
	line, _, more := strings.Cut(s, "\n")
	short, cut := truncate(line, n)
	if cut || more {
		short += "…"
	}
	return short
}

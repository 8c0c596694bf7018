package memory

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxQueryWords bounds the words of a query that are searched for.
const maxQueryWords = 32

// queryWords splits a query into the words the index holds: runs of
// letters, digits and combining marks, lower-cased, each once, in order.
// Everything else separates words, as it does for the unicode61 tokenizer,
// so FTS5 syntax in a query ("quotes", *, -, :, parentheses, ^, +) is never
// seen by FTS5. At most maxQueryWords are kept.
func queryWords(q string) []string {
	fields := strings.FieldsFunc(q, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsNumber(r) && !unicode.IsMark(r)
	})
	var words []string
	seen := map[string]bool{}
	for _, f := range fields {
		w := strings.ToLower(f)
		if seen[w] {
			continue
		}
		seen[w] = true
		words = append(words, w)
		if len(words) == maxQueryWords {
			break
		}
	}
	return words
}

// matchExprs builds the two FTS5 expressions for words, one per index (see
// the schema): any word may match (OR), each a quoted string, so keywords
// such as AND, OR, NOT and NEAR are plain words. In memories_fts a word
// matches by stem ("running" finds "runs"); in memories_words as a prefix
// of a word as written ("deploy" finds "deployment"). A memory with the
// word itself matches in both, so it scores above one with only a longer
// word that starts with it. One-letter words match only themselves: as
// prefixes they would match most of the index.
func matchExprs(words []string) (stems, prefixes string) {
	var s, p strings.Builder
	for i, w := range words {
		if i > 0 {
			s.WriteString(" OR ")
			p.WriteString(" OR ")
		}
		quoted := `"` + strings.ReplaceAll(w, `"`, `""`) + `"`
		s.WriteString(quoted)
		p.WriteString(quoted)
		if utf8.RuneCountInString(w) > 1 {
			p.WriteString("*")
		}
	}
	return s.String(), p.String()
}

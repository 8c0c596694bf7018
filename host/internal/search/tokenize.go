package search

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// words splits s into its words: maximal runs of letters and digits, each
// run split further at camelCase and letter/digit boundaries
// ("getHTTPResponse" gives get, http, response). A run that splits also
// gives itself whole ("github" from "GitHub", "s3" from "S3"), so that a
// query matches a word however either side cased it. Words are lower-case.
func words(s string) []string {
	if !isASCII(s) {
		return wordsUnicode(s)
	}
	// ASCII keeps byte offsets through lower-casing, so words are slices
	// of one lower-cased copy: no allocation per word.
	lower := strings.ToLower(s)
	out := make([]string, 0, len(s)/6+1)
	for i := 0; i < len(s); {
		if !isAlnum(s[i]) {
			i++
			continue
		}
		j := i
		for j < len(s) && isAlnum(s[j]) {
			j++
		}
		n := len(out)
		out = append(out, "") // the whole run, if it splits
		start := i
		for k := i + 1; k < j; k++ {
			if splitAt(s[k-1], s[k], k+1 < j, k+1 < j && s[k+1] == 's' && (k+2 == j || !isLower(s[k+2])), k+1 < j && isLower(s[k+1])) {
				out = append(out, lower[start:k])
				start = k
			}
		}
		out = append(out, lower[start:j])
		if len(out)-n > 2 {
			out[n] = lower[i:j]
		} else {
			out = append(out[:n], out[n+1:]...)
		}
		i = j
	}
	return out
}

// splitAt reports whether a word ends between prev and cur: at a change
// between letters and digits, from lower to upper case, and before the
// last capital of a run followed by lower case ("HTTPResponse") unless
// that is only a plural s ("PRs").
func splitAt(prev, cur byte, more, pluralS, nextLower bool) bool {
	switch {
	case isDigit(prev) != isDigit(cur):
		return true
	case isLower(prev) && isUpper(cur):
		return true
	case isUpper(prev) && isUpper(cur) && more && nextLower:
		return !pluralS
	}
	return false
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func isAlnum(c byte) bool { return isDigit(c) || isLower(c) || isUpper(c) }
func isDigit(c byte) bool { return '0' <= c && c <= '9' }
func isLower(c byte) bool { return 'a' <= c && c <= 'z' }
func isUpper(c byte) bool { return 'A' <= c && c <= 'Z' }

// wordsUnicode is words for text beyond ASCII.
func wordsUnicode(s string) []string {
	var out []string
	var run []rune
	flush := func() {
		if len(run) == 0 {
			return
		}
		parts := splitRun(run)
		if len(parts) > 1 {
			out = append(out, strings.ToLower(string(run)))
		}
		for _, p := range parts {
			out = append(out, strings.ToLower(p))
		}
		run = run[:0]
	}
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			run = append(run, r)
			continue
		}
		flush()
	}
	flush()
	return out
}

// splitRun splits a run of letters and digits as splitAt does.
func splitRun(run []rune) []string {
	var parts []string
	start := 0
	for i := 1; i < len(run); i++ {
		prev, cur := run[i-1], run[i]
		split := false
		switch {
		case unicode.IsDigit(prev) != unicode.IsDigit(cur):
			split = true
		case unicode.IsLower(prev) && unicode.IsUpper(cur):
			split = true
		case unicode.IsUpper(prev) && unicode.IsUpper(cur) && i+1 < len(run) && unicode.IsLower(run[i+1]):
			pluralS := run[i+1] == 's' && (i+2 == len(run) || !unicode.IsLower(run[i+2]))
			split = !pluralS
		}
		if split {
			parts = append(parts, string(run[start:i]))
			start = i
		}
	}
	return append(parts, string(run[start:]))
}

// terms is the analysis every field and query goes through: words, less
// stop words, stemmed.
func terms(s string) []string {
	ws := words(s)
	out := ws[:0]
	for _, w := range ws {
		if stopWords[w] {
			continue
		}
		out = append(out, stem(w))
	}
	return out
}

// stopWords are dropped from fields and queries. Words that tell tools
// apart (get, list, create, delete, search, read, write, file, new, all of
// a tool's verbs) are not here.
var stopWords = setOf(
	"a", "an", "the", "to", "of", "for", "in", "on", "with", "and", "or",
	"is", "are", "be", "been", "being", "was", "were", "am",
	"this", "that", "these", "those", "it", "its", "by", "from", "as", "at",
	"into", "onto", "about", "than", "then", "there", "here", "so", "such",
	"my", "me", "mine", "i", "you", "your", "yours", "we", "our", "us",
	"they", "them", "their", "he", "she", "his", "her", "him",
	"please", "can", "could", "would", "should", "will", "shall", "may",
	"might", "must", "how", "do", "does", "did", "done", "what", "which", "who",
	"whom", "whose", "when", "where", "why", "some", "all", "any", "each",
	"if", "else", "also", "just", "only", "not", "no", "very", "too",
	"want", "wanna", "need", "like", "let", "lets", "somebody", "someone",
	"something", "thing", "things", "etc", "eg", "ie", "via", "tool", "tools",
	// Fragments of contractions and abbreviations split at punctuation.
	"s", "t", "d", "m", "ll", "re", "ve", "e", "g",
)

func setOf(ws ...string) map[string]bool {
	m := make(map[string]bool, len(ws))
	for _, w := range ws {
		m[w] = true
	}
	return m
}

// stem reduces an English word to a stem its inflected forms share:
// create, creates, created, creating and creation all give "creat". It is
// a light, Porter-like stemmer: plurals, -ing, -ed, -tion, -er, a final e
// and y. Short words, words with digits and non-ASCII words are left as
// they are, and so are the few words in invariant whose stripping would
// join them with unrelated words (server and serve).
func stem(w string) string {
	if s, ok := irregular[w]; ok {
		return s
	}
	if len(w) <= 3 || !asciiLetters(w) || invariant[w] {
		return w
	}
	w = stripPlural(w)
	if invariant[w] {
		return w
	}
	w = stripVerbal(w)
	if invariant[w] {
		return w
	}
	if n := len(w); n >= 6 && strings.HasSuffix(w, "er") {
		w = w[:n-2] // browser, browse; reader, read
	}
	if n := len(w); n >= 4 && w[n-1] == 'e' {
		w = w[:n-1] // create and created meet at creat
	}
	if n := len(w); n >= 4 && w[n-1] == 'y' && !isVowel(w[n-2]) {
		w = w[:n-1] + "i" // query, queries, queried
	}
	return w
}

func stripPlural(w string) string {
	n := len(w)
	switch {
	case strings.HasSuffix(w, "ies") && n > 4:
		return w[:n-3] + "y"
	case strings.HasSuffix(w, "ses"), strings.HasSuffix(w, "xes"), strings.HasSuffix(w, "zes"),
		strings.HasSuffix(w, "ches"), strings.HasSuffix(w, "shes"):
		return w[:n-2]
	case strings.HasSuffix(w, "ss"), strings.HasSuffix(w, "us"), strings.HasSuffix(w, "is"):
		return w
	case w[n-1] == 's':
		return w[:n-1]
	}
	return w
}

func stripVerbal(w string) string {
	n := len(w)
	switch {
	case strings.HasSuffix(w, "ization") || strings.HasSuffix(w, "isation"):
		return w[:n-5] // organization, organize
	case strings.HasSuffix(w, "tion") && n-3 >= 3:
		return w[:n-3] // creation, create; deletion, delete
	case strings.HasSuffix(w, "ied") && n > 4:
		return w[:n-3] + "y"
	case strings.HasSuffix(w, "ing") && n-3 >= 3 && hasVowel(w[:n-3]):
		return undouble(w[:n-3])
	case strings.HasSuffix(w, "ed") && n-2 >= 3 && w[n-3] != 'e' && hasVowel(w[:n-2]):
		return undouble(w[:n-2])
	}
	return w
}

// undouble turns running's runn into run; ll, ss and zz stay (pull, pass)
// and so does a stem that would become too short (add).
func undouble(w string) string {
	n := len(w)
	if n >= 4 && w[n-1] == w[n-2] && !isVowel(w[n-1]) && !strings.ContainsRune("lsz", rune(w[n-1])) {
		return w[:n-1]
	}
	return w
}

// irregular maps forms the rules do not reach to the stem of their word.
var irregular = map[string]string{
	"used": "use", "uses": "use", "using": "use",
	"wrote": "writ", "written": "writ",
	"made": "mak", "found": "find", "sent": "send", "gotten": "get",
	"took": "tak", "taken": "tak", "ran": "run",
	"indices": "index", "children": "child", "people": "person",
	"embedded": "embed", "embedding": "embed", "embeddings": "embed",
}

// invariant words are not stemmed further: stripping would join them with
// words of another meaning or mangle a name.
var invariant = setOf(
	"alias", "atlas", "bias", "canvas", "chaos", "lens", "news", "series",
	"embed", "server", "container", "header", "docker", "postgres", "macos",
	"always", "perhaps",
)

func asciiLetters(w string) bool {
	for i := 0; i < len(w); i++ {
		if w[i] < 'a' || w[i] > 'z' {
			return false
		}
	}
	return utf8.ValidString(w)
}

func hasVowel(w string) bool {
	for i := 0; i < len(w); i++ {
		if isVowel(w[i]) {
			return true
		}
	}
	return false
}

func isVowel(c byte) bool { return strings.IndexByte("aeiouy", c) >= 0 }

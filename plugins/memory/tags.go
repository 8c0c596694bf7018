package memory

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ramabana/ramabana-mcp/sdk"
)

const (
	maxTags      = 20
	maxTagLength = 64
)

// normalizeTags checks tags and returns them lower-cased, each once,
// sorted. A tag is 1 to 64 characters with no white space or comma.
func normalizeTags(in []string) ([]string, error) {
	var out []string
	for i, t := range in {
		t = strings.ToLower(strings.TrimSpace(t))
		switch {
		case t == "":
			return nil, sdk.Failf("tag %d is empty; give each tag as one word, such as \"build\" or \"code-style\"", i+1)
		case strings.ContainsFunc(t, func(r rune) bool { return unicode.IsSpace(r) || r == ',' }):
			return nil, sdk.Failf("tag %q holds a space or comma; a tag is one word: join words with '-' (%q), and give several tags as separate list items",
				t, strings.Join(strings.FieldsFunc(t, func(r rune) bool { return unicode.IsSpace(r) || r == ',' }), "-"))
		case utf8.RuneCountInString(t) > maxTagLength:
			return nil, sdk.Failf("tag %q is longer than %d characters", t, maxTagLength)
		}
		if !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	if len(out) > maxTags {
		return nil, sdk.Failf("%d tags given; at most %d are allowed", len(out), maxTags)
	}
	slices.Sort(out)
	return out, nil
}

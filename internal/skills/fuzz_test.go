package skills

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzParse feeds arbitrary SKILL.md texts to Parse. Skills come from the
// served folders, which may be hostile: Parse must never panic, and what it
// accepts must satisfy the format's limits and keep the text whole.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		skillText("pdf-tools", "Fill PDF forms."),
		"\ufeff---\r\nname: a\r\ndescription: b\r\n---\r\nbody\r\n",
		"---\nname: a\ndescription: b\nallowed-tools: [x, y]\nmetadata: {k: v}\n---\n",
		"---\nname: &a a\ndescription: *a\n---\n",
		"---\n---\n",
		"---\nname: [\n---\n",
		"no front matter",
		"---\nname: a\ndescription: \"" + strings.Repeat("x", 1100) + "\"\n---\n",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, text string) {
		s, err := Parse(text)
		if err != nil {
			if s.Name != "" || s.Content != "" {
				t.Fatalf("Parse failed (%v) but returned a skill: %+v", err, s)
			}
			return
		}
		if err := ValidName(s.Name); err != nil {
			t.Fatalf("accepted an invalid name: %v", err)
		}
		if n := utf8.RuneCountInString(s.Description); n == 0 || n > MaxDescriptionLen {
			t.Fatalf("accepted a description of %d characters", n)
		}
		if s.Content != strings.TrimPrefix(text, "\ufeff") {
			t.Fatalf("Content is not the text less its BOM")
		}
	})
}

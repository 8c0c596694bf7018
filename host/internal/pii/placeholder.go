package pii

import "strconv"

// A placeholder stands for one value kept in a vault: ⟦kind:n⟧, such as
// ⟦email:3⟧, with n counting from 1 within the kind. The brackets are
// U+27E6 and U+27E7, which code and prose seldom hold.
var placeholderRE = lazyRegexp(`⟦([a-z]+):([1-9][0-9]{0,17})⟧`)

// FormatPlaceholder returns the placeholder of the n-th value of kind.
func FormatPlaceholder(kind Kind, n int64) string {
	return "⟦" + string(kind) + ":" + strconv.FormatInt(n, 10) + "⟧"
}

// PlaceholderRef is a placeholder found in a text: text[Start:End] is
// FormatPlaceholder(Kind, N).
type PlaceholderRef struct {
	Kind       Kind
	N          int64
	Start, End int
}

// FindPlaceholders returns the placeholders in text, in order. Every text
// a vault would turn back into a value is among them, and nothing else.
func FindPlaceholders(text string) []PlaceholderRef {
	var out []PlaceholderRef
	for _, m := range placeholderRE().FindAllStringSubmatchIndex(text, -1) {
		n, _ := strconv.ParseInt(text[m[4]:m[5]], 10, 64) // 18 digits at most: fits
		out = append(out, PlaceholderRef{Kind: Kind(text[m[2]:m[3]]), N: n, Start: m[0], End: m[1]})
	}
	return out
}

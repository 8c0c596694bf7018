// Package wording holds the small phrases the bundled groups' results share,
// so that a count reads the same in every tool.
package wording

import (
	"strconv"
	"strings"
)

// Count is n and word, made plural the regular English way when n is not 1:
// "1 file", "2 files", "3 entries" (a consonant and y become ies), "2 keys".
func Count(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	if len(word) >= 2 && strings.HasSuffix(word, "y") && !strings.ContainsRune("aeiou", rune(word[len(word)-2])) {
		word = word[:len(word)-1] + "ie"
	}
	return strconv.Itoa(n) + " " + word + "s"
}

// CountOf is n and one or many, for a plural Count would not make:
// CountOf(2, "match", "matches").
func CountOf(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

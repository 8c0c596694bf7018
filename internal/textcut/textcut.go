// Package textcut shortens text without splitting a character.
package textcut

import "unicode/utf8"

// Prefix is the longest prefix of s of at most n bytes that does not end
// inside a UTF-8 encoded character; s itself when it is that short.
func Prefix[T string | []byte](s T, n int) T {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

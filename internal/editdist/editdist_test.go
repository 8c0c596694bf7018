package editdist

import "testing"

func TestLevenshtein(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"path", "path", 0}, {"", "abc", 3}, {"pth", "path", 1},
		{"paht", "path", 2}, {"kitten", "sitting", 3}, {"héllo", "hello", 1},
	} {
		if got := Levenshtein(tc.a, tc.b); got != tc.want {
			t.Errorf("Levenshtein(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
		if got := Levenshtein(tc.b, tc.a); got != tc.want {
			t.Errorf("Levenshtein(%q, %q) = %d, want %d", tc.b, tc.a, got, tc.want)
		}
	}
}

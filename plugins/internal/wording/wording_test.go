package wording

import "testing"

func TestCount(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		n    int
		word string
		want string
	}{
		"one":             {1, "file", "1 file"},
		"none":            {0, "file", "0 files"},
		"many":            {3, "file", "3 files"},
		"consonant and y": {2, "entry", "2 entries"},
		"vowel and y":     {2, "key", "2 keys"},
		"one y":           {1, "entry", "1 entry"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if got := Count(tc.n, tc.word); got != tc.want {
				t.Errorf("Count(%d, %q) = %q, want %q", tc.n, tc.word, got, tc.want)
			}
		})
	}
	if got := CountOf(2, "match", "matches"); got != "2 matches" {
		t.Errorf("CountOf = %q", got)
	}
	if got := CountOf(1, "match", "matches"); got != "1 match" {
		t.Errorf("CountOf = %q", got)
	}
}

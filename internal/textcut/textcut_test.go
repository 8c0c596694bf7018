package textcut

import "testing"

func TestPrefix(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		s    string
		n    int
		want string
	}{
		{"hello", 10, "hello"}, {"hello", 5, "hello"}, {"hello", 3, "hel"}, {"hello", 0, ""},
		{"héllo", 2, "h"}, {"héllo", 3, "hé"}, {"日本", 4, "日"}, {"日本", 2, ""},
	} {
		if got := Prefix(tc.s, tc.n); got != tc.want {
			t.Errorf("Prefix(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.want)
		}
		if got := string(Prefix([]byte(tc.s), tc.n)); got != tc.want {
			t.Errorf("Prefix([]byte(%q), %d) = %q, want %q", tc.s, tc.n, got, tc.want)
		}
	}
}

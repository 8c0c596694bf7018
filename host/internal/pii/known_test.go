package pii

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestKnownSet(t *testing.T) {
	t.Parallel()
	var s KnownSet
	if got := s.Find("nothing kept yet", nil); got != nil {
		t.Errorf("empty set found %v", got)
	}
	for _, v := range []struct {
		kind Kind
		text string
	}{
		{Email, "jane@acme.io"},
		{Email, "jane@acme.io.uk"}, // shares its first 12 bytes with the one above
		{Card, "4111 1111 1111 1111"},
		{Phone, "555-0100"}, // exactly prefixLen bytes
		{Name, "Ossama"},    // MinKnownLen bytes
		{Name, "Bob"},       // too short: left out
		{Secret, "jane@acme.io"},
	} {
		s.Add(v.kind, v.text)
	}
	for name, tc := range map[string]struct {
		text string
		want []Finding
	}{
		"between digits":         {"id 94111 1111 1111 11119", []Finding{{Card, 4, 23}}},
		"the longest at a place": {"to jane@acme.io.uk now", []Finding{{Email, 3, 18}}},
		"the shorter":            {"to jane@acme.io now", []Finding{{Email, 3, 15}}}, // the first kind added stays
		"short values":           {"call 555-0100 or Ossama", []Finding{{Phone, 5, 13}, {Name, 17, 23}}},
		"at the very end":        {"xOssama", []Finding{{Name, 1, 7}}},
		"a cut value":            {"jane@acme.i", nil},
		"too short to keep":      {"Bob Bob", nil},
	} {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, s.Find(tc.text, nil)); diff != "" {
				t.Errorf("Find(%q) (-want +got):\n%s", tc.text, diff)
			}
		})
	}
}

// BenchmarkKnownSetSharedStarts: a text full of the start many kept values
// share (an attacker who got 50,000 "user.N@..." addresses kept) costs
// about what it costs with ten values: compare the two.
func BenchmarkKnownSetSharedStarts(b *testing.B) {
	text := strings.Repeat("user.name wrote to user.1234 about users. ", 100*1024/42)
	for _, n := range []int{10, 50000} {
		var s KnownSet
		for i := range n {
			s.Add(Email, fmt.Sprintf("user.%d@example.org", i))
		}
		b.Run(strconv.Itoa(n)+"values", func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				s.Find(text, nil)
			}
		})
	}
}

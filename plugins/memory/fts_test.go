package memory

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestQueryWords(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		query string
		want  []string
	}{
		"plain":          {"deploy the app", []string{"deploy", "the", "app"}},
		"case and dups":  {"Go go GO tests", []string{"go", "tests"}},
		"fts syntax":     {`"a" AND b* -c d:e NEAR(f g) ^h {i}`, []string{"a", "and", "b", "c", "d", "e", "near", "f", "g", "h", "i"}},
		"underscores":    {"snake_case_name", []string{"snake", "case", "name"}},
		"digits":         {"v1.26 port 8080", []string{"v1", "26", "port", "8080"}},
		"unicode":        {"naïve Ünïcode 東京 straße", []string{"naïve", "ünïcode", "東京", "straße"}},
		"combining mark": {"cafe\u0301", []string{"cafe\u0301"}},
		"none":           {`*"-:()^`, nil},
		"nul":            {"a\x00b", []string{"a", "b"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tc.want, queryWords(tc.query)); diff != "" {
				t.Errorf("queryWords(%q) (-want +got):\n%s", tc.query, diff)
			}
		})
	}
	var many []string
	for i := range 50 {
		many = append(many, fmt.Sprintf("word%d", i))
	}
	if got := len(queryWords(strings.Join(many, " "))); got != maxQueryWords {
		t.Errorf("%d words kept, want %d", got, maxQueryWords)
	}
}

func TestMatchExprs(t *testing.T) {
	t.Parallel()
	stems, prefixes := matchExprs([]string{"deploy", "and", "x", `q"uote`})
	if want := `"deploy" OR "and" OR "x" OR "q""uote"`; stems != want {
		t.Errorf("stems %s, want %s", stems, want)
	}
	if want := `"deploy"* OR "and"* OR "x" OR "q""uote"*`; prefixes != want {
		t.Errorf("prefixes %s, want %s", prefixes, want)
	}
}

package code

import (
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestMatcherAgreesWithLineByLine checks the literal prefilter and the
// whole-buffer scan against the plain definition: a line matches when the
// regexp matches the line on its own.
func TestMatcherAgreesWithLineByLine(t *testing.T) {
	t.Parallel()
	text := strings.Join([]string{
		"package main",
		"",
		"func ServeHTTP(w http.ResponseWriter, r *http.Request) {",
		"\tfunc inner() {}",
		"FUNC SHOUT()",
		"x := errors.New(\"boom\") // ErrBoom",
		"type KelvinError struct{}",
		"\u212Aelvin and \u017Fpecial folds",
		"a.b[0] literal with metacharacters",
		"trailing spaces   ",
		"tab\tseparated\tvalues",
		"café crème",
		"   ",
		"end",
	}, "\n")
	patterns := []struct {
		pattern       string
		literal, fold bool
	}{
		{pattern: "func"},
		{pattern: "func", fold: true},
		{pattern: `func \w+\(`},
		{pattern: `\w+Error`},
		{pattern: `(?i)kelvin`},
		{pattern: "kelvin", fold: true},
		{pattern: "special", fold: true},
		{pattern: `^\s*$`},
		{pattern: `\s+$`},
		{pattern: `^$`},
		{pattern: `x*`},
		{pattern: `[^a-z]+`},
		{pattern: `a.b[0]`, literal: true},
		{pattern: `a.b[0]`},
		{pattern: `(serve|shout)`, fold: true},
		{pattern: `crème`},
		{pattern: `CRÈME`, fold: true},
		{pattern: `(ab)+c?`},
		{pattern: `err(ors)?\.New`},
		{pattern: `\bend\b`},
		{pattern: `tab\tsep`},
		{pattern: `values$`},
		{pattern: `e`},
		{pattern: `(serve|inner|shout)\w*\(`, fold: true},
		{pattern: `(folds|scale|values)$`},
		{pattern: `\b(errors|boom)\b`},
		{pattern: `(kelvin|special)`, fold: true},
	}
	lines := strings.Split(text, "\n")
	for _, p := range patterns {
		t.Run(p.pattern, func(t *testing.T) {
			t.Parallel()
			m, err := newMatcher(p.pattern, p.literal, !p.fold)
			if err != nil {
				t.Fatal(err)
			}
			expr := p.pattern
			if p.literal {
				expr = regexp.QuoteMeta(expr)
			}
			if p.fold {
				expr = "(?i)" + expr
			}
			re := regexp.MustCompile(expr)
			var want []int
			for i, l := range lines {
				if re.MatchString(l) {
					want = append(want, i+1)
				}
			}
			for _, buf := range []string{text, text + "\n", text + "\r\n"} {
				var got []int
				var folded []byte
				m.scan([]byte(buf), &folded, func(h lineHit) bool {
					got = append(got, h.no)
					return true
				})
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("lines matched (-want +got) in %q:\n%s", buf[len(buf)-5:], diff)
				}
			}
		})
	}
}

func TestRequiredLiterals(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		pattern       string
		caseSensitive bool
		lits          []string
		fold          bool
		complete      bool
	}{
		"plain":              {pattern: "needle", caseSensitive: true, lits: []string{"needle"}, complete: true},
		"short plain":        {pattern: "ab", caseSensitive: true, lits: []string{"ab"}, complete: true},
		"folded":             {pattern: "Needle", lits: []string{"needle"}, fold: true, complete: true},
		"inner literal":      {pattern: `\w+Handler\(`, caseSensitive: true, lits: []string{"Handler("}},
		"prefix literal":     {pattern: `func \w+`, caseSensitive: true, lits: []string{"func "}},
		"alternation":        {pattern: `\b(server|client)\d`, caseSensitive: true, lits: []string{"server", "client"}},
		"folded alternation": {pattern: `foo|bar`, lits: []string{"foo", "bar"}, fold: true},
		"short alternative":  {pattern: `foo|ba`, caseSensitive: true},
		"optional":           {pattern: `(needle)?x`, caseSensitive: true},
		"repeated":           {pattern: `(needle){2,}`, caseSensitive: true, lits: []string{"needle"}},
		"too short":          {pattern: `a\d`, caseSensitive: true},
		"non-ascii folded":   {pattern: "crème"},
		"inline fold":        {pattern: `(?i)abc\d`, caseSensitive: true, lits: []string{"abc"}, fold: true},
		"longest of a few":   {pattern: `ab\d+longer\s`, caseSensitive: true, lits: []string{"longer"}},
		"set beats short":    {pattern: `x(alpha|beta)\d`, caseSensitive: true, lits: []string{"alpha", "beta"}},
		"literal metachars":  {pattern: `a.b`, caseSensitive: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			m, err := newMatcher(tc.pattern, false, tc.caseSensitive)
			if err != nil {
				t.Fatal(err)
			}
			type result struct {
				Lits           []string
				Fold, Complete bool
			}
			got := result{Fold: m.anyFold, Complete: m.complete}
			for _, l := range m.lits {
				got.Lits = append(got.Lits, string(l.b))
			}
			want := result{Lits: tc.lits, Fold: tc.fold, Complete: tc.complete}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("matcher for %q (-want +got):\n%s", tc.pattern, diff)
			}
		})
	}
}

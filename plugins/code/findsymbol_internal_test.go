package code

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSymbolSummary(t *testing.T) {
	t.Parallel()
	np := func(name string, substring bool) namePath {
		t.Helper()
		p, err := parseNamePath(name, substring)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := map[string]struct {
		sum  symbolSummary
		want string
	}{
		"found": {
			sum:  symbolSummary{scanTally: scanTally{read: 5, shown: 2}, limit: 50},
			want: "(2 symbols in 5 source files searched)",
		},
		"one found in one file": {
			sum:  symbolSummary{scanTally: scanTally{read: 1, shown: 1}, limit: 50},
			want: "(1 symbol in 1 source file searched)",
		},
		"found, with files skipped": {
			sum:  symbolSummary{scanTally: scanTally{read: 3, shown: 1, skips: skipCounts{large: 2, failed: 1}}, limit: 50},
			want: "(1 symbol in 3 source files searched; skipped 2 files over 2 MiB, 1 unreadable file)",
		},
		"capped exactly at the last symbol": {
			sum:  symbolSummary{scanTally: scanTally{read: 5, shown: 2, capped: true}, limit: 2},
			want: "(2 symbols in 5 source files searched)",
		},
		"capped, symbols left out": {
			sum:  symbolSummary{scanTally: scanTally{read: 5, shown: 2, left: 3, leftFiles: 2, capped: true}, limit: 2},
			want: "(2 symbols shown; limit=2 reached: 3 more symbols in 2 files left out; narrow name, kind or path, or raise limit)",
		},
		"capped, later files not searched": {
			sum:  symbolSummary{scanTally: scanTally{read: 5, shown: 1, capped: true, unsearched: true}, limit: 1},
			want: "(1 symbol shown; limit=1 reached, and later files were not searched; narrow name, kind or path, or raise limit)",
		},
		"capped, both": {
			sum:  symbolSummary{scanTally: scanTally{read: 5, shown: 2, left: 1, leftFiles: 1, capped: true, unsearched: true}, limit: 2},
			want: "(2 symbols shown; limit=2 reached: 1 more symbol in 1 file left out, and later files were not searched; narrow name, kind or path, or raise limit)",
		},
		"output full, with files skipped": {
			sum: symbolSummary{scanTally: scanTally{read: 9, shown: 40, left: 7, leftFiles: 3, capped: true, skips: skipCounts{binary: 1}},
				limit: 50, outputFull: true},
			want: "(40 symbols shown; output limit of 256 KiB reached: 7 more symbols in 3 files left out; narrow name, kind or path, or raise limit; skipped 1 binary file)",
		},
		"no match for a name": {
			sum:  symbolSummary{scanTally: scanTally{read: 5}, name: "Nope", np: np("Nope", false), root: "."},
			want: `(no symbol matches name "Nope" in 5 source files under .; try substring: true; search_code finds text anywhere)`,
		},
		"no match for a name path of a kind": {
			sum:  symbolSummary{scanTally: scanTally{read: 1}, name: "/Inner/deep", np: np("/Inner/deep", false), kind: kindMethod, root: "src"},
			want: `(no symbol matches name path "/Inner/deep" of kind method in 1 source file under src; try substring: true, or no kind, or just "deep"; search_code finds text anywhere)`,
		},
		"no match for a substring: no hint left": {
			sum:  symbolSummary{scanTally: scanTally{read: 2}, name: "zz", np: np("zz", true), root: "."},
			want: `(no symbol matches name "zz" (substring) in 2 source files under .; search_code finds text anywhere)`,
		},
		"no match, with files skipped": {
			sum:  symbolSummary{scanTally: scanTally{skips: skipCounts{failed: 2}}, name: "x", np: np("x", true), kind: kindClass, root: "a.py"},
			want: `(no symbol matches name "x" (substring) of kind class in 0 source files under a.py; try no kind; search_code finds text anywhere; skipped 2 unreadable files)`,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tc.want, tc.sum.String()); diff != "" {
				t.Errorf("totals (-want +got):\n%s", diff)
			}
		})
	}
}

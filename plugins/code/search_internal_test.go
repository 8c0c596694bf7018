package code

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ramabana/ramabana-mcp/plugins/internal/ignore"
)

func TestSearchSummary(t *testing.T) {
	t.Parallel()
	stop := &ignore.LimitError{Entries: 20000, Elapsed: 1500 * time.Millisecond}
	// The budget note ends in a ')' of its own, so the totals line gets no
	// closing one; these cases pin the output as it is.
	tests := map[string]struct {
		sum  searchSummary
		want string
	}{
		"matches": {
			sum:  searchSummary{scanTally: scanTally{read: 15, shown: 4}, shownFiles: 3, limit: 200},
			want: "(4 matches in 3 files; 15 files searched)",
		},
		"one match": {
			sum:  searchSummary{scanTally: scanTally{read: 1, shown: 1}, shownFiles: 1, limit: 200},
			want: "(1 match in 1 file; 1 file searched)",
		},
		"capped exactly at the last match": {
			sum:  searchSummary{scanTally: scanTally{read: 1, shown: 3, capped: true}, shownFiles: 1, limit: 3, lastShown: "a.go"},
			want: "(3 matches in 1 file; 1 file searched)",
		},
		"capped, matches left out": {
			sum:  searchSummary{scanTally: scanTally{read: 200, shown: 591, left: 9, leftFiles: 3, capped: true}, shownFiles: 197, limit: 591},
			want: "(591 matches shown in 197 files; 200 files searched; limit=591 reached: 9 more matches in 3 files left out; continue with start=592, or narrow pattern, path or glob)",
		},
		"capped, matches left out and files not searched": {
			sum:  searchSummary{scanTally: scanTally{read: 75, shown: 32, left: 193, leftFiles: 65, capped: true, unsearched: true}, shownFiles: 11, limit: 32},
			want: "(32 matches shown in 11 files; 75 files searched; limit=32 reached: at least 193 more matches in 65 files left out, and files after those were not searched; continue with start=33, or narrow pattern, path or glob)",
		},
		"capped, only files not searched": {
			sum:  searchSummary{scanTally: scanTally{read: 1, shown: 1, capped: true, unsearched: true}, shownFiles: 1, limit: 1, lastShown: "src/a.go"},
			want: "(1 match shown in 1 file; 1 file searched; limit=1 reached at src/a.go; files after it were not searched and may hold more; continue with start=2, or narrow pattern, path or glob)",
		},
		"output full": {
			sum:  searchSummary{scanTally: scanTally{read: 4, shown: 900, left: 2, leftFiles: 1, capped: true}, shownFiles: 3, limit: 2000, outputFull: true},
			want: "(900 matches shown in 3 files; 4 files searched; output limit of 32 KiB reached: 2 more matches in 1 file left out; continue with start=901, or narrow pattern, path or glob)",
		},
		"a later page": {
			sum:  searchSummary{scanTally: scanTally{read: 15, shown: 12}, shownFiles: 4, limit: 200, start: 201, passed: 200},
			want: "(matches 201-212 in 4 files; 15 files searched)",
		},
		"a later page of one match": {
			sum:  searchSummary{scanTally: scanTally{read: 15, shown: 1}, shownFiles: 1, limit: 200, start: 7, passed: 6},
			want: "(match 7 in 1 file; 15 files searched)",
		},
		"a later page, capped": {
			sum: searchSummary{scanTally: scanTally{read: 30, shown: 200, left: 20, leftFiles: 2, capped: true}, shownFiles: 9,
				limit: 200, start: 201, passed: 200},
			want: "(matches 201-400 shown in 9 files; 30 files searched; limit=200 reached: 20 more matches in 2 files left out; continue with start=401, or narrow pattern, path or glob)",
		},
		"no match for a regexp": {
			sum:  searchSummary{scanTally: scanTally{read: 15}, pattern: "a/b", limit: 200},
			want: `(no matches for /a\/b/ in 15 files searched)`,
		},
		"no match for literal text, ignoring case": {
			sum:  searchSummary{scanTally: scanTally{read: 1}, pattern: "a.b", literal: true, ignoreCase: true, limit: 200},
			want: `(no matches for "a.b" in 1 file searched, ignoring case)`,
		},
		"nothing to search": {
			sum:  searchSummary{root: "src", limit: 200},
			want: "(no files searched under src: it is empty, or everything in it is ignored by git)",
		},
		"nothing to search with a glob": {
			sum:  searchSummary{root: ".", glob: "*.rs", limit: 200},
			want: `(no files searched under .: nothing in it matches glob "*.rs" that git does not ignore)`,
		},
		"nothing read, files skipped": {
			sum:  searchSummary{scanTally: scanTally{skips: skipCounts{binary: 1, large: 1}}, root: "bin", limit: 200},
			want: "(no files searched under bin; skipped 1 binary file, 1 file over 2 MiB)",
		},
		"matches, files skipped": {
			sum:  searchSummary{scanTally: scanTally{read: 3, shown: 2, skips: skipCounts{binary: 1, large: 1}}, shownFiles: 2, limit: 200},
			want: "(2 matches in 2 files; 3 files searched; skipped 1 binary file, 1 file over 2 MiB)",
		},
		"no match, files skipped": {
			sum:  searchSummary{scanTally: scanTally{read: 2, skips: skipCounts{failed: 1}}, pattern: "x", limit: 200},
			want: "(no matches for /x/ in 2 files searched; skipped 1 unreadable file)",
		},
		"walk stopped": {
			sum:  searchSummary{scanTally: scanTally{read: 9, shown: 1}, shownFiles: 1, limit: 200, stopped: stop},
			want: "(1 match in 1 file; 9 files searched; " + stop.Note(),
		},
		"walk stopped before any file": {
			sum:  searchSummary{root: ".", limit: 200, stopped: stop},
			want: "(no files searched under .: it is empty, or everything in it is ignored by git; " + stop.Note(),
		},
		"walk stopped after the cap": {
			sum: searchSummary{scanTally: scanTally{read: 2, shown: 1, left: 1, leftFiles: 1, capped: true, skips: skipCounts{binary: 1}},
				shownFiles: 1, limit: 1, stopped: stop},
			want: "(1 match shown in 1 file; 2 files searched; limit=1 reached: 1 more match in 1 file left out; continue with start=2, or narrow pattern, path or glob; skipped 1 binary file; " + stop.Note(),
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

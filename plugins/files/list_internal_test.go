package files

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ramabana/ramabana-mcp/plugins/internal/ignore"
)

func TestListSummary(t *testing.T) {
	t.Parallel()
	stop := &ignore.LimitError{Entries: 5, Elapsed: 10 * time.Second, Timeout: true}
	tests := map[string]struct {
		sum     listSummary
		listing string
		want    string
	}{
		"all listed": {
			sum:     listSummary{root: ".", shown: 2},
			listing: "a.go\nsrc/",
			want:    "a.go\nsrc/",
		},
		"empty": {
			sum:  listSummary{root: "src"},
			want: "(src has no entries that git does not ignore)",
		},
		"nothing matches the glob": {
			sum:  listSummary{root: ".", glob: "*.rs"},
			want: `(nothing in . matches glob "*.rs")`,
		},
		"entries left out": {
			sum:     listSummary{root: ".", shown: 2, more: 3},
			listing: "a\nb",
			want:    "a\nb\n(entries 1-2 shown; 3 more left out: continue with start=3, or narrow path or glob, or set depth)",
		},
		"one entry shown": {
			sum:     listSummary{root: ".", shown: 1, more: 1},
			listing: "a",
			want:    "a\n(entry 1 shown; 1 more left out: continue with start=2, or narrow path or glob, or set depth)",
		},
		"left out past the count": {
			sum:     listSummary{root: ".", shown: 1, more: maxCounted},
			listing: "a",
			want:    "a\n(entry 1 shown; at least 100000 more left out: continue with start=2, or narrow path or glob, or set depth)",
		},
		"a later page": {
			sum:     listSummary{root: ".", start: 11, passed: 10, shown: 2, more: 5},
			listing: "k\nl",
			want:    "k\nl\n(entries 11-12 shown; 5 more left out: continue with start=13, or narrow path or glob, or set depth)",
		},
		"output limit": {
			sum:     listSummary{root: ".", start: 1, shown: 2, more: 5, full: true},
			listing: "a\nb",
			want:    "a\nb\n(entries 1-2 shown, up to the 32 KiB output limit; 5 more left out: continue with start=3, or narrow path or glob, or set depth)",
		},
		"walk stopped": {
			sum:     listSummary{root: ".", shown: 1, stopped: stop},
			listing: "a",
			want:    "a\n(" + stop.Note() + ")",
		},
		"walk stopped after the cap": {
			sum:     listSummary{root: ".", shown: 1, more: 2, stopped: stop},
			listing: "a",
			want:    "a\n(entry 1 shown; 2 more left out: continue with start=2, or narrow path or glob, or set depth)\n(" + stop.Note() + ")",
		},
		"walk stopped before start": {
			sum:  listSummary{root: ".", start: 40, passed: 5, stopped: stop},
			want: "(5 entries passed over before start=40, and none after them)\n(" + stop.Note() + ")",
		},
		"walk stopped before a match": {
			sum:  listSummary{root: "src", glob: "*.go", stopped: stop},
			want: "(nothing in src matches glob \"*.go\")\n(" + stop.Note() + ")",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tc.want, tc.sum.render(tc.listing)); diff != "" {
				t.Errorf("render (-want +got):\n%s", diff)
			}
		})
	}
}

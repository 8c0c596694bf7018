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
			want:    "a\nb\n(2 entries shown; 3 more left out: narrow path or glob, or set depth or limit)",
		},
		"one entry shown": {
			sum:     listSummary{root: ".", shown: 1, more: 1},
			listing: "a",
			want:    "a\n(1 entry shown; 1 more left out: narrow path or glob, or set depth or limit)",
		},
		"left out past the count": {
			sum:     listSummary{root: ".", shown: 1, more: maxCounted},
			listing: "a",
			want:    "a\n(1 entry shown; at least 100000 more left out: narrow path or glob, or set depth or limit)",
		},
		"walk stopped": {
			sum:     listSummary{root: ".", shown: 1, stopped: stop},
			listing: "a",
			want:    "a\n(" + stop.Note() + ")",
		},
		"walk stopped after the cap": {
			sum:     listSummary{root: ".", shown: 1, more: 2, stopped: stop},
			listing: "a",
			want:    "a\n(1 entry shown; 2 more left out: narrow path or glob, or set depth or limit)\n(" + stop.Note() + ")",
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

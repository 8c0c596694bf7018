package git

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestLogSummary(t *testing.T) {
	t.Parallel()
	commits := func(n int) []string {
		var ls []string
		for i := range n {
			ls = append(ls, fmt.Sprintf("c%d 2024-01-01 Ada: commit %d", i, i))
		}
		return ls
	}
	// Long enough that fewer than 500 fit in 100 KiB.
	long := func(n int) []string {
		ls := make([]string, n)
		for i := range ls {
			ls[i] = fmt.Sprintf("%04d ", i) + strings.Repeat("x", 995)
		}
		return ls
	}
	tests := map[string]struct {
		sum   logSummary
		lines []string
		want  string
	}{
		"all commits": {
			sum:   logSummary{ref: "HEAD", limit: 20},
			lines: commits(2),
			want:  "c0 2024-01-01 Ada: commit 0\nc1 2024-01-01 Ada: commit 1",
		},
		"exactly count": {
			sum:   logSummary{ref: "HEAD", limit: 2},
			lines: commits(2),
			want:  "c0 2024-01-01 Ada: commit 0\nc1 2024-01-01 Ada: commit 1",
		},
		"more than count": {
			sum:   logSummary{ref: "HEAD", limit: 2, start: 4},
			lines: commits(3),
			want:  "c0 2024-01-01 Ada: commit 0\nc1 2024-01-01 Ada: commit 1\n(more commits; continue with start=6)",
		},
		"none": {
			sum:  logSummary{ref: "main..feature", limit: 20},
			want: "no commits in main..feature",
		},
		"none match the filters": {
			sum:  logSummary{ref: "HEAD", path: "src/a.go", since: "2 weeks ago", start: 3, limit: 20},
			want: "no commits in HEAD match path src/a.go, since 2 weeks ago, start 3",
		},
		"none match a date": {
			sum:  logSummary{ref: "v1", since: "yesterday", limit: 20},
			want: "no commits in v1 match since yesterday",
		},
		"cut at the output limit": {
			sum:   logSummary{ref: "HEAD", limit: 500, start: 10},
			lines: long(200),
			want:  strings.Join(long(102), "\n") + "\n(cut at 100 KiB after 102 commits; continue with start=112)",
		},
		"cut at the output limit with more commits": {
			sum:   logSummary{ref: "HEAD", limit: 150},
			lines: long(151),
			want:  strings.Join(long(102), "\n") + "\n(cut at 100 KiB after 102 commits; continue with start=102)",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tc.want, tc.sum.render(tc.lines)); diff != "" {
				t.Errorf("render (-want +got):\n%s", diff)
			}
		})
	}
}

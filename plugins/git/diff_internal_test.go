package git

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDiffSummary(t *testing.T) {
	t.Parallel()
	files := func(n int) []numstat {
		var fs []numstat
		for i := range n {
			fs = append(fs, numstat{path: fmt.Sprintf("f%02d.txt", i), counts: "+1 -1"})
		}
		return fs
	}
	many := "(diff cut at 100 KiB: 55 of 56 files are not shown. Narrow it with paths, context_lines: 0, or stat: true. Not shown:"
	for i := 1; i <= maxCutFiles; i++ {
		many += fmt.Sprintf("\n  f%02d.txt (+1 -1)", i)
	}
	many += "\n  ... and 5 more)"
	tests := map[string]struct {
		sum  diffSummary
		body string
		want string
	}{
		"a diff": {
			sum:  diffSummary{what: "HEAD and HEAD~1"},
			body: "diff --git a/a b/a\n+x\n",
			want: "diff --git a/a b/a\n+x",
		},
		"no differences": {
			sum:  diffSummary{what: "the index and HEAD (staged changes)", empty: true},
			want: "no differences between the index and HEAD (staged changes)",
		},
		"no differences in a summary": {
			sum:  diffSummary{what: "HEAD and main", empty: true, stat: true},
			want: "no differences between HEAD and main",
		},
		"a summary": {
			sum:  diffSummary{stat: true},
			body: " a | 2 +-\n 1 file changed\n",
			want: " a | 2 +-\n 1 file changed",
		},
		"a summary cut": {
			sum:  diffSummary{stat: true, cut: true},
			body: " a | 2 +-\n",
			want: " a | 2 +-\n(summary cut at 100 KiB; narrow it with paths)",
		},
		"cut at a file boundary": {
			sum: diffSummary{cut: true, shown: 1, files: []numstat{
				{path: "a.txt", counts: "+1 -1"}, {path: "b.bin", counts: "binary"}, {path: "old -> new", counts: "+0 -0"}}},
			body: "diff --git a/a.txt b/a.txt\n+x\n",
			want: "diff --git a/a.txt b/a.txt\n+x\n(diff cut at 100 KiB: 2 of 3 files are not shown. Narrow it with paths, context_lines: 0, or stat: true. Not shown:\n  b.bin (binary)\n  old -> new (+0 -0))",
		},
		"cut, every file shown": {
			sum:  diffSummary{cut: true, shown: 2, files: files(2)},
			body: "diff\n",
			want: "diff\n(diff cut at 100 KiB: 0 of 2 files are not shown. Narrow it with paths, context_lines: 0, or stat: true.)",
		},
		"cut, more files shown than numstat lists": {
			sum:  diffSummary{cut: true, shown: 3, files: files(2)},
			body: "diff\n",
			want: "diff\n(diff cut at 100 KiB: 0 of 2 files are not shown. Narrow it with paths, context_lines: 0, or stat: true. Not shown:\n  f00.txt (+1 -1)\n  f01.txt (+1 -1))",
		},
		"cut inside the first file": {
			sum:  diffSummary{cut: true, partial: true, files: files(3)},
			body: "diff --git a/f00.txt b/f00.txt\n+x\n",
			want: "diff --git a/f00.txt b/f00.txt\n+x\n(diff cut at 100 KiB: the first file's diff alone is larger and is shown only in part; 2 of 3 files are not shown. Narrow it with paths, context_lines: 0, or stat: true. Not shown:\n  f01.txt (+1 -1)\n  f02.txt (+1 -1))",
		},
		"cut inside the only file": {
			sum:  diffSummary{cut: true, partial: true, files: files(1)},
			body: "diff\n",
			want: "diff\n(diff cut at 100 KiB: the first file's diff alone is larger and is shown only in part; 0 of 1 files are not shown. Narrow it with paths, context_lines: 0, or stat: true.)",
		},
		"cut, numstat empty": {
			sum:  diffSummary{cut: true, partial: true},
			body: "diff\n",
			want: "diff\n(diff cut at 100 KiB: the first file's diff alone is larger and is shown only in part; 0 of 0 files are not shown. Narrow it with paths, context_lines: 0, or stat: true.)",
		},
		"cut, more files left out than listed": {
			sum:  diffSummary{cut: true, shown: 1, files: files(56)},
			body: "diff\n",
			want: "diff\n" + many,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tc.want, tc.sum.render(tc.body)); diff != "" {
				t.Errorf("render (-want +got):\n%s", diff)
			}
		})
	}
}

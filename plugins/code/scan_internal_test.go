package code

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestScanTallyTake(t *testing.T) {
	t.Parallel()
	type file struct {
		status       readStatus
		total, avail int
	}
	tests := map[string]struct {
		limit int
		files []file
		// capAfter caps the tally after this many files, as a collector does.
		capAfter int
		want     scanTally
		wantK    []int
	}{
		"all shown": {
			limit: 10,
			files: []file{{readOK, 2, 2}, {readOK, 0, 0}, {readOK, 3, 3}},
			want:  scanTally{read: 3, shown: 5},
			wantK: []int{2, 0, 3},
		},
		"skipped files counted, not read": {
			limit: 10,
			files: []file{{readBinary, 0, 0}, {readLarge, 0, 0}, {readFailed, 0, 0}, {readOK, 1, 1}},
			want:  scanTally{read: 1, shown: 1, skips: skipCounts{binary: 1, large: 1, failed: 1}},
			wantK: []int{0, 0, 0, 1},
		},
		"limit inside a file": {
			limit:    3,
			files:    []file{{readOK, 2, 2}, {readOK, 4, 4}},
			capAfter: 2,
			want:     scanTally{read: 2, shown: 3, left: 3, leftFiles: 1, capped: true},
			wantK:    []int{2, 1},
		},
		"hits past those at hand": {
			limit: 10,
			files: []file{{readOK, 12, 10}},
			want:  scanTally{read: 1, shown: 10, left: 2, leftFiles: 1},
			wantK: []int{10},
		},
		"after the cap only counted": {
			limit:    2,
			files:    []file{{readOK, 2, 2}, {readOK, 5, 5}, {readOK, 0, 0}, {readOK, 1, 1}},
			capAfter: 1,
			want:     scanTally{read: 4, shown: 2, left: 6, leftFiles: 2, capped: true},
			wantK:    []int{2, 0, 0, 0},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var got scanTally
			var gotK []int
			for i, f := range tc.files {
				gotK = append(gotK, got.take(f.status, f.total, f.avail, tc.limit))
				if i+1 == tc.capAfter {
					got.capped = true
				}
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(scanTally{}, skipCounts{})); diff != "" {
				t.Errorf("tally (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantK, gotK); diff != "" {
				t.Errorf("shown per file (-want +got):\n%s", diff)
			}
		})
	}
}

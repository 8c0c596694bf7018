package search

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var probeQueries = []string{"read a file", "create issue", "pull request", "slack message", "sql query", "browser page", "git branch", "memory note", "directory"}

// results runs every probe query, for comparing two indexes.
func results(t *testing.T, ix *Index) map[string][]Hit {
	t.Helper()
	out := map[string][]Hit{}
	for _, q := range probeQueries {
		hits, err := ix.Search(q, 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		out[q] = hits
	}
	return out
}

func TestIncrementalEqualsScratch(t *testing.T) {
	t.Parallel()
	bySource := map[string][]Doc{}
	for _, d := range realTools {
		bySource[d.Server] = append(bySource[d.Server], d)
	}
	tests := map[string]struct {
		build func(ix *Index)
		want  []Doc
	}{
		"remove a source": {
			build: func(ix *Index) { ix.Remove("github") },
			want:  except(realTools, func(d Doc) bool { return d.Server == "github" }),
		},
		"remove an unknown source": {
			build: func(ix *Index) { ix.Remove("nope") },
			want:  realTools,
		},
		"replace a source with fewer docs": {
			build: func(ix *Index) { ix.Set("slack", bySource["slack"][:2]) },
			want: except(realTools, func(d Doc) bool {
				return d.Server == "slack" && d.Name != bySource["slack"][0].Name && d.Name != bySource["slack"][1].Name
			}),
		},
		"set a source empty": {
			build: func(ix *Index) { ix.Set("git", nil) },
			want:  except(realTools, func(d Doc) bool { return d.Server == "git" }),
		},
		"remove and add back": {
			build: func(ix *Index) {
				ix.Remove("files")
				ix.Remove("browser")
				ix.Set("browser", bySource["browser"])
				ix.Set("files", bySource["files"])
			},
			want: realTools,
		},
		"a name taken over by another source": {
			build: func(ix *Index) {
				d := bySource["files"][0] // view_file
				d.Description = "Show a file from the other plugin."
				ix.Set("files2", []Doc{d})
			},
			want: append(except(realTools, func(d Doc) bool { return d.Name == "view_file" }),
				Doc{Name: "view_file", Server: "files", Description: "Show a file from the other plugin.", Params: bySource["files"][0].Params}),
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ix := indexOf(realTools)
			tc.build(ix)
			scratch := indexOf(tc.want)
			if ix.Len() != len(tc.want) {
				t.Errorf("Len() = %d, want %d", ix.Len(), len(tc.want))
			}
			if diff := cmp.Diff(results(t, scratch), results(t, ix), floatClose); diff != "" {
				t.Errorf("incremental index differs from one built from scratch (-scratch +incremental):\n%s", diff)
			}
		})
	}
}

// floatClose compares scores, whose sums differ in the last bits when the
// average lengths were reached by other additions and subtractions.
var floatClose = cmp.Comparer(func(a, b float64) bool {
	d := a - b
	return d < 1e-9 && d > -1e-9
})

func except(docs []Doc, drop func(Doc) bool) []Doc {
	var out []Doc
	for _, d := range docs {
		if !drop(d) {
			out = append(out, d)
		}
	}
	return out
}

func TestSetDuplicateNamesKeepsLast(t *testing.T) {
	t.Parallel()
	ix := New()
	ix.Set("s", []Doc{{Name: "a", Server: "s", Description: "first words"}, {Name: "a", Server: "s", Description: "second words"}})
	if ix.Len() != 1 {
		t.Fatalf("Len() = %d, want 1", ix.Len())
	}
	if hits, _ := ix.Search("first", 0, nil); len(hits) != 0 {
		t.Errorf("Search(first) = %v, want nothing", names(hits))
	}
	if hits, _ := ix.Search("second", 0, nil); len(hits) != 1 {
		t.Errorf("Search(second) = %v, want a", names(hits))
	}
}

func TestSearchTiesLimitKeep(t *testing.T) {
	t.Parallel()
	var docs []Doc
	for _, s := range []string{"zeta", "alpha", "mid"} {
		for _, n := range []string{"c", "a", "b"} {
			docs = append(docs, Doc{Name: s + "__" + n, Server: s, Description: "Same words everywhere."})
		}
	}
	ix := indexOf(docs)
	tests := map[string]struct {
		limit int
		keep  func(*Doc) bool
		want  []string
	}{
		"ties by server then name": {0, nil, []string{"alpha__a", "alpha__b", "alpha__c", "mid__a", "mid__b", "mid__c", "zeta__a", "zeta__b", "zeta__c"}},
		"limit":                    {4, nil, []string{"alpha__a", "alpha__b", "alpha__c", "mid__a"}},
		"keep":                     {0, func(d *Doc) bool { return d.Server != "alpha" }, []string{"mid__a", "mid__b", "mid__c", "zeta__a", "zeta__b", "zeta__c"}},
		"keep and limit":           {2, func(d *Doc) bool { return d.Name != "alpha__a" }, []string{"alpha__b", "alpha__c"}},
		"keep none":                {5, func(*Doc) bool { return false }, nil},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			hits, err := ix.Search("same words", tc.limit, tc.keep)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, names(hits)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestSearchBestFirst(t *testing.T) {
	t.Parallel()
	ix := indexOf(realTools)
	hits, err := ix.Search("git", 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i < len(hits); i++ {
		if before(&hits[i], &hits[i-1]) {
			t.Errorf("hit %d (%s %v) ranks before hit %d (%s %v)", i, hits[i].Doc.Name, hits[i].Score, i-1, hits[i-1].Doc.Name, hits[i-1].Score)
		}
	}
}

func TestSearchEmptyQuery(t *testing.T) {
	t.Parallel()
	ix := indexOf(realTools)
	for _, q := range []string{"", "   ", "the of", "???", "How do I?"} {
		if _, err := ix.Search(q, 5, nil); !errors.Is(err, ErrEmptyQuery) {
			t.Errorf("Search(%q) error = %v, want ErrEmptyQuery", q, err)
		}
	}
	if hits, err := ix.Search("xylophone", 5, nil); err != nil || len(hits) != 0 {
		t.Errorf("Search(xylophone) = %v, %v; want no hits and no error", names(hits), err)
	}
}

func TestConcurrentSearchAndSet(t *testing.T) {
	t.Parallel()
	ix := indexOf(realTools)
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := range 50 {
				if _, err := ix.Search(probeQueries[(w+i)%len(probeQueries)], 5, func(d *Doc) bool { return d.Server != "x" }); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Go(func() {
		for i := range 50 {
			src := fmt.Sprintf("extra%d", i%3)
			ix.Set(src, []Doc{{Name: fmt.Sprintf("%s__read_%d", src, i), Server: src, Description: "Read a file, again."}})
			if i%5 == 0 {
				ix.Remove(src)
			}
		}
	})
	wg.Wait()
}

func TestSearchAfterKeepPanics(t *testing.T) {
	ix := indexOf(realTools)
	want, err := ix.Search("read a file", 5, nil)
	if err != nil {
		t.Fatal(err)
	}
	func() {
		defer func() { _ = recover() }()
		_, _ = ix.Search("read a file", 5, func(*Doc) bool { panic("keep") })
	}()
	got, err := ix.Search("read a file", 5, nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("search after a panicking keep differs (-before +after):\n%s", diff)
	}
}

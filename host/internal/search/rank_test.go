package search

import (
	"slices"
	"testing"
)

func TestRanking(t *testing.T) {
	t.Parallel()
	ix := indexOf(realTools)
	var naiveFound int
	for _, q := range rankingQueries {
		t.Run(q.query, func(t *testing.T) {
			hits, err := ix.Search(q.query, 3, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.ContainsFunc(hits, func(h Hit) bool { return h.Doc.Name == q.want }) {
				t.Errorf("Search(%q) = %v, want %s in the top 3", q.query, names(hits), q.want)
			}
		})
		if slices.ContainsFunc(Naive(realTools, q.query, 3), func(h Hit) bool { return h.Doc.Name == q.want }) {
			naiveFound++
		}
	}
	t.Logf("naive BM25 finds %d of %d in its top 3", naiveFound, len(rankingQueries))
}

// indexOf indexes docs, each server as a source.
func indexOf(docs []Doc) *Index {
	bySource := map[string][]Doc{}
	for _, d := range docs {
		bySource[d.Server] = append(bySource[d.Server], d)
	}
	ix := New()
	for s, ds := range bySource {
		ix.Set(s, ds)
	}
	return ix
}

func names(hits []Hit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, h.Doc.Name)
	}
	return out
}

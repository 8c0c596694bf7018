package search

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// The evaluation set (testdata/README.md): tools/list answers of real MCP
// servers and realistic written ones, and queries with their right tools.

type evalTool struct {
	Name        string          `json:"name"`
	Title       string          `json:"title"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
}

type evalServer struct {
	Server string     `json:"server"`
	Tools  []evalTool `json:"tools"`
}

type evalQuery struct {
	Query      string   `json:"query"`
	Want       []string `json:"want"`
	Paraphrase bool     `json:"paraphrase"`
}

// evalSet loads the tools as documents named <server>__<tool>, in file
// order, and the queries.
func evalSet(t testing.TB) ([]Doc, []evalQuery) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "tools", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no tools in testdata: %v", err)
	}
	slices.Sort(files)
	var docs []Doc
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var s evalServer
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, tl := range s.Tools {
			docs = append(docs, Doc{
				Name: s.Server + "__" + tl.Name, Server: s.Server, Title: tl.Title, Description: tl.Description,
				Params: ParamsFromSchema(tl.InputSchema),
			})
		}
	}
	b, err := os.ReadFile(filepath.Join("testdata", "queries.json"))
	if err != nil {
		t.Fatal(err)
	}
	var queries []evalQuery
	if err := json.Unmarshal(b, &queries); err != nil {
		t.Fatal(err)
	}
	return docs, queries
}

// scores are an engine's figures over a query set.
type scores struct {
	n                int
	recall1, recall5 float64 // share of queries with a right tool first, in the first 5
	mrr10            float64 // mean of 1/rank of the first right tool in the first 10
	missed5          []string
}

func score(queries []evalQuery, rank func(q string) []string) scores {
	var s scores
	for _, q := range queries {
		s.n++
		got := rank(q.Query)
		for i, name := range got[:min(10, len(got))] {
			if slices.Contains(q.Want, name) {
				s.mrr10 += 1 / float64(i+1)
				if i == 0 {
					s.recall1++
				}
				if i < 5 {
					s.recall5++
				}
				break
			}
		}
		if !slices.ContainsFunc(got[:min(5, len(got))], func(n string) bool { return slices.Contains(q.Want, n) }) {
			s.missed5 = append(s.missed5, q.Query)
		}
	}
	n := float64(s.n)
	s.recall1, s.recall5, s.mrr10 = s.recall1/n, s.recall5/n, s.mrr10/n
	return s
}

func hitNames(hits []Hit) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.Doc.Name
	}
	return out
}

// minRecall5 is (a little under) the recall@5 the ranking reached on the
// evaluation set when this test was written, 0.564 (naive BM25: 0.554):
// a change that ranks worse fails here. Raise it with the ranking. Field
// weights barely move it (0.55 to 0.57 over a grid): what it misses are
// queries in other words than the tools', which needs embeddings.
const minRecall5 = 0.55

// TestEvaluation scores the ranking and the naive baseline on the
// evaluation set, all queries and the paraphrased ones apart, and fails
// when recall@5 drops below minRecall5.
func TestEvaluation(t *testing.T) {
	t.Parallel()
	docs, queries := evalSet(t)
	ix := New()
	ix.Set("eval", docs)
	bm25 := func(q string) []string {
		hits, err := ix.Search(q, 10, nil)
		if err != nil {
			t.Fatalf("%q: %v", q, err)
		}
		return hitNames(hits)
	}
	naive := func(q string) []string {
		if raceOn {
			return nil // too slow under the race detector; reported without it
		}
		return hitNames(Naive(docs, q, 10))
	}
	var para []evalQuery
	for _, q := range queries {
		if q.Paraphrase {
			para = append(para, q)
		}
	}
	for _, row := range []struct {
		name    string
		queries []evalQuery
	}{{"all", queries}, {"paraphrased", para}} {
		b, n := score(row.queries, bm25), score(row.queries, naive)
		t.Logf("%d tools, %s queries (%d): recall@1 %.3f / naive %.3f, recall@5 %.3f / naive %.3f, MRR@10 %.3f / naive %.3f",
			len(docs), row.name, b.n, b.recall1, n.recall1, b.recall5, n.recall5, b.mrr10, n.mrr10)
		if row.name == "all" {
			if testing.Verbose() {
				for _, q := range b.missed5 {
					t.Logf("missed at 5: %s", q)
				}
			}
			if b.recall5 < minRecall5 {
				t.Errorf("recall@5 is %.3f, below the %.3f reached before", b.recall5, minRecall5)
			}
		}
	}
}

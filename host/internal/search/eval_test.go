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

// evalTools loads the tools as documents named <server>__<tool>, in file
// order.
func evalTools(t testing.TB) []Doc {
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
	return docs
}

// evalQueries loads a query file of testdata.
func evalQueries(t testing.TB, file string) []evalQuery {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	var queries []evalQuery
	if err := json.Unmarshal(b, &queries); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return queries
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

// minRecall5 is (a little under) the recall@5 the ranking reached on each
// query set when this test was written: a change that ranks worse fails
// here. Raise it with the ranking.
//
// queries.json is the set the synonym table was tuned on: 0.564 before
// the table grew from 51 to 155 groups, 0.681 after (naive BM25: 0.554).
// queries_heldout.json was written afterwards by someone who saw neither
// the table nor the other set, and was scored once the table was final:
// 0.650 with the 51 groups, 0.683 with 155 (naive: 0.608). What both miss
// are queries in other words than the tools' ("do I need an umbrella"),
// which needs embeddings (--embed-model).
var minRecall5 = map[string]float64{"queries.json": 0.67, "queries_heldout.json": 0.67}

// TestEvaluation scores the ranking and the naive baseline on each query
// set, all queries and the paraphrased ones apart, and fails when
// recall@5 drops below minRecall5.
func TestEvaluation(t *testing.T) {
	t.Parallel()
	docs := evalTools(t)
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
	for _, file := range []string{"queries.json", "queries_heldout.json"} {
		queries := evalQueries(t, file)
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
			t.Logf("%d tools, %s, %s queries (%d): recall@1 %.3f / naive %.3f, recall@5 %.3f / naive %.3f, MRR@10 %.3f / naive %.3f",
				len(docs), file, row.name, b.n, b.recall1, n.recall1, b.recall5, n.recall5, b.mrr10, n.mrr10)
			if row.name != "all" {
				continue
			}
			if testing.Verbose() {
				for _, q := range b.missed5 {
					t.Logf("missed at 5: %s", q)
				}
			}
			if b.recall5 < minRecall5[file] {
				t.Errorf("%s: recall@5 is %.3f, below the %.3f reached before", file, b.recall5, minRecall5[file])
			}
		}
	}
}

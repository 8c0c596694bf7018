package search

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ramabana/ramabana-mcp/host/internal/embedding"
)

// TestHybridEvaluation scores hybrid ranking (BM25F fused with a real
// embedding model's cosine similarity, as search_capabilities does with
// --embed-model) on the evaluation sets. It needs an OpenAI-compatible
// embeddings endpoint, so it runs only when RAMABANA_EVAL_EMBED_URL and
// RAMABANA_EVAL_EMBED_MODEL name one (testdata/README.md says how to run a
// local model); vectors are cached under RAMABANA_EVAL_EMBED_CACHE (a
// directory) when set, so a second run sends nothing.
func TestHybridEvaluation(t *testing.T) {
	url, model := os.Getenv("RAMABANA_EVAL_EMBED_URL"), os.Getenv("RAMABANA_EVAL_EMBED_MODEL")
	if url == "" || model == "" {
		t.Skip("RAMABANA_EVAL_EMBED_URL and RAMABANA_EVAL_EMBED_MODEL are not set")
	}
	client, err := embedding.New(embedding.Config{URL: url, Model: model})
	if err != nil {
		t.Fatal(err)
	}
	cache := embedding.NewCache(filepath.Join(t.TempDir(), "vectors"))
	if dir := os.Getenv("RAMABANA_EVAL_EMBED_CACHE"); dir != "" {
		cache = embedding.NewCache(embedding.CachePath(dir, model))
		_ = cache.Load() // an absent or damaged cache starts empty
	}
	vectors := func(texts []string) [][]float32 {
		out := make([][]float32, len(texts))
		var todo []int
		for i, s := range texts {
			if v, ok := cache.Get(embedding.KeyOf(model, s)); ok {
				out[i] = v
			} else {
				todo = append(todo, i)
			}
		}
		if len(todo) > 0 {
			batch := make([]string, len(todo))
			for j, i := range todo {
				batch[j] = texts[i]
			}
			vs, err := client.Embed(t.Context(), batch)
			if err != nil {
				t.Fatal(err)
			}
			for j, i := range todo {
				out[i] = vs[j]
				cache.Put(embedding.KeyOf(model, texts[i]), vs[j])
			}
			if err := cache.Save(func(embedding.Key) bool { return true }); err != nil {
				t.Log(err)
			}
		}
		return out
	}

	docs := evalTools(t)
	texts := make([]string, len(docs))
	for i, d := range docs {
		texts[i] = d.Text()
	}
	ix, dense := New(), NewDense()
	ix.Set("eval", docs)
	es := make([]Embedded, len(docs))
	for i, v := range vectors(texts) {
		es[i] = Embedded{Doc: docs[i], Vector: v}
	}
	dense.Set("eval", es)

	const depth = 100 // as host.Search fuses
	for _, file := range []string{"queries.json", "queries_heldout.json"} {
		queries := evalQueries(t, file)
		qs := make([]string, len(queries))
		for i, q := range queries {
			qs[i] = q.Query
		}
		qv := map[string][]float32{}
		for i, v := range vectors(qs) {
			qv[qs[i]] = v
		}
		lexical := func(q string) []Hit {
			hits, err := ix.Search(q, depth, nil)
			if err != nil {
				t.Fatalf("%q: %v", q, err)
			}
			return hits
		}
		engines := []struct {
			name string
			rank func(string) []string
		}{
			{"bm25", func(q string) []string { return hitNames(lexical(q)) }},
			{"dense", func(q string) []string { return hitNames(dense.Search(qv[q], depth, nil)) }},
			{"hybrid", func(q string) []string {
				return hitNames(Fuse(lexical(q), dense.Search(qv[q], depth, nil), dense.Similarity(qv[q]), 10))
			}},
		}
		var para []evalQuery
		for _, q := range queries {
			if q.Paraphrase {
				para = append(para, q)
			}
		}
		for _, e := range engines {
			a, p := score(queries, e.rank), score(para, e.rank)
			t.Logf("%s, %s (%s): recall@1 %.3f, recall@5 %.3f, MRR@10 %.3f; paraphrased (%d): recall@5 %.3f",
				file, e.name, model, a.recall1, a.recall5, a.mrr10, p.n, p.recall5)
		}
	}
}

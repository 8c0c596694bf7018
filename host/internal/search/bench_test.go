package search

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

// synthetic returns n tools spread over n/50 servers, named and described
// from vocabularies of verbs, objects and filler words, with two to six
// parameters each: the size of a catalog of many upstream servers.
func synthetic(n int) map[string][]Doc {
	r := rand.New(rand.NewPCG(1, 2))
	verbs := []string{"get", "list", "create", "delete", "update", "search", "read", "write", "fetch", "run", "send", "upload", "download", "query", "describe", "start", "stop", "sync", "export", "import"}
	objects := []string{"file", "issue", "pullRequest", "message", "channel", "user", "table", "row", "page", "screenshot", "branch", "commit", "event", "calendar", "invoice", "customer", "deployment", "pod", "bucket", "object", "secret", "dashboard", "metric", "alert", "ticket", "document", "folder", "image", "video", "playlist", "note", "task", "project", "workspace", "repository", "email", "contact", "order", "product", "payment"}
	filler := strings.Fields("the a of to with and for in on by from returns given specified optional required list results each id name value values json string number time date when which that this all new existing current account team organization resource resources api endpoint request response status error errors details information data content contents field fields limit offset page cursor sorted order filter filters matching query recent latest first last more")
	// Domain words, made of syllables: product names, jargon.
	syllables := strings.Fields("ka lo mi ne ru sa te vi zo bar cor den fal gun hex jet kin lum mor nix pol qua rex sol tor")
	var domain []string
	for range 3000 {
		var w strings.Builder
		for range 2 + r.IntN(3) {
			w.WriteString(syllables[r.IntN(len(syllables))])
		}
		domain = append(domain, w.String())
	}
	word := func() string {
		if r.IntN(4) == 0 {
			return domain[r.IntN(len(domain))]
		}
		return filler[r.IntN(len(filler))]
	}
	sentence := func(k int) string {
		ws := make([]string, k)
		for i := range ws {
			ws[i] = word()
		}
		return strings.Join(ws, " ")
	}
	out := map[string][]Doc{}
	for i := range n {
		server := fmt.Sprintf("srv%d%s", i/50, domain[(i/50)%len(domain)])
		v, o := verbs[r.IntN(len(verbs))], objects[r.IntN(len(objects))]
		d := Doc{
			Name:        fmt.Sprintf("%s__%s_%s_%d", server, v, o, i),
			Server:      server,
			Description: fmt.Sprintf("%s %s %s. %s.", strings.ToUpper(v[:1])+v[1:], o, sentence(5+r.IntN(20)), sentence(r.IntN(40))),
		}
		for j := range 2 + r.IntN(5) {
			d.Params = append(d.Params, Param{Name: fmt.Sprintf("%s_%d", objects[r.IntN(len(objects))], j), Description: sentence(3 + r.IntN(10))})
		}
		out[server] = append(out[server], d)
	}
	return out
}

var benchQueries = []string{
	"create a new issue", "list files in a folder", "send message to channel", "delete the user account",
	"search customers by email", "download an image", "take a screenshot of the page", "run a sql query on table",
	"update invoice status", "show recent commits on a branch", "kalomi deploy", "export dashboard metrics json",
}

// reportPercentiles reports the p50 and p99 of ds, in milliseconds.
func reportPercentiles(b *testing.B, ds []time.Duration) {
	slices.Sort(ds)
	at := func(p float64) float64 {
		return float64(ds[int(p*float64(len(ds)-1))]) / float64(time.Millisecond)
	}
	b.ReportMetric(at(0.50), "p50-ms")
	b.ReportMetric(at(0.99), "p99-ms")
}

func BenchmarkSearch10k(b *testing.B) {
	ix := New()
	for s, ds := range synthetic(10000) {
		ix.Set(s, ds)
	}
	ds := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		start := time.Now()
		if _, err := ix.Search(benchQueries[i%len(benchQueries)], 10, nil); err != nil {
			b.Fatal(err)
		}
		ds = append(ds, time.Since(start))
	}
	reportPercentiles(b, ds)
}

func BenchmarkIndex10k(b *testing.B) {
	docs := synthetic(10000)
	ds := make([]time.Duration, 0, b.N)
	for b.Loop() {
		start := time.Now()
		ix := New()
		for s, d := range docs {
			ix.Set(s, d)
		}
		ds = append(ds, time.Since(start))
	}
	reportPercentiles(b, ds)
}

// BenchmarkSet50 is one server of 50 tools relisting in a 10,000-tool
// index: the incremental update's cost.
func BenchmarkSet50(b *testing.B) {
	docs := synthetic(10000)
	ix := New()
	for s, d := range docs {
		ix.Set(s, d)
	}
	var servers []string
	for s := range docs {
		servers = append(servers, s)
	}
	slices.Sort(servers)
	ds := make([]time.Duration, 0, b.N)
	for i := 0; b.Loop(); i++ {
		s := servers[i%len(servers)]
		start := time.Now()
		ix.Set(s, docs[s])
		ds = append(ds, time.Since(start))
	}
	reportPercentiles(b, ds)
}

// randomVectors gives every document of docs a random vector of
// dim dimensions, and returns queries random vectors too: the cost of a
// dense search does not depend on what the vectors mean.
func randomVectors(docs map[string][]Doc, dim, queries int) (map[string][]Embedded, [][]float32) {
	r := rand.New(rand.NewPCG(3, 4))
	vec := func() []float32 {
		v := make([]float32, dim)
		for i := range v {
			v[i] = float32(r.NormFloat64())
		}
		return v
	}
	out := map[string][]Embedded{}
	servers := make([]string, 0, len(docs))
	for s := range docs {
		servers = append(servers, s)
	}
	slices.Sort(servers)
	for _, s := range servers {
		for _, d := range docs[s] {
			out[s] = append(out[s], Embedded{Doc: d, Vector: vec()})
		}
	}
	qs := make([][]float32, queries)
	for i := range qs {
		qs[i] = vec()
	}
	return out, qs
}

// BenchmarkHybrid10k is a hybrid search over 10,000 tools with vectors of
// 384 dimensions (all-MiniLM's, bge-small's), as the host runs it: BM25's
// top 100, the dense top 100, fused to 10. The query's embedding, a round
// trip to the embeddings server, is not in it.
func BenchmarkHybrid10k(b *testing.B) {
	docs := synthetic(10000)
	ix := New()
	for s, ds := range docs {
		ix.Set(s, ds)
	}
	embedded, qs := randomVectors(docs, 384, len(benchQueries))
	d := NewDense()
	for s, es := range embedded {
		d.Set(s, es)
	}
	ds := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		start := time.Now()
		lexical, err := ix.Search(benchQueries[i%len(benchQueries)], 100, nil)
		if err != nil {
			b.Fatal(err)
		}
		if hits := Fuse(lexical, d.Search(qs[i%len(qs)], 100, nil), d.Similarity(qs[i%len(qs)]), 10); len(hits) != 10 {
			b.Fatalf("%d hits", len(hits))
		}
		ds = append(ds, time.Since(start))
	}
	reportPercentiles(b, ds)
}

// BenchmarkDense10k is the dense half alone: 10,000 cosine similarities of
// 384 dimensions and a top 100.
func BenchmarkDense10k(b *testing.B) {
	embedded, qs := randomVectors(synthetic(10000), 384, 16)
	d := NewDense()
	for s, es := range embedded {
		d.Set(s, es)
	}
	ds := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		start := time.Now()
		d.Search(qs[i%len(qs)], 100, nil)
		ds = append(ds, time.Since(start))
	}
	reportPercentiles(b, ds)
}

package search

import (
	"container/heap"
	"math"
	"slices"
	"sync"
)

// Dense ranks documents by the cosine similarity of their vectors to a
// query's: the dense half of hybrid search, whose other half is the
// Index's BM25F, the two joined by Fuse. Like Index it holds the documents
// of many sources, each replaced whole with Set or dropped with Remove.
// The vectors come from elsewhere (package embedding); Dense only compares
// them. Safe for concurrent use (readers in parallel, writers exclusive).
type Dense struct {
	mu       sync.RWMutex
	entries  []denseEntry // by id; ids of removed entries are reused
	free     []int32
	live     int
	byName   map[string]int32
	bySource map[string][]int32
}

type denseEntry struct {
	doc    Doc
	source string
	vec    []float32
	inv    float32 // 1/|vec|
	live   bool
}

// Embedded is a document and its vector.
type Embedded struct {
	Doc    Doc
	Vector []float32
}

// NewDense returns an empty Dense.
func NewDense() *Dense {
	return &Dense{byName: map[string]int32{}, bySource: map[string][]int32{}}
}

// Set makes es the whole of source's documents (replacing what it had),
// keyed by Name as Index.Set keys them: a Name another source holds is
// replaced, and of two with one Name in es the last is kept. A vector that
// is empty, zero or not finite has no direction and is left out. Dense
// keeps its own copy of the Docs but not of the vectors, which it only
// reads: the caller must not modify them afterwards.
func (d *Dense) Set(source string, es []Embedded) {
	type prepared struct {
		doc Doc
		vec []float32
		inv float32
	}
	ps := make([]prepared, 0, len(es))
	at := make(map[string]int, len(es))
	for _, e := range es {
		n := norm(e.Vector)
		if n == 0 || math.IsNaN(n) || math.IsInf(n, 0) {
			continue
		}
		doc := e.Doc
		doc.Params = slices.Clone(doc.Params)
		p := prepared{doc: doc, vec: e.Vector, inv: float32(1 / n)}
		if i, ok := at[doc.Name]; ok {
			ps[i] = p
			continue
		}
		at[doc.Name] = len(ps)
		ps = append(ps, p)
	}

	d.mu.Lock()
	defer d.mu.Unlock()
	d.removeIDs(d.bySource[source])
	delete(d.bySource, source)
	ids := make([]int32, 0, len(ps))
	for _, p := range ps {
		if id, ok := d.byName[p.doc.Name]; ok {
			other := d.entries[id].source
			d.bySource[other] = without(d.bySource[other], id)
			if len(d.bySource[other]) == 0 {
				delete(d.bySource, other)
			}
			d.removeIDs([]int32{id})
		}
		var id int32
		if n := len(d.free); n > 0 {
			id = d.free[n-1]
			d.free = d.free[:n-1]
		} else {
			id = int32(len(d.entries))
			d.entries = append(d.entries, denseEntry{})
		}
		d.entries[id] = denseEntry{doc: p.doc, source: source, vec: p.vec, inv: p.inv, live: true}
		d.byName[p.doc.Name] = id
		d.live++
		ids = append(ids, id)
	}
	if len(ids) > 0 {
		d.bySource[source] = ids
	}
}

// Remove drops source's documents.
func (d *Dense) Remove(source string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.removeIDs(d.bySource[source])
	delete(d.bySource, source)
}

func (d *Dense) removeIDs(ids []int32) {
	for _, id := range ids {
		delete(d.byName, d.entries[id].doc.Name)
		d.entries[id] = denseEntry{}
		d.free = append(d.free, id)
		d.live--
	}
}

// Len is the number of documents with a vector.
func (d *Dense) Len() int {
	d.mu.RLock()
	defer d.mu.RUnlock()
	return d.live
}

// Search returns up to limit documents for which keep returns true (nil
// keeps all), most similar to q first, scored by cosine similarity; a
// limit of 0 or less returns every one. Ties keep the order (Server,
// Name). Documents whose vectors have another dimension than q are left
// out (they come from another model); a q without direction (empty, zero,
// not finite) finds nothing. keep is called under Dense's read lock with
// its own Doc, as Index.Search calls it, and must neither modify it nor
// call Set or Remove.
func (d *Dense) Search(q []float32, limit int, keep func(*Doc) bool) []Hit {
	n := norm(q)
	if n == 0 || math.IsNaN(n) || math.IsInf(n, 0) {
		return nil
	}
	qinv := 1 / n
	d.mu.RLock()
	defer d.mu.RUnlock()
	var top hitHeap
	for i := range d.entries {
		e := &d.entries[i]
		if !e.live || len(e.vec) != len(q) {
			continue
		}
		h := Hit{Score: float64(dot(q, e.vec)) * float64(e.inv) * qinv}
		h.Doc.Server, h.Doc.Name = e.doc.Server, e.doc.Name // enough for before
		if limit > 0 && len(top) == limit && !before(&h, &top[0]) {
			continue
		}
		if keep != nil && !keep(&e.doc) {
			continue
		}
		h.Doc = e.doc
		if limit > 0 && len(top) == limit {
			top[0] = h
			heap.Fix(&top, 0)
			continue
		}
		heap.Push(&top, h)
	}
	hits := []Hit(top)
	slices.SortFunc(hits, compareHits)
	return hits
}

// Similarity returns a function giving the cosine similarity of q to the
// document called name, false when it has no vector of q's dimension: what
// Fuse needs for the lexical hits the dense ranking did not reach.
func (d *Dense) Similarity(q []float32) func(name string) (float64, bool) {
	n := norm(q)
	return func(name string) (float64, bool) {
		if n == 0 || math.IsNaN(n) || math.IsInf(n, 0) {
			return 0, false
		}
		d.mu.RLock()
		defer d.mu.RUnlock()
		id, ok := d.byName[name]
		if !ok {
			return 0, false
		}
		e := &d.entries[id]
		if len(e.vec) != len(q) {
			return 0, false
		}
		return float64(dot(q, e.vec)) * float64(e.inv) / n, true
	}
}

func norm(v []float32) float64 {
	return math.Sqrt(float64(dot(v, v)))
}

// dot is the dot product of a and b[:len(a)], in four lanes: the loop most
// of a dense search's time goes to.
func dot(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	for len(a) >= 4 && len(b) >= 4 {
		s0 += a[0] * b[0]
		s1 += a[1] * b[1]
		s2 += a[2] * b[2]
		s3 += a[3] * b[3]
		a, b = a[4:], b[4:]
	}
	for i := range a {
		s0 += a[i] * b[i]
	}
	return s0 + s1 + s2 + s3
}

// LexicalWeight is the share of a fused score that comes from BM25F; the
// rest comes from cosine similarity. Measured on the evaluation sets
// (testdata/README.md, TestHybridEvaluation) with a real model, 0.4 ranked
// best on both; reciprocal rank fusion (k = 60) ranked below BM25 alone on
// one of them, since ranks cannot tell a clear winner from a close one.
const LexicalWeight = 0.4

// Fuse joins a lexical ranking (Index.Search) and a dense one
// (Dense.Search), each best first, and returns up to limit hits (every one
// for a limit of 0 or less), best first, each with its fused score; ties
// keep the order (Server, Name).
//
// A document's fused score is LexicalWeight times its BM25F score over the
// best lexical score, plus the rest times its cosine similarity (below
// zero counts as zero) over the best dense one: each ranking keeps its
// margins, a clear winner stays clear, and BM25's unbounded scores need no
// calibration against cosines. similarity gives the cosine of a lexical
// hit the dense ranking did not reach (Dense.Similarity); false means the
// document has no vector, such as a tool added since the last embedding,
// and then BM25 ranks it alone: its lexical share stands for both, so it
// is neither helped nor hurt by having none. A nil similarity knows only
// the dense ranking's documents; others add no dense share.
func Fuse(lexical, dense []Hit, similarity func(name string) (float64, bool), limit int) []Hit {
	cosine := make(map[string]float64, len(dense))
	best := 0.0
	for _, h := range dense {
		cosine[h.Doc.Name] = h.Score
		best = max(best, h.Score)
	}
	type fused struct {
		hit   Hit
		score float64
	}
	byName := make(map[string]*fused, len(lexical)+len(dense))
	var order []*fused
	add := func(h Hit, s float64) {
		if _, ok := byName[h.Doc.Name]; !ok {
			byName[h.Doc.Name] = &fused{hit: h, score: s}
			order = append(order, byName[h.Doc.Name])
		}
	}
	denseShare := func(c float64) float64 {
		if best <= 0 {
			return 0
		}
		return (1 - LexicalWeight) * max(0, c) / best
	}
	for _, h := range lexical {
		l := 0.0
		if top := lexical[0].Score; top > 0 {
			l = h.Score / top
		}
		c, ok := cosine[h.Doc.Name]
		if !ok && similarity != nil {
			if c, ok = similarity(h.Doc.Name); !ok {
				add(h, l) // no vector: BM25 alone
				continue
			}
		}
		add(h, LexicalWeight*l+denseShare(c))
	}
	for _, h := range dense {
		add(h, denseShare(h.Score))
	}
	hits := make([]Hit, len(order))
	for i, f := range order {
		hits[i] = Hit{Doc: f.hit.Doc, Score: f.score}
	}
	slices.SortFunc(hits, compareHits)
	if limit > 0 && len(hits) > limit {
		hits = hits[:limit]
	}
	return hits
}

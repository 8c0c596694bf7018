package search

import (
	"container/heap"
	"math"
	"slices"
	"sync"
)

// scratch is one search's score accumulator, reused across searches.
type scratch struct {
	score   []float64
	touched []int32
}

var scratchPool = sync.Pool{New: func() any { return new(scratch) }}

// Search returns up to limit documents for which keep returns true (nil
// keeps all), best first; a limit of 0 or less returns every match. Ties
// keep the order (Server, Name). Only documents matching a query word, or
// one of its synonyms, are returned. keep is called under the index's read
// lock, with the index's own Doc: it must not modify it, nor call Set or
// Remove. The Hits' Params are shared with the index and must not be
// modified either.
func (ix *Index) Search(query string, limit int, keep func(*Doc) bool) ([]Hit, error) {
	qts := analyzeQuery(query)
	if len(qts) == 0 {
		return nil, ErrEmptyQuery
	}
	sc := scratchPool.Get().(*scratch)
	defer func() {
		// Scores go back to zero even when keep panics, so that the
		// next search starts from nothing.
		for _, id := range sc.touched {
			sc.score[id] = 0
		}
		sc.touched = sc.touched[:0]
		scratchPool.Put(sc)
	}()

	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if cap(sc.score) < len(ix.docs) {
		sc.score = make([]float64, len(ix.docs))
	}
	score := sc.score[:len(ix.docs)]
	n := float64(ix.live)
	for _, qt := range qts {
		ps := ix.postings[qt.term]
		if len(ps) == 0 {
			continue
		}
		df := float64(len(ps))
		w := qt.weight * math.Log(1+(n-df+0.5)/(df+0.5))
		for i := range ps {
			p := &ps[i]
			nm := &ix.norm[p.id]
			var tf float32
			for f := range numFields {
				tf += float32(p.tf[f]) * nm[f]
			}
			if score[p.id] == 0 {
				sc.touched = append(sc.touched, p.id)
			}
			score[p.id] += w * float64(tf) / (k1 + float64(tf))
		}
	}

	var top hitHeap
	for _, id := range sc.touched {
		s := score[id]
		d := &ix.docs[id].doc
		h := Hit{Doc: *d, Score: s}
		if limit > 0 && len(top) == limit && !before(&h, &top[0]) {
			continue
		}
		if keep != nil && !keep(d) {
			continue
		}
		if limit > 0 && len(top) == limit {
			top[0] = h
			heap.Fix(&top, 0)
			continue
		}
		heap.Push(&top, h)
	}
	hits := []Hit(top)
	slices.SortFunc(hits, compareHits)
	return hits, nil
}

// compareHits orders hits best first, as before does.
func compareHits(a, b Hit) int {
	if before(&a, &b) {
		return -1
	}
	if before(&b, &a) {
		return 1
	}
	return 0
}

// hitHeap is a min-heap by rank: its root is the worst of the hits kept.
type hitHeap []Hit

func (h hitHeap) Len() int           { return len(h) }
func (h hitHeap) Less(i, j int) bool { return before(&h[j], &h[i]) }
func (h hitHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *hitHeap) Push(x any)        { *h = append(*h, x.(Hit)) }
func (h *hitHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

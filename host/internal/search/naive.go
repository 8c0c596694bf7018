package search

import (
	"math"
	"slices"
	"strings"
	"unicode"
)

// Naive is the baseline for evaluations: plain BM25 (k1 1.2, b 0.75) over
// one field, the raw lowercased text of name, title, description and
// params split on non-letters/digits, no stemming, no stop list, no field
// weights. Ties keep the order (Server, Name); a limit of 0 or less
// returns every match.
func Naive(docs []Doc, query string, limit int) []Hit {
	const b = 0.75
	split := func(s string) []string {
		return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
			return !unicode.IsLetter(r) && !unicode.IsDigit(r)
		})
	}
	qs := split(query)
	slices.Sort(qs)
	qs = slices.Compact(qs)
	if len(qs) == 0 || len(docs) == 0 {
		return nil
	}
	tfs := make([]map[string]int, len(docs))
	lens := make([]float64, len(docs))
	df := map[string]int{}
	var sum float64
	for i, d := range docs {
		text := []string{d.Name, d.Title, d.Description}
		for _, p := range d.Params {
			text = append(text, p.Name, p.Description)
		}
		ws := split(strings.Join(text, " "))
		tf := map[string]int{}
		for _, w := range ws {
			tf[w]++
		}
		for _, q := range qs {
			if tf[q] > 0 {
				df[q]++
			}
		}
		tfs[i], lens[i] = tf, float64(len(ws))
		sum += lens[i]
	}
	n := float64(len(docs))
	avg := max(sum/n, 1)
	var hits []Hit
	for i, tf := range tfs {
		var s float64
		for _, q := range qs {
			f := float64(tf[q])
			if f == 0 {
				continue
			}
			idf := math.Log(1 + (n-float64(df[q])+0.5)/(float64(df[q])+0.5))
			s += idf * f * (k1 + 1) / (f + k1*(1-b+b*lens[i]/avg))
		}
		if s > 0 {
			hits = append(hits, Hit{Doc: docs[i], Score: s})
		}
	}
	slices.SortFunc(hits, compareHits)
	if limit > 0 && len(hits) > limit {
		hits = hits[:limit]
	}
	return hits
}

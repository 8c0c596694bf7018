package search

import (
	"cmp"
	"errors"
	"math"
	"runtime"
	"strings"
	"sync"
	"unicode"
)

// Doc is one tool as the index sees it.
type Doc struct {
	Name        string // the tool's name as called: "github__create_issue", "view_file"
	Server      string // what results are grouped by: the part before the first "__", or the tool's group
	Title       string
	Description string
	Params      []Param // the input schema's properties
}

// Param is one property of a tool's input schema.
type Param struct{ Name, Description string }

// Text is the document as one text, for an embedding model: the name split
// into words ("github__create_issue" gives "github create issue",
// "getHTTPResponse" "get HTTP Response"), the title unless it only repeats
// the name, the description, and the parameters' names, a line each, empty
// parts left out. It is the one choice of what a tool's vector is made of.
func (d Doc) Text() string {
	var b strings.Builder
	line := func(s string) {
		if s = strings.TrimSpace(s); s == "" {
			return
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(s)
	}
	name := nameWords(d.Name)
	line(name)
	if !strings.EqualFold(nameWords(d.Title), name) {
		line(d.Title)
	}
	line(d.Description)
	if len(d.Params) > 0 {
		names := make([]string, len(d.Params))
		for i, p := range d.Params {
			names[i] = nameWords(p.Name)
		}
		line("Parameters: " + strings.Join(names, ", "))
	}
	return b.String()
}

// nameWords splits an identifier into words, at anything not a letter or a
// digit and before a capital that follows a small letter or a digit, or
// ends a run of capitals ("s3Bucket" gives "s3 Bucket", "HTTPResponse"
// "HTTP Response"), keeping their case.
func nameWords(s string) string {
	var out []string
	for _, run := range strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		rs := []rune(run)
		start := 0
		for i := 1; i < len(rs); i++ {
			prev, cur := rs[i-1], rs[i]
			upperRunEnds := unicode.IsUpper(prev) && unicode.IsUpper(cur) && i+1 < len(rs) && unicode.IsLower(rs[i+1])
			if ((unicode.IsLower(prev) || unicode.IsDigit(prev)) && unicode.IsUpper(cur)) || upperRunEnds {
				out = append(out, string(rs[start:i]))
				start = i
			}
		}
		out = append(out, string(rs[start:]))
	}
	return strings.Join(out, " ")
}

// The fields a document is scored on.
const (
	fieldName = iota // the tool's name less its "<server>__" prefix
	fieldServer
	fieldTitle
	fieldDescription
	fieldParamName
	fieldParamDescription
	numFields
)

// fieldWeight is what a term counts in each field (BM25F): a query word in
// a tool's name says most about what it does, one in a parameter's
// description least.
var fieldWeight = [numFields]float64{
	fieldName:             3,
	fieldServer:           1.5,
	fieldTitle:            2,
	fieldDescription:      1,
	fieldParamName:        1,
	fieldParamDescription: 0.5,
}

// fieldB is each field's length normalisation: long descriptions are
// discounted, names and servers (a few words each) hardly.
var fieldB = [numFields]float64{
	fieldName:             0.3,
	fieldServer:           0,
	fieldTitle:            0.3,
	fieldDescription:      0.75,
	fieldParamName:        0.5,
	fieldParamDescription: 0.75,
}

// k1 is BM25's term-frequency saturation.
const k1 = 1.2

// ErrEmptyQuery is returned for a query with no searchable word (empty,
// only stop words or punctuation).
var ErrEmptyQuery = errors.New(`query has no searchable word: say what the tool should do in a few words, like "create github issue" or "read a file"`)

// Index is a BM25 index over docs, kept per source (a plugin or an
// upstream server), updated incrementally. Safe for concurrent use
// (readers in parallel, writers exclusive).
type Index struct {
	mu       sync.RWMutex
	docs     []entry // by document id; ids of removed documents are reused
	free     []int32
	live     int
	byName   map[string]int32
	bySource map[string][]int32
	postings map[string][]posting
	sumLen   [numFields]float64
	// norm[id][f] is fieldWeight[f] over field f's BM25 length
	// normalisation for document id; recomputed on every change, since the
	// average lengths move with each.
	norm [][numFields]float32
}

type entry struct {
	doc    Doc
	source string
	lens   [numFields]int32
	terms  []string // distinct, for removal
	live   bool
}

// posting is one document's term frequencies, per field, for a term.
type posting struct {
	id int32
	tf [numFields]uint16
}

// analysed is a document's fields as terms, computed before taking the
// lock.
type analysed struct {
	doc   Doc
	lens  [numFields]int32
	terms []string            // distinct
	tf    [][numFields]uint16 // by terms' index
}

// New returns an empty index.
func New() *Index {
	return &Index{
		byName:   map[string]int32{},
		bySource: map[string][]int32{},
		postings: map[string][]posting{},
	}
}

// Set makes docs the whole of source's documents (replacing what it had).
// Docs are keyed by Name; a Name another source holds is replaced by the
// later Set, and of two docs with one Name in docs the last is kept. The
// index keeps its own copy of docs.
func (ix *Index) Set(source string, docs []Doc) {
	all := analyseAll(docs)
	as := make([]analysed, 0, len(docs))
	at := make(map[string]int, len(docs))
	for _, a := range all {
		if i, ok := at[a.doc.Name]; ok {
			as[i] = a
			continue
		}
		at[a.doc.Name] = len(as)
		as = append(as, a)
	}

	ix.mu.Lock()
	defer ix.mu.Unlock()
	touched := map[string]bool{}
	ix.removeIDs(ix.bySource[source], touched)
	delete(ix.bySource, source)
	for _, a := range as {
		id, ok := ix.byName[a.doc.Name]
		if !ok {
			continue
		}
		other := ix.docs[id].source
		ix.bySource[other] = without(ix.bySource[other], id)
		if len(ix.bySource[other]) == 0 {
			delete(ix.bySource, other)
		}
		ix.removeIDs([]int32{id}, touched)
	}
	ix.prune(touched)

	ids := make([]int32, 0, len(as))
	for _, a := range as {
		ids = append(ids, ix.add(source, a))
	}
	if len(ids) > 0 {
		ix.bySource[source] = ids
	}
	ix.renorm()
}

// Remove drops source's documents.
func (ix *Index) Remove(source string) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ids, ok := ix.bySource[source]
	if !ok {
		return
	}
	touched := map[string]bool{}
	ix.removeIDs(ids, touched)
	delete(ix.bySource, source)
	ix.prune(touched)
	ix.renorm()
}

// Len is the number of documents.
func (ix *Index) Len() int {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return ix.live
}

// removeIDs marks documents removed and notes their terms, whose postings
// prune then drops them from. Their ids are free once pruned.
func (ix *Index) removeIDs(ids []int32, touched map[string]bool) {
	for _, id := range ids {
		e := &ix.docs[id]
		for _, t := range e.terms {
			touched[t] = true
		}
		for f, n := range e.lens {
			ix.sumLen[f] -= float64(n)
		}
		delete(ix.byName, e.doc.Name)
		*e = entry{}
		ix.free = append(ix.free, id)
		ix.live--
	}
}

// prune drops removed documents from the postings of the terms they had.
func (ix *Index) prune(touched map[string]bool) {
	for t := range touched {
		ps := ix.postings[t]
		kept := ps[:0]
		for _, p := range ps {
			if ix.docs[p.id].live {
				kept = append(kept, p)
			}
		}
		if len(kept) == 0 {
			delete(ix.postings, t)
			continue
		}
		clear(ps[len(kept):])
		ix.postings[t] = kept
	}
}

func (ix *Index) add(source string, a analysed) int32 {
	var id int32
	if n := len(ix.free); n > 0 {
		id = ix.free[n-1]
		ix.free = ix.free[:n-1]
	} else {
		id = int32(len(ix.docs))
		ix.docs = append(ix.docs, entry{})
	}
	ix.docs[id] = entry{doc: a.doc, source: source, lens: a.lens, terms: a.terms, live: true}
	ix.byName[a.doc.Name] = id
	for i, t := range a.terms {
		ix.postings[t] = append(ix.postings[t], posting{id: id, tf: a.tf[i]})
	}
	for f, n := range a.lens {
		ix.sumLen[f] += float64(n)
	}
	ix.live++
	return id
}

// renorm recomputes every document's length normalisation for the
// current average field lengths.
func (ix *Index) renorm() {
	if cap(ix.norm) < len(ix.docs) {
		ix.norm = make([][numFields]float32, len(ix.docs), cap(ix.docs))
	}
	ix.norm = ix.norm[:len(ix.docs)]
	var avg [numFields]float64
	for f := range avg {
		avg[f] = 1
		if ix.live > 0 && ix.sumLen[f] > 0 {
			avg[f] = ix.sumLen[f] / float64(ix.live)
		}
	}
	for id := range ix.docs {
		e := &ix.docs[id]
		if !e.live {
			ix.norm[id] = [numFields]float32{}
			continue
		}
		for f := range numFields {
			b := fieldB[f]
			ix.norm[id][f] = float32(fieldWeight[f] / (1 - b + b*float64(e.lens[f])/avg[f]))
		}
	}
}

func without(ids []int32, id int32) []int32 {
	out := ids[:0]
	for _, x := range ids {
		if x != id {
			out = append(out, x)
		}
	}
	return out
}

// analyseAll analyses docs, on every CPU when there are enough of them to
// be worth it: analysis is most of what building an index costs.
func analyseAll(docs []Doc) []analysed {
	out := make([]analysed, len(docs))
	workers := min(runtime.GOMAXPROCS(0), len(docs)/16)
	if workers < 2 {
		for i, d := range docs {
			out[i] = analyse(d)
		}
		return out
	}
	var wg sync.WaitGroup
	per := (len(docs) + workers - 1) / workers
	for start := 0; start < len(docs); start += per {
		end := min(start+per, len(docs))
		wg.Go(func() {
			for i := start; i < end; i++ {
				out[i] = analyse(docs[i])
			}
		})
	}
	wg.Wait()
	return out
}

// analyse splits a document into its fields' terms.
func analyse(d Doc) analysed {
	d.Params = append([]Param(nil), d.Params...)
	a := analysed{doc: d}
	at := make(map[string]int, 64)
	count := func(f int, ts []string) {
		for _, t := range ts {
			i, ok := at[t]
			if !ok {
				i = len(a.terms)
				at[t] = i
				a.terms = append(a.terms, t)
				a.tf = append(a.tf, [numFields]uint16{})
			}
			if a.tf[i][f] < math.MaxUint16 {
				a.tf[i][f]++
			}
		}
		a.lens[f] += int32(len(ts))
	}
	count(fieldName, terms(strings.TrimPrefix(d.Name, d.Server+"__")))
	count(fieldServer, terms(d.Server))
	count(fieldTitle, terms(d.Title))
	count(fieldDescription, terms(d.Description))
	for _, p := range d.Params {
		count(fieldParamName, terms(p.Name))
		count(fieldParamDescription, terms(p.Description))
	}
	return a
}

// Hit is one ranked document.
type Hit struct {
	Doc   Doc
	Score float64
}

// before reports whether a ranks before b: higher score, then (Server,
// Name).
func before(a, b *Hit) bool {
	if a.Score != b.Score {
		return a.Score > b.Score
	}
	if c := cmp.Compare(a.Doc.Server, b.Doc.Server); c != 0 {
		return c < 0
	}
	return a.Doc.Name < b.Doc.Name
}

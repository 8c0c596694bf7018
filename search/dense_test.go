package search

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDocText(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		doc  Doc
		want string
	}{
		"upstream tool": {
			doc: Doc{Name: "github__create_issue", Server: "github", Title: "Create issue", Description: "Create a new issue.",
				Params: []Param{{Name: "owner"}, {Name: "repo_name", Description: "not embedded"}}},
			want: "github create issue\nCreate issue\nCreate a new issue.\nParameters: owner, repo name",
		},
		"a title that only repeats the name is left out": {
			doc:  Doc{Name: "git_log", Title: "Git log", Description: " Shows the commit logs. "},
			want: "git log\nShows the commit logs.",
		},
		"camelCase and digits": {
			doc:  Doc{Name: "getHTTPResponse", Params: []Param{{Name: "s3Bucket"}, {Name: "outer.innerKey"}}},
			want: "get HTTP Response\nParameters: s3 Bucket, outer inner Key",
		},
		"name only": {
			doc:  Doc{Name: "ping"},
			want: "ping",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tc.want, tc.doc.Text()); diff != "" {
				t.Errorf("Text() (-want +got):\n%s", diff)
			}
		})
	}
}

func denseDoc(server, name string) Doc { return Doc{Name: name, Server: server} }

func rankedNames(hits []Hit) []string {
	out := []string{}
	for _, h := range hits {
		out = append(out, h.Doc.Name)
	}
	return out
}

func TestDenseSearch(t *testing.T) {
	t.Parallel()
	d := NewDense()
	d.Set("a", []Embedded{
		{denseDoc("a", "east"), []float32{1, 0, 0}},
		{denseDoc("a", "north_east"), []float32{1, 1, 0}},
		{denseDoc("a", "north"), []float32{0, 3, 0}}, // length does not matter, direction does
		{denseDoc("a", "zero"), []float32{0, 0, 0}},  // no direction: left out
		{denseDoc("a", "nan"), []float32{float32(math.NaN()), 1, 0}},
		{denseDoc("a", "wide"), []float32{1, 0, 0, 0}}, // another model's
	})
	d.Set("b", []Embedded{
		{denseDoc("b", "also_east"), []float32{2, 0, 0}},
		{denseDoc("b", "west"), []float32{-1, 0, 0}},
	})
	if got := d.Len(); got != 6 {
		t.Errorf("Len = %d, want 6 (zero and NaN vectors left out)", got)
	}
	east := []float32{1, 0, 0}
	tests := map[string]struct {
		q     []float32
		limit int
		keep  func(*Doc) bool
		want  []string
	}{
		// east and also_east tie at 1: (Server, Name) orders them.
		"all":          {q: east, want: []string{"east", "also_east", "north_east", "north", "west"}},
		"limit":        {q: east, limit: 2, want: []string{"east", "also_east"}},
		"keep":         {q: east, limit: 2, keep: func(d *Doc) bool { return d.Server == "b" }, want: []string{"also_east", "west"}},
		"other length": {q: []float32{0, 0, 0, 1}, want: []string{"wide"}},
		"zero query":   {q: []float32{0, 0, 0}, want: []string{}},
		"empty query":  {q: nil, want: []string{}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tc.want, rankedNames(d.Search(tc.q, tc.limit, tc.keep))); diff != "" {
				t.Errorf("Search (-want +got):\n%s", diff)
			}
		})
	}
	hits := d.Search(east, 3, nil)
	if math.Abs(hits[2].Score-1/math.Sqrt2) > 1e-6 {
		t.Errorf("cosine of north_east = %v, want 1/√2", hits[2].Score)
	}
}

func TestDenseSetAndRemove(t *testing.T) {
	t.Parallel()
	d := NewDense()
	v := []float32{1, 0}
	d.Set("a", []Embedded{{denseDoc("a", "one"), v}, {denseDoc("a", "two"), v}})
	d.Set("b", []Embedded{{denseDoc("b", "three"), v}})
	// A name another source holds moves to the later Set.
	d.Set("c", []Embedded{{denseDoc("c", "two"), v}})
	if got := rankedNames(d.Search(v, 0, nil)); !cmp.Equal(got, []string{"one", "three", "two"}) {
		t.Errorf("after moving two: %v", got)
	}
	if hits := d.Search(v, 0, func(d *Doc) bool { return d.Name == "two" }); len(hits) != 1 || hits[0].Doc.Server != "c" {
		t.Errorf("two is %v, want c's", hits)
	}
	d.Set("a", []Embedded{{denseDoc("a", "four"), v}})
	d.Remove("b")
	d.Remove("nope")
	if got := rankedNames(d.Search(v, 0, nil)); !cmp.Equal(got, []string{"four", "two"}) {
		t.Errorf("after replacing a and removing b: %v", got)
	}
	if !d.Has("two") || d.Has("one") || d.Has("three") || d.Len() != 2 {
		t.Errorf("Has(two, one, three) = %v %v %v, Len = %d", d.Has("two"), d.Has("one"), d.Has("three"), d.Len())
	}
	d.Set("a", nil)
	d.Set("c", nil)
	if d.Len() != 0 || len(d.Search(v, 0, nil)) != 0 {
		t.Errorf("emptied Dense has %d", d.Len())
	}
}

func TestFuse(t *testing.T) {
	t.Parallel()
	hits := func(names ...string) []Hit {
		out := []Hit{}
		for _, n := range names {
			out = append(out, Hit{Doc: denseDoc("s", n)})
		}
		return out
	}
	only := func(names ...string) func(string) bool {
		return func(n string) bool {
			for _, x := range names {
				if x == n {
					return true
				}
			}
			return false
		}
	}
	tests := map[string]struct {
		lexical, dense []Hit
		limit          int
		embedded       func(string) bool
		want           []string
	}{
		"agreement first, then what one ranking alone found": {
			lexical: hits("a", "b"), dense: hits("c", "a", "b"),
			want: []string{"a", "b", "c"},
		},
		// b: 1/62 + 1/61, c: 1/63 + 1/62, a: 1/61 + 1/66.
		"the dense ranking reorders": {
			lexical: hits("a", "b", "c"), dense: hits("b", "c", "d", "e", "f", "a"),
			want: []string{"b", "c", "a", "d", "e", "f"},
		},
		"no word matches: the dense ranking alone": {
			lexical: nil, dense: hits("z", "y"),
			want: []string{"z", "y"},
		},
		"no vectors: BM25's order": {
			lexical: hits("b", "a", "c"), dense: nil, embedded: only(),
			want: []string{"b", "a", "c"},
		},
		// a, without a vector, counts its lexical place twice: 2/61 against
		// b's 1/62 + 1/61. Counted once it would fall behind b.
		"a tool without a vector keeps its BM25 place": {
			lexical: hits("a", "b"), dense: hits("b"), embedded: only("b"),
			want: []string{"a", "b"},
		},
		"the same without saying which tools have vectors": {
			lexical: hits("a", "b"), dense: hits("b"),
			want: []string{"b", "a"},
		},
		// x and w both score 1/61 + 1/62.
		"ties keep (Server, Name)": {
			lexical: hits("x", "w"), dense: hits("w", "x"),
			want: []string{"w", "x"},
		},
		"limit": {
			lexical: hits("a", "b", "c"), dense: hits("a", "b", "c"), limit: 2,
			want: []string{"a", "b"},
		},
		"nothing": {want: []string{}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got := Fuse(tc.lexical, tc.dense, tc.limit, tc.embedded)
			if diff := cmp.Diff(tc.want, rankedNames(got)); diff != "" {
				t.Errorf("Fuse (-want +got):\n%s", diff)
			}
		})
	}

	got := Fuse(hits("a"), hits("a"), 0, nil)
	if want := 2.0 / (RRFK + 1); got[0].Score != want {
		t.Errorf("score of first in both = %v, want %v", got[0].Score, want)
	}
	// Ties across servers: (Server, Name), as the index orders them.
	got = Fuse([]Hit{{Doc: denseDoc("b", "a")}}, []Hit{{Doc: denseDoc("a", "z")}}, 0, nil)
	if diff := cmp.Diff([]string{"z", "a"}, rankedNames(got)); diff != "" {
		t.Errorf("tie across servers (-want +got):\n%s", diff)
	}
}

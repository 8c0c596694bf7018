package search

import (
	"math"
	"strconv"
	"strings"
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
	has := func(name string) bool { _, ok := d.Similarity(v)(name); return ok }
	if !has("two") || has("one") || has("three") || d.Len() != 2 {
		t.Errorf("has a vector: two %v, one %v, three %v; Len = %d", has("two"), has("one"), has("three"), d.Len())
	}
	d.Set("a", nil)
	d.Set("c", nil)
	if d.Len() != 0 || len(d.Search(v, 0, nil)) != 0 {
		t.Errorf("emptied Dense has %d", d.Len())
	}
}

func TestFuse(t *testing.T) {
	t.Parallel()
	// scored gives hits "name:score", best first.
	scored := func(spec ...string) []Hit {
		out := []Hit{}
		for _, sp := range spec {
			name, score, _ := strings.Cut(sp, ":")
			f, err := strconv.ParseFloat(score, 64)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, Hit{Doc: denseDoc("s", name), Score: f})
		}
		return out
	}
	cosines := func(m map[string]float64) func(string) (float64, bool) {
		return func(n string) (float64, bool) { c, ok := m[n]; return c, ok }
	}
	tests := map[string]struct {
		lexical, dense []Hit
		similarity     func(string) (float64, bool)
		limit          int
		want           []string
	}{
		// a: 0.4 + 0.6*0.5 = 0.7; b: 0.4*0.5 + 0.6 = 0.8; c: 0.6*0.9 = 0.54.
		"both rankings count by their margins": {
			lexical: scored("a:10", "b:5"), dense: scored("b:0.8", "c:0.72", "a:0.4"),
			want: []string{"b", "a", "c"},
		},
		// a: 0.4 + 0.6*0.1 = 0.46 against c's 0.6: a clear lexical win alone
		// does not beat a much closer meaning.
		"a close meaning beats words alone": {
			lexical: scored("a:10"), dense: scored("c:0.6", "a:0.06"),
			want: []string{"c", "a"},
		},
		"no word matches: the dense ranking alone": {
			lexical: nil, dense: scored("z:0.5", "y:0.4"),
			want: []string{"z", "y"},
		},
		"no vectors: BM25's order": {
			lexical: scored("b:3", "a:2", "c:1"), similarity: cosines(nil),
			want: []string{"b", "a", "c"},
		},
		// a has no vector: 1 (BM25 alone); b: 0.4*0.5 + 0.6 = 0.8.
		"a tool without a vector keeps its BM25 share": {
			lexical: scored("a:2", "b:1"), dense: scored("b:0.9"), similarity: cosines(map[string]float64{"b": 0.9}),
			want: []string{"a", "b"},
		},
		// a: 0.4 + 0.6*0.7/0.9 = 0.867 with its cosine from similarity; b: 0.8.
		"a lexical hit beyond the dense ranking gets its cosine": {
			lexical: scored("a:2", "b:1"), dense: scored("b:0.9"), similarity: cosines(map[string]float64{"a": 0.7, "b": 0.9}),
			want: []string{"a", "b"},
		},
		// without similarity a's dense share is 0: 0.4 against b's 0.8.
		"without similarity, only the dense ranking's cosines": {
			lexical: scored("a:2", "b:1"), dense: scored("b:0.9"),
			want: []string{"b", "a"},
		},
		"negative cosines count as none": {
			lexical: scored("a:1", "b:1"), dense: scored("a:0.5", "b:-0.5"),
			want: []string{"a", "b"},
		},
		"ties keep (Server, Name)": {
			lexical: scored("x:1", "w:1"), dense: scored("w:0.5", "x:0.5"),
			want: []string{"w", "x"},
		},
		"limit": {
			lexical: scored("a:3", "b:2", "c:1"), dense: scored("a:0.3", "b:0.2", "c:0.1"), limit: 2,
			want: []string{"a", "b"},
		},
		"nothing": {want: []string{}},
		// Index never scores 0, but Fuse is exported: no NaN.
		"lexical scores of zero": {
			lexical: scored("a:0", "b:0"), dense: scored("b:0.5"),
			want: []string{"b", "a"},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got := Fuse(tc.lexical, tc.dense, tc.similarity, tc.limit)
			for _, h := range got {
				if math.IsNaN(h.Score) {
					t.Errorf("Fuse scored %s NaN", h.Doc.Name)
				}
			}
			if diff := cmp.Diff(tc.want, rankedNames(got)); diff != "" {
				t.Errorf("Fuse (-want +got):\n%s", diff)
			}
		})
	}

	got := Fuse(scored("a:7"), scored("a:0.3"), nil, 0)
	if got[0].Score != 1 {
		t.Errorf("score of first in both = %v, want 1", got[0].Score)
	}
	// Ties across servers: (Server, Name), as the index orders them.
	ab, za := denseDoc("b", "a"), denseDoc("a", "z")
	got = Fuse([]Hit{{Doc: ab, Score: 1}, {Doc: za, Score: 1}}, []Hit{{Doc: ab, Score: 0.5}, {Doc: za, Score: 0.5}}, nil, 0)
	if diff := cmp.Diff([]string{"z", "a"}, rankedNames(got)); diff != "" {
		t.Errorf("tie across servers (-want +got):\n%s", diff)
	}
}

func TestDenseSimilarity(t *testing.T) {
	t.Parallel()
	d := NewDense()
	d.Set("s", []Embedded{{Doc: denseDoc("s", "x"), Vector: []float32{3, 4}}, {Doc: denseDoc("s", "y"), Vector: []float32{1, 0, 0}}})
	sim := d.Similarity([]float32{1, 0})
	if c, ok := sim("x"); !ok || math.Abs(c-0.6) > 1e-6 {
		t.Errorf("similarity(x) = %v, %v, want 0.6", c, ok)
	}
	if _, ok := sim("y"); ok {
		t.Error("similarity of a vector of another dimension")
	}
	if _, ok := sim("nope"); ok {
		t.Error("similarity of an unknown document")
	}
	if _, ok := d.Similarity([]float32{0, 0})("x"); ok {
		t.Error("similarity to a query without direction")
	}
}

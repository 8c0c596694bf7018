package activity

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSummarizeArgs(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 100)
	tests := map[string]struct {
		args string
		max  int
		want string
	}{
		"empty":              {args: "", want: ""},
		"null":               {args: "null", want: ""},
		"empty object":       {args: " {} ", want: ""},
		"scalars":            {args: `{"path":"a.go","line":12,"all":true,"x":null,"f":1.5e3}`, want: `path="a.go" line=12 all=true x=null f=1.5e3`},
		"keys in order":      {args: `{"b":1,"a":2,"c":3}`, want: `b=1 a=2 c=3`},
		"long string cut":    {args: `{"q":"` + long + `"}`, want: `q="` + strings.Repeat("x", 59) + `…"`},
		"newline escaped":    {args: `{"cmd":"echo a\nls"}`, want: `cmd="echo a\nls"`},
		"content by size":    {args: `{"path":"a","content":"` + strings.Repeat("y", 1234) + `"}`, want: `path="a" content=<1.2 KB>`},
		"small content":      {args: `{"new":"hi","old":"a\nb"}`, want: `new=<2 B> old=<3 B>`},
		"content key case":   {args: `{"Content":"abcd"}`, want: `Content=<4 B>`},
		"content not string": {args: `{"lines":["a","b"]}`, want: `lines=<9 B>`},
		"megabytes":          {args: `{"text":"` + strings.Repeat("z", 3<<20) + `"}`, want: `text=<3.0 MB>`},
		"nested":             {args: `{"edits":[{"line":3,"text":"abc"},{"line":4,"text":""}],"opts":{"n":1,"s":"v"}}`, want: `edits=[{line=3 text=<3 B>}, {line=4 text=<0 B>}] opts={n=1 s="v"}`},
		"top-level array":    {args: `[1, "a", {"k":[]}]`, want: `[1, "a", {k=[]}]`},
		"odd key":            {args: `{"a b":1,"":2}`, want: `"a b"=1 ""=2`},
		"capped":             {args: `{"path":"/some/long/path/to/a/file.go","line":1}`, max: 20, want: `path="/some/long/pa…`},
		"invalid JSON":       {args: "{\"a\":\n  1,", want: `{"a": 1,`},
		"trailing garbage":   {args: `{"a":1} x`, want: `{"a":1} x`},
		"unicode":            {args: `{"s":"héllo ✓"}`, want: `s="héllo ✓"`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if got := SummarizeArgs(json.RawMessage(tc.args), tc.max); got != tc.want {
				t.Errorf("SummarizeArgs(%.80q, %d)\n got %q\nwant %q", tc.args, tc.max, got, tc.want)
			}
		})
	}
}

func TestSummarizeArgsCap(t *testing.T) {
	t.Parallel()
	// Many members: the summary stops early and is exactly max characters.
	var b strings.Builder
	b.WriteString("{")
	for i := range 5000 {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`"key":"välue"`)
	}
	b.WriteString("}")
	for _, max := range []int{1, 2, 10, 57, 0} {
		got := SummarizeArgs(json.RawMessage(b.String()), max)
		want := max
		if max == 0 {
			want = DefaultSummaryLen
		}
		if n := utf8.RuneCountInString(got); n != want || !strings.HasSuffix(got, "…") || strings.Contains(got, "\n") {
			t.Errorf("max %d: got %d characters %q", max, n, got)
		}
	}
}

// TestArgsCutNotThroughData: a long argument is cut before a value it
// would split (the feed holds the data as it is; the outbound gate, which
// filters it when it is shown, would not know half an address).
func TestArgsCutNotThroughData(t *testing.T) {
	t.Parallel()
	path := strings.Repeat("d", maxStringRunes-10) + "/jane.doe@acme.io/notes.txt"
	got := SummarizeArgs(json.RawMessage(`{"path":"`+path+`"}`), DefaultSummaryLen)
	if strings.Contains(got, "jane") || !strings.Contains(got, strings.Repeat("d", maxStringRunes-10)+"/…") {
		t.Errorf("summary %q, want the path cut before the address", got)
	}
}

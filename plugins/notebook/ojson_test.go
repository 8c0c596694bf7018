package notebook

import (
	"bytes"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func roundTrip(t *testing.T, data []byte) []byte {
	t.Helper()
	doc, err := parseDocument(string(data))
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	return doc.encode(len(data))
}

func fixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestFixturesAreCanonical checks that the fixtures are what Jupyter
// writes, so the round-trip tests below mean what they say.
func TestFixturesAreCanonical(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"analysis.ipynb", "legacy44.ipynb"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			data := fixture(t, name)
			if diff := cmp.Diff(string(canonical(t, data)), string(data)); diff != "" {
				t.Errorf("%s is not in Jupyter's format (-jupyter +file):\n%s", name, diff)
			}
		})
	}
}

// TestRoundTripStyles reads and writes back files in Jupyter's style and in
// the styles other writers use, and expects the bytes unchanged.
func TestRoundTripStyles(t *testing.T) {
	t.Parallel()
	analysis := fixture(t, "analysis.ipynb")
	dump := func(args string) []byte {
		return runPython(t, `import json, sys
nb = json.loads(sys.stdin.buffer.read().decode("utf-8"))
sys.stdout.buffer.write(json.dumps(nb, `+args+`).encode("utf-8"))
`, analysis)
	}
	tests := map[string][]byte{
		"jupyter":             analysis,
		"legacy 4.4":          fixture(t, "legacy44.ipynb"),
		"indent 2 unsorted":   append(dump(`indent=2, ensure_ascii=False`), '\n'),
		"indent tab":          append(dump(`indent="\t", sort_keys=True, ensure_ascii=False`), '\n'),
		"indent 0":            dump(`indent=0, sort_keys=True, ensure_ascii=False`),
		"ensure_ascii":        append(dump(`indent=1, sort_keys=True`), '\n'),
		"compact":             dump(`ensure_ascii=False`),
		"minified":            dump(`separators=(",", ":"), ensure_ascii=False`),
		"python2 separators":  dump(`indent=1, separators=(", ", ": "), ensure_ascii=False`),
		"crlf":                bytes.ReplaceAll(analysis, []byte("\n"), []byte("\r\n")),
		"no final newline":    bytes.TrimSuffix(analysis, []byte("\n")),
		"bom and blank lines": append([]byte("\ufeff\n"), append(analysis, "\n\n"...)...),
		"odd tokens": []byte("{\n \"a\": [\n  1.0E+2,\n  -0,\n  NaN,\n  -Infinity,\n  1e400,\n  \"\\u00E9\\/\\ud83d\\ude00 \\ud800\"\n ],\n" +
			" \"dup\": 1,\n \"dup\": 2,\n \"z\": {},\n \"y\": []\n}\n"),
	}
	for name, data := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(string(data), string(roundTrip(t, data))); diff != "" {
				t.Errorf("round trip changed the file (-want +got):\n%s", diff)
			}
		})
	}
}

// TestNormalised shows what a write does change: whitespace that does not
// follow the detected pattern.
func TestNormalised(t *testing.T) {
	t.Parallel()
	tests := map[string]struct{ in, want string }{
		"short list on one line": {
			in:   "{\n \"a\": [1, 2],\n \"b\": { }\n}\n",
			want: "{\n \"a\": [\n  1,\n  2\n ],\n \"b\": {}\n}\n",
		},
		"space before colon": { // the first key's separator after ':' is kept
			in:   "{\n  \"a\" : 1,\n  \"b\" : [ ]\n}",
			want: "{\n  \"a\": 1,\n  \"b\": []\n}",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tc.want, string(roundTrip(t, []byte(tc.in)))); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestDetectedStyle(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		in   string
		want style
	}{
		"jupyter":  {"{\n \"a\": \"é\"\n}\n", canonicalStyle},
		"ascii":    {"{\n \"a\": \"\\u00e9\"\n}\n", style{pretty: true, indent: " ", itemSep: ",", keySep: ": ", eol: "\n", ascii: true}},
		"mixed":    {"{\n \"a\": \"\\u00e9\",\n \"b\": \"é\"\n}\n", canonicalStyle},
		"crlf tab": {"{\r\n\t\"a\": 1,\r\n\t\"b\": 2\r\n}", style{pretty: true, indent: "\t", itemSep: ",", keySep: ": ", eol: "\r\n"}},
		"compact":  {`{"a": 1, "b": 2}`, style{itemSep: ", ", keySep: ": ", eol: "\n"}},
		"minified": {`{"a":1,"b":2}`, style{itemSep: ",", keySep: ":", eol: "\n"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			doc, err := parseDocument(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, doc.style, cmp.AllowUnexported(style{})); diff != "" {
				t.Errorf("style (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	tests := map[string]struct{ in, want string }{
		"empty":             {"", "line 1, column 1: unexpected end of file, expected a value"},
		"trailing comma":    {"{\n \"a\": 1,\n}", "line 3, column 1: unexpected '}' in an object, expected a key in double quotes"},
		"unterminated":      {"{\"a\": \"xy", "line 1, column 7: unterminated string"},
		"backslash at end":  {"[\"\\", "line 1, column 2: unterminated string"},
		"raw newline":       {"[\"a\nb\"]", "line 1, column 4: control character '\\n' in a string (it must be escaped)"},
		"bad escape":        {`["\x"]`, `line 1, column 3: invalid escape "\\x"`},
		"bad unicode":       {`["\u12g4"]`, `line 1, column 3: invalid \u escape`},
		"leading zero":      {"[01]", "line 1, column 3: unexpected '1' in an array, expected ',' or ']'"},
		"bare word":         {"[nope]", "line 1, column 2: unexpected 'n', expected a value"},
		"missing colon":     {`{"a" 1}`, `line 1, column 6: unexpected '1' after a key, expected ':'`},
		"after the end":     {"{} x", "line 1, column 4: unexpected 'x' after the end of the document"},
		"no exponent digit": {"[1e]", "line 1, column 4: invalid number: no digits in the exponent"},
		"too deep":          {strings.Repeat("[", maxDepth+1), "nested deeper than 1000 levels"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := parseDocument(tc.in)
			var se *syntaxError
			if !errors.As(err, &se) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("parse %q: %v, want a syntax error containing %q", tc.in, err, tc.want)
			}
		})
	}
}

// TestQuoteMatchesPython checks new strings against json.dumps, in both
// ensure_ascii modes.
func TestQuoteMatchesPython(t *testing.T) {
	t.Parallel()
	alphabet := []rune("aZ09 \"\\/\b\f\n\r\t\x00\x01\x1b\x1f\x7f\u0080é—☕数据\u2028\u2029\U0001F600\ufeff'<>&")
	rng := rand.New(rand.NewPCG(1, 2))
	var values []string
	for range 300 {
		r := make([]rune, rng.IntN(12))
		for i := range r {
			r[i] = alphabet[rng.IntN(len(alphabet))]
		}
		values = append(values, string(r))
	}
	in, err := json.Marshal(values)
	if err != nil {
		t.Fatal(err)
	}
	for _, ascii := range []bool{false, true} {
		script := `import json, sys
for v in json.loads(sys.stdin.buffer.read().decode("utf-8")):
    sys.stdout.buffer.write((json.dumps(v, ensure_ascii=` + map[bool]string{false: "False", true: "True"}[ascii] + `) + "\n").encode("utf-8"))
`
		want := strings.Split(strings.TrimSuffix(string(runPython(t, script, in)), "\n"), "\n")
		s := style{ascii: ascii}
		var got []string
		for _, v := range values {
			q := s.quote(v)
			got = append(got, q)
			if back := unquote(q); back != v {
				t.Errorf("unquote(quote(%q)) = %q", v, back)
			}
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("ascii=%v: quote differs from json.dumps (-python +go):\n%s", ascii, diff)
		}
	}
}

// TestSplitLinesMatchesPython checks splitLines against str.splitlines.
func TestSplitLinesMatchesPython(t *testing.T) {
	t.Parallel()
	alphabet := []string{"a", "é", " ", "\n", "\r", "\r\n", "\v", "\f", "\x1c", "\x1d", "\x1e", "\u0085", "\u2028", "\u2029", "\t", "数"}
	rng := rand.New(rand.NewPCG(3, 4))
	values := []string{"", "\n", "a", "a\n", "a\nb", "\n\n", "a\r\nb\rc"}
	for range 300 {
		var b strings.Builder
		for range rng.IntN(10) {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		values = append(values, b.String())
	}
	in, err := json.Marshal(values)
	if err != nil {
		t.Fatal(err)
	}
	out := runPython(t, `import json, sys
vs = json.loads(sys.stdin.buffer.read().decode("utf-8"))
sys.stdout.buffer.write(json.dumps([v.splitlines(True) for v in vs]).encode("utf-8"))
`, in)
	var want [][]string
	if err := json.Unmarshal(out, &want); err != nil {
		t.Fatal(err)
	}
	var got [][]string
	for _, v := range values {
		lines := splitLines(v)
		if lines == nil {
			lines = []string{}
		}
		got = append(got, lines)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("splitLines differs from str.splitlines(True) (-python +go):\n%s", diff)
	}
}

func TestSetKeepsOrder(t *testing.T) {
	t.Parallel()
	s := &canonicalStyle
	keys := func(n *node) []string {
		var k []string
		for _, m := range n.members {
			k = append(k, m.key)
		}
		return k
	}
	sorted := s.objectNode("a", nullNode(), "c", nullNode())
	sorted.set("b", nullNode(), s)
	sorted.set("d", nullNode(), s)
	sorted.set("a", arrayNode(), s)
	if diff := cmp.Diff([]string{"a", "b", "c", "d"}, keys(sorted)); diff != "" {
		t.Errorf("sorted object (-want +got):\n%s", diff)
	}
	if sorted.get("a").kind != kindArray {
		t.Errorf("set did not replace a's value")
	}
	unsorted := s.objectNode("z", nullNode(), "a", nullNode())
	unsorted.set("m", nullNode(), s)
	unsorted.del("z")
	if diff := cmp.Diff([]string{"a", "m"}, keys(unsorted)); diff != "" {
		t.Errorf("unsorted object (-want +got):\n%s", diff)
	}
}

func BenchmarkRoundTrip(b *testing.B) {
	data := fixture(b, "analysis.ipynb")
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		doc, err := parseDocument(string(data))
		if err != nil {
			b.Fatal(err)
		}
		_ = doc.encode(len(data))
	}
}

func BenchmarkParseBigImage(b *testing.B) {
	data := `{"cells": [{"cell_type": "code", "outputs": [{"data": {"image/png": "` + strings.Repeat("iVBORw0KGgoAAAANSUhEUgAA", 400000) + `"}}]}], "nbformat": 4}`
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		doc, err := parseDocument(data)
		if err != nil {
			b.Fatal(err)
		}
		_ = doc.encode(len(data))
	}
}

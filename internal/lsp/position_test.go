package lsp

import (
	"errors"
	"io/fs"
	"math/rand/v2"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"
)

// sample has a CJK character, an emoji (a surrogate pair in UTF-16), a
// combining mark, and the three line breaks.
//
//	line 0 "a日b"  bytes 0-4, then \r\n at 5-6
//	line 1 "🍕x"   bytes 7-11 (🍕 is 7-10), \n at 12
//	line 2 "éz"   bytes 13-16 (e, U+0301 at 14-15, z), \r at 17
//	line 3 "last" bytes 18-21, the end at 22
const sample = "a日b\r\n🍕x\ne\u0301z\rlast"

func TestOffsetsAndPositions(t *testing.T) {
	t.Parallel()
	text := NewText([]byte(sample))
	for _, tc := range []struct {
		off                int
		utf8, utf16, utf32 Position
	}{
		{0, Position{0, 0}, Position{0, 0}, Position{0, 0}},
		{1, Position{0, 1}, Position{0, 1}, Position{0, 1}},
		{4, Position{0, 4}, Position{0, 2}, Position{0, 2}},
		{5, Position{0, 5}, Position{0, 3}, Position{0, 3}},
		{7, Position{1, 0}, Position{1, 0}, Position{1, 0}},
		{11, Position{1, 4}, Position{1, 2}, Position{1, 1}},
		{12, Position{1, 5}, Position{1, 3}, Position{1, 2}},
		{13, Position{2, 0}, Position{2, 0}, Position{2, 0}},
		{14, Position{2, 1}, Position{2, 1}, Position{2, 1}},
		{16, Position{2, 3}, Position{2, 2}, Position{2, 2}},
		{17, Position{2, 4}, Position{2, 3}, Position{2, 3}},
		{18, Position{3, 0}, Position{3, 0}, Position{3, 0}},
		{22, Position{3, 4}, Position{3, 4}, Position{3, 4}},
	} {
		for enc, want := range map[Encoding]Position{UTF8: tc.utf8, UTF16: tc.utf16, UTF32: tc.utf32} {
			got, err := text.Position(tc.off, enc)
			if err != nil || got != want {
				t.Errorf("Position(%d, %s) = %v, %v; want %v", tc.off, enc, got, err, want)
			}
			off, err := text.Offset(want, enc)
			if err != nil || off != tc.off {
				t.Errorf("Offset(%v, %s) = %d, %v; want %d", want, enc, off, err, tc.off)
			}
		}
	}
	for _, off := range []int{2, 3, 8, 9, 10, 15} {
		if p, err := text.Position(off, UTF16); err == nil || !strings.Contains(err.Error(), "inside a character") {
			t.Errorf("Position(%d) inside a character = %v, %v", off, p, err)
		}
	}
	if p, err := text.Position(6, UTF16); err == nil || !strings.Contains(err.Error(), "inside a line break") {
		t.Errorf("Position(6), between \\r and \\n = %v, %v", p, err)
	}
	for _, off := range []int{-1, 23} {
		if _, err := text.Position(off, UTF16); err == nil {
			t.Errorf("Position(%d) outside the text succeeded", off)
		}
	}
	for _, tc := range []struct {
		p   Position
		enc Encoding
	}{{Position{1, 1}, UTF16}, {Position{0, 2}, UTF8}, {Position{1, 3}, UTF8}, {Position{2, 2}, UTF8}} {
		if off, err := text.Offset(tc.p, tc.enc); err == nil || !strings.Contains(err.Error(), "inside a character") {
			t.Errorf("Offset(%v, %s) inside a character = %d, %v", tc.p, tc.enc, off, err)
		}
	}
	// Past a line's end means its end; past the last line, the text's.
	for _, tc := range []struct {
		p    Position
		want int
	}{{Position{0, 99}, 5}, {Position{1, 4}, 12}, {Position{2, 9}, 17}, {Position{3, 5}, 22}, {Position{4, 0}, 22}, {Position{9, 9}, 22}} {
		if off, err := text.Offset(tc.p, UTF16); err != nil || off != tc.want {
			t.Errorf("Offset(%v) = %d, %v; want %d", tc.p, off, err, tc.want)
		}
	}
	if _, err := text.Offset(Position{-1, 0}, UTF16); err == nil {
		t.Error("a negative position succeeded")
	}
	r, err := text.Range(7, 12, UTF16)
	if err != nil || r != (Range{Position{1, 0}, Position{1, 3}}) {
		t.Errorf("Range(7, 12) = %v, %v", r, err)
	}
	if s, e, err := text.OffsetRange(r, UTF16); s != 7 || e != 12 || err != nil {
		t.Errorf("OffsetRange(%v) = %d, %d, %v", r, s, e, err)
	}
	if _, _, err := text.OffsetRange(Range{Position{1, 0}, Position{0, 0}}, UTF16); err == nil {
		t.Error("a range ending before its start succeeded")
	}
	for _, s := range []string{"", "a\n", "\r\n\r\n", "\n\r"} {
		text := NewText([]byte(s))
		if p, err := text.Position(len(s), UTF16); err != nil || p.Character != 0 || p.Line != strings.Count(strings.ReplaceAll(s, "\r\n", "\n"), "\n")+strings.Count(strings.ReplaceAll(s, "\r\n", ""), "\r") {
			t.Errorf("%q: the end is at %v, %v", s, p, err)
		}
	}
}

// TestPositionsAgainstUTF16 checks every character boundary of random
// texts against the standard library's UTF-16 encoder, and the round trip.
func TestPositionsAgainstUTF16(t *testing.T) {
	t.Parallel()
	pieces := []string{"a", "Z", " ", "\t", "日", "本", "é", "e\u0301", "🍕", "👩‍👩‍👧", "\U0001F1EB\U0001F1F7", "\n", "\r\n", "\r", "\xff", "\xe6\x97"}
	rnd := rand.New(rand.NewPCG(1, 2))
	for range 300 {
		var b strings.Builder
		for range rnd.IntN(40) {
			b.WriteString(pieces[rnd.IntN(len(pieces))])
		}
		s := b.String()
		text := NewText([]byte(s))
		line, lineStart := 0, 0
		for off := 0; off <= len(s); {
			prefix := s[lineStart:off]
			want := map[Encoding]int{UTF8: len(prefix), UTF16: len(utf16.Encode([]rune(prefix))), UTF32: utf8.RuneCountInString(prefix)}
			for enc, char := range want {
				p, err := text.Position(off, enc)
				if err != nil || p != (Position{line, char}) {
					t.Fatalf("%q: Position(%d, %s) = %v, %v; want %d:%d", s, off, enc, p, err, line, char)
				}
				if back, err := text.Offset(p, enc); err != nil || back != off {
					t.Fatalf("%q: Offset(%v, %s) = %d, %v; want %d", s, p, enc, back, err, off)
				}
			}
			if off == len(s) {
				break
			}
			switch {
			case strings.HasPrefix(s[off:], "\r\n"):
				off += 2
			case s[off] == '\n' || s[off] == '\r':
				off++
			default:
				_, size := utf8.DecodeRuneInString(s[off:])
				off += size
				continue
			}
			line, lineStart = line+1, off
		}
	}
}

func TestURIs(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("Unix paths")
	}
	for _, tc := range []struct{ path, uri string }{
		{"/a/b.go", "file:///a/b.go"},
		{"/a b/c#d?e%f/日本.go", "file:///a%20b/c%23d%3Fe%25f/%E6%97%A5%E6%9C%AC.go"},
		{"/x/a:b@c+d.go", "file:///x/a:b@c+d.go"},
	} {
		if got := URIFromPath(tc.path); got != tc.uri {
			t.Errorf("URIFromPath(%q) = %q, want %q", tc.path, got, tc.uri)
		}
		if got, err := PathFromURI(tc.uri); err != nil || got != tc.path {
			t.Errorf("PathFromURI(%q) = %q, %v", tc.uri, got, err)
		}
	}
	// Other spellings of the same file, as servers write them.
	for uri, want := range map[string]string{
		"file:///x/a%3Ab%40c%2Bd.go":       "/x/a:b@c+d.go",
		"file://localhost/x/y.go":          "/x/y.go",
		"file:///a%20b/%e6%97%a5%e6%9c%ac": "/a b/日本",
	} {
		if got, err := PathFromURI(uri); err != nil || got != want {
			t.Errorf("PathFromURI(%q) = %q, %v; want %q", uri, got, err, want)
		}
	}
	for _, uri := range []string{"untitled:Untitled-1", "https://example.com/a.go", "file://server/share/a.go", "file:///%zz"} {
		if got, err := PathFromURI(uri); err == nil {
			t.Errorf("PathFromURI(%q) = %q, want an error", uri, got)
		}
	}
}

func TestFileEdits(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		"/w/a.go": "héllo wörld\n🍕 pizza\n",
		"/w/b.go": "x\r\ny\r\n",
	}
	read := func(path string) ([]byte, error) {
		if s, ok := files[path]; ok {
			return []byte(s), nil
		}
		return nil, fs.ErrNotExist
	}
	edit := func(l1, c1, l2, c2 int, s string) TextEdit {
		return TextEdit{Range{Position{l1, c1}, Position{l2, c2}}, s}
	}
	apply := func(t *testing.T, w *WorkspaceEdit, enc Encoding) map[string]string {
		t.Helper()
		fes, err := w.FileEdits(read, enc)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, fe := range fes {
			out[fe.Path] = string(Apply([]byte(files[fe.Path]), fe.Edits))
		}
		return out
	}
	want := map[string]string{"/w/a.go": "héllo world\n🍕 pie\n", "/w/b.go": "AB x!\r\nz\r\n"}

	// The changes form, edits out of order; two inserts at one place
	// keep theirs; a character past the line's end is its end.
	w := &WorkspaceEdit{Changes: map[string][]TextEdit{
		"file:///w/b.go": {edit(1, 0, 1, 1, "z"), edit(0, 0, 0, 0, "A"), edit(0, 0, 0, 0, "B "), edit(0, 9, 0, 9, "!")},
		"file:///w/a.go": {edit(1, 3, 1, 8, "pie"), edit(0, 6, 0, 11, "world")},
	}}
	if got := apply(t, w, UTF16); !reflect.DeepEqual(got, want) {
		t.Errorf("changes, UTF-16: %q", got)
	}
	fes, _ := w.FileEdits(read, UTF16)
	if len(fes) != 2 || fes[0].Path != "/w/a.go" || fes[0].Version != nil ||
		!reflect.DeepEqual(fes[0].Edits, []ByteEdit{{7, 13, "world"}, {19, 24, "pie"}}) {
		t.Errorf("FileEdits = %+v", fes)
	}

	// The same edits counted in UTF-8, in the documentChanges form, with
	// versions; the changes form beside it is ignored.
	v := int32(7)
	var dc1, dc2 TextDocumentEdit
	dc1.TextDocument.URI, dc1.TextDocument.Version = "file:///w/a.go", &v
	dc1.Edits = []TextEdit{edit(0, 7, 0, 13, "world"), edit(1, 5, 1, 10, "pie")}
	dc2.TextDocument.URI = "file:///w/b.go"
	dc2.Edits = []TextEdit{edit(0, 0, 0, 0, "A"), edit(0, 0, 0, 0, "B "), edit(0, 1, 0, 1, "!"), edit(1, 0, 1, 1, "z")}
	w = &WorkspaceEdit{DocumentChanges: []TextDocumentEdit{dc1, dc2}, Changes: map[string][]TextEdit{"file:///w/a.go": {edit(0, 0, 0, 1, "no")}}}
	if got := apply(t, w, UTF8); !reflect.DeepEqual(got, want) {
		t.Errorf("documentChanges, UTF-8: %q", got)
	}
	if fes, _ := w.FileEdits(read, UTF8); *fes[0].Version != 7 || fes[1].Version != nil {
		t.Errorf("versions: %v, %v", fes[0].Version, fes[1].Version)
	}

	for name, tc := range map[string]struct {
		w   WorkspaceEdit
		err string
	}{
		"overlap":          {WorkspaceEdit{Changes: map[string][]TextEdit{"file:///w/a.go": {edit(0, 0, 0, 3, "a"), edit(0, 2, 0, 4, "b")}}}, "overlap"},
		"inside the emoji": {WorkspaceEdit{Changes: map[string][]TextEdit{"file:///w/a.go": {edit(1, 1, 1, 2, "a")}}}, "inside a character"},
		"not a file":       {WorkspaceEdit{Changes: map[string][]TextEdit{"untitled:1": {edit(0, 0, 0, 0, "a")}}}, "does not name a local file"},
		"missing":          {WorkspaceEdit{Changes: map[string][]TextEdit{"file:///w/c.go": {edit(0, 0, 0, 0, "a")}}}, "not exist"},
		"file operation":   {WorkspaceEdit{DocumentChanges: []TextDocumentEdit{dc1}, ResourceOperations: []ResourceOperation{{Kind: "create", URI: "file:///w/new.go"}}}, "would create file:///w/new.go"},
		"one file twice":   {WorkspaceEdit{DocumentChanges: []TextDocumentEdit{dc1, dc1}}, "in two steps"},
	} {
		if _, err := tc.w.FileEdits(read, UTF16); err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%s: %v, want %q", name, err, tc.err)
		}
	}
	if _, err := (&WorkspaceEdit{Changes: map[string][]TextEdit{"file:///w/c.go": nil}}).FileEdits(read, UTF16); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a read error is not passed on: %v", err)
	}
}

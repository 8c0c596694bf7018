package lsp

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"unicode/utf8"
)

// Encoding is the unit a Position's Character counts, as negotiated with
// the server (the PositionEncodingKind of LSP 3.17).
type Encoding string

// The position encodings. UTF16 is LSP's default and the one every server
// supports; a Client offers UTF8 too and uses it when the server agrees.
const (
	UTF8  Encoding = "utf-8"
	UTF16 Encoding = "utf-16"
	UTF32 Encoding = "utf-32"
)

// units is how many code units of enc the rune r, encoded in n bytes,
// takes. A byte that is not valid UTF-8 (r is RuneError, n is 1) counts as
// one unit in every encoding, as it does once decoded to U+FFFD.
func (enc Encoding) units(r rune, n int) int {
	switch enc {
	case UTF8:
		return n
	case UTF32:
		return 1
	default:
		if r >= 0x10000 {
			return 2
		}
		return 1
	}
}

// Text is a document's content indexed by line, for converting between
// byte offsets and positions. Lines end at "\n", "\r\n" or "\r", as LSP
// says. A Text does not change; it is safe for concurrent use.
type Text struct {
	content []byte
	starts  []int // the offset each line starts at
}

// NewText indexes content, which it keeps (without copying).
func NewText(content []byte) *Text {
	t := &Text{content: content, starts: []int{0}}
	for i := 0; i < len(content); i++ {
		switch content[i] {
		case '\n':
			t.starts = append(t.starts, i+1)
		case '\r':
			if i+1 < len(content) && content[i+1] == '\n' {
				i++
			}
			t.starts = append(t.starts, i+1)
		}
	}
	return t
}

// Content is the indexed content.
func (t *Text) Content() []byte { return t.content }

// lineEnd is the offset where line's content ends, before its line break.
func (t *Text) lineEnd(line int) int {
	if line+1 == len(t.starts) {
		return len(t.content)
	}
	end := t.starts[line+1] - 1
	if end > t.starts[line] && t.content[end] == '\n' && t.content[end-1] == '\r' {
		end--
	}
	return end
}

// Offset is the byte offset of p, whose Character counts units of enc.
// As LSP says, a Character past the end of its line means the line's end;
// a Line past the last line means the end of the content, as editors take
// it. A position inside a character (between the two UTF-16 units of an
// emoji, or inside a UTF-8 sequence) is an error.
func (t *Text) Offset(p Position, enc Encoding) (int, error) {
	if p.Line < 0 || p.Character < 0 {
		return 0, fmt.Errorf("lsp: negative position %d:%d", p.Line, p.Character)
	}
	if p.Line >= len(t.starts) {
		return len(t.content), nil
	}
	off, end := t.starts[p.Line], t.lineEnd(p.Line)
	for n := 0; n < p.Character; {
		if off >= end {
			return end, nil
		}
		r, size := utf8.DecodeRune(t.content[off:end])
		n += enc.units(r, size)
		if n > p.Character {
			return 0, fmt.Errorf("lsp: position %d:%d (%s) is inside a character", p.Line, p.Character, enc)
		}
		off += size
	}
	return off, nil
}

// Position is the position of the byte offset off, counting enc's units.
// An offset past the content, inside a UTF-8 sequence or inside a line
// break is an error.
func (t *Text) Position(off int, enc Encoding) (Position, error) {
	if off < 0 || off > len(t.content) {
		return Position{}, fmt.Errorf("lsp: offset %d outside the text's %d bytes", off, len(t.content))
	}
	line, _ := slices.BinarySearch(t.starts, off+1)
	line-- // the last line starting at or before off
	if off > t.lineEnd(line) {
		return Position{}, fmt.Errorf("lsp: offset %d is inside a line break", off)
	}
	char, end := 0, t.lineEnd(line)
	for i := t.starts[line]; i < off; {
		r, size := utf8.DecodeRune(t.content[i:end])
		if i+size > off {
			return Position{}, fmt.Errorf("lsp: offset %d is inside a character", off)
		}
		char += enc.units(r, size)
		i += size
	}
	return Position{Line: line, Character: char}, nil
}

// OffsetRange is the byte offsets of r's start and end.
func (t *Text) OffsetRange(r Range, enc Encoding) (start, end int, err error) {
	if start, err = t.Offset(r.Start, enc); err != nil {
		return 0, 0, err
	}
	if end, err = t.Offset(r.End, enc); err != nil {
		return 0, 0, err
	}
	if end < start {
		return 0, 0, fmt.Errorf("lsp: range %v ends before it starts", r)
	}
	return start, end, nil
}

// Range is the range from byte offset start to end.
func (t *Text) Range(start, end int, enc Encoding) (Range, error) {
	s, err := t.Position(start, enc)
	if err != nil {
		return Range{}, err
	}
	e, err := t.Position(end, enc)
	if err != nil {
		return Range{}, err
	}
	return Range{Start: s, End: e}, nil
}

// URIFromPath is the file URI of an absolute path, its characters
// percent-encoded as RFC 3986 requires ("file:///a/b%20c.go";
// "file:///C:/x.go" on Windows).
func URIFromPath(path string) string {
	p := filepath.ToSlash(path)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // a Windows drive letter
	}
	return (&url.URL{Scheme: "file", Path: p}).String()
}

// PathFromURI is the file path of a file URI, whatever its
// percent-encoding: the inverse of URIFromPath, and a way to compare URIs
// servers spell differently ("file:///a/b%3A.go" and "file:///a/b:.go").
func PathFromURI(uri string) (string, error) {
	u, err := url.Parse(uri)
	if err != nil {
		return "", fmt.Errorf("lsp: URI %q: %w", uri, err)
	}
	if u.Scheme != "file" || (u.Host != "" && u.Host != "localhost") {
		return "", fmt.Errorf("lsp: URI %q does not name a local file", uri)
	}
	p := u.Path
	if runtime.GOOS == "windows" && len(p) >= 3 && p[0] == '/' && p[2] == ':' {
		p = p[1:]
	}
	return filepath.FromSlash(p), nil
}

// uriKey is the form of a URI this package compares: the path of a file
// URI, the URI itself otherwise.
func uriKey(uri string) string {
	if p, err := PathFromURI(uri); err == nil {
		return p
	}
	return uri
}

// ByteEdit replaces the bytes [Start, End) of a file with NewText.
type ByteEdit struct {
	Start, End int
	NewText    string
}

// FileEdit is what a WorkspaceEdit changes in one file.
type FileEdit struct {
	URI  string
	Path string
	// Version is the document version the edits were computed for, when
	// the server said (documentChanges form); nil: whatever is on disk.
	// The caller should refuse the edit when its open document has moved on.
	Version *int32
	// Edits are sorted by Start and do not overlap; inserts at one offset
	// keep the server's order.
	Edits []ByteEdit
}

// FileEdits turns w into each file's edits as byte offsets, converting
// positions counted in enc with the content read returns for a path (the
// text the server computed the edits on: the open document's, or the
// file's). Files come in the order the server named them (sorted by URI
// for the changes form). It is an error when w creates, renames or
// deletes files (a Client does not offer resource operations), edits one
// file in two entries, has overlapping edits, or names a position that is
// inside a character.
func (w *WorkspaceEdit) FileEdits(read func(path string) ([]byte, error), enc Encoding) ([]FileEdit, error) {
	if len(w.ResourceOperations) > 0 {
		op := w.ResourceOperations[0]
		return nil, fmt.Errorf("lsp: the edit would %s %s, and file operations are not supported", op.Kind, cmp.Or(op.URI, op.OldURI))
	}
	type entry struct {
		uri     string
		version *int32
		edits   []TextEdit
	}
	var entries []entry
	if len(w.DocumentChanges) > 0 {
		for _, dc := range w.DocumentChanges {
			entries = append(entries, entry{dc.TextDocument.URI, dc.TextDocument.Version, dc.Edits})
		}
	} else {
		for _, uri := range slices.Sorted(maps.Keys(w.Changes)) {
			entries = append(entries, entry{uri: uri, edits: w.Changes[uri]})
		}
	}
	seen := map[string]bool{}
	var out []FileEdit
	for _, e := range entries {
		path, err := PathFromURI(e.uri)
		if err != nil {
			return nil, err
		}
		if seen[path] {
			return nil, fmt.Errorf("lsp: the edit changes %s in two steps, which is not supported", path)
		}
		seen[path] = true
		content, err := read(path)
		if err != nil {
			return nil, err
		}
		edits, err := ByteEdits(NewText(content), e.edits, enc)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		out = append(out, FileEdit{URI: e.uri, Path: path, Version: e.version, Edits: edits})
	}
	return out, nil
}

// ByteEdits converts the edits of one document, positions counted in enc,
// to byte offsets in t, sorted by start (stably: inserts at one offset
// keep their order). Overlapping edits are an error, as LSP forbids them.
func ByteEdits(t *Text, edits []TextEdit, enc Encoding) ([]ByteEdit, error) {
	out := make([]ByteEdit, 0, len(edits))
	for _, e := range edits {
		start, end, err := t.OffsetRange(e.Range, enc)
		if err != nil {
			return nil, err
		}
		out = append(out, ByteEdit{Start: start, End: end, NewText: e.NewText})
	}
	slices.SortStableFunc(out, func(a, b ByteEdit) int { return cmp.Compare(a.Start, b.Start) })
	for i := 1; i < len(out); i++ {
		if out[i].Start < out[i-1].End {
			return nil, errors.New("lsp: the edits overlap")
		}
	}
	return out, nil
}

// Apply returns content with edits (sorted, not overlapping, as ByteEdits
// returns them) applied.
func Apply(content []byte, edits []ByteEdit) []byte {
	var b strings.Builder
	last := 0
	for _, e := range edits {
		b.Write(content[last:e.Start])
		b.WriteString(e.NewText)
		last = e.End
	}
	b.Write(content[last:])
	return []byte(b.String())
}

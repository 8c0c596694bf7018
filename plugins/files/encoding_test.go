package files_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ramabana/ramabana-mcp/sdk/sdktest"
)

// utf16LE and utf16BE encode s by hand as UTF-16 with its byte order
// mark, so that the files on disk do not come from the code under test.
func utf16LE(s string) string { return "\xFF\xFE" + utf16Units(s, false) }
func utf16BE(s string) string { return "\xFE\xFF" + utf16Units(s, true) }

func utf16Units(s string, bigEndian bool) string {
	var b []byte
	put := func(u uint16) {
		if bigEndian {
			b = append(b, byte(u>>8), byte(u))
		} else {
			b = append(b, byte(u), byte(u>>8))
		}
	}
	for _, r := range s {
		if r >= 0x10000 {
			r -= 0x10000
			put(uint16(0xD800 + r>>10))
			put(uint16(0xDC00 + r&0x3FF))
			continue
		}
		put(uint16(r))
	}
	return string(b)
}

// encodingNote is view_file's first line for a converted file.
func encodingNote(enc string) string {
	return "(encoding " + enc + ", shown as UTF-8; edits are written back in " + enc + ")\n"
}

// encoded is one file in each encoding the tools read, holding the same
// text: "café €" (no € in ISO-8859-1: "café ¤") and "“ok”" on two lines.
var encoded = map[string]struct {
	enc   string // "" for UTF-8: no note
	data  string // the bytes on disk
	lines []string
}{
	"utf-8":        {"", "café €\n“ok”\n", []string{"café €", "“ok”"}},
	"utf-8 bom":    {"", "\xEF\xBB\xBFcafé €\n“ok”\n", []string{"café €", "“ok”"}},
	"utf-16le":     {"UTF-16LE", utf16LE("café €\r\n“ok”\r\n"), []string{"café €", "“ok”"}},
	"utf-16be":     {"UTF-16BE", utf16BE("café €\n“ok”"), []string{"café €", "“ok”"}},
	"windows-1252": {"windows-1252", "caf\xE9 \x80\r\n\x93ok\x94\r\n", []string{"café €", "“ok”"}},
	"iso-8859-1":   {"ISO-8859-1", "caf\xE9 \xA4\n\x81ok\x81\n", []string{"café ¤", "\u0081ok\u0081"}},
	"utf-16le + 😀": {"UTF-16LE", utf16LE("café €\n😀\n"), []string{"café €", "😀"}},
}

func TestViewEncodings(t *testing.T) {
	t.Parallel()
	for name, tc := range encoded {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, map[string]string{"f.txt": tc.data}, false)
			got, isErr := e.call(t, "view_file", map[string]any{"path": "f.txt"})
			want := lines(1, tc.lines...)
			if tc.enc != "" {
				want = encodingNote(tc.enc) + want
			}
			if isErr {
				t.Fatalf("view_file: %s", got)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("view_file (-want +got):\n%s", diff)
			}
		})
	}
}

func TestBinaryStillRefused(t *testing.T) {
	t.Parallel()
	for name, data := range map[string]string{
		"nul byte":                  "abc\x00def",
		"utf-16 without a bom":      utf16Units("hello\n", false),
		"control byte, not utf-8":   "caf\xE9\x02\n",
		"utf-16 with a lone half":   "\xFF\xFE\x00\xD8a\x00",
		"utf-16 with an odd length": "\xFE\xFF\x00a\x00",
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, map[string]string{"f.bin": data}, false)
			before := snap(t, e.path("f.bin"))
			for _, call := range []struct {
				tool string
				args map[string]any
			}{
				{"view_file", map[string]any{"path": "f.bin"}},
				{"replace_text", map[string]any{"path": "f.bin", "old": "a", "new": "b"}},
				{"edit_file", map[string]any{"path": "f.bin", "edits": []map[string]any{ed("insert_after", 0, "", "text", "x")}}},
			} {
				got, isErr := e.call(t, call.tool, call.args)
				sdktest.Outcome(t, got, isErr, "f.bin is a binary file")
			}
			if diff := cmp.Diff(before, snap(t, e.path("f.bin"))); diff != "" {
				t.Errorf("file changed (-before +after):\n%s", diff)
			}
		})
	}
}

// TestEditEncodings edits a file in each encoding through edit_file and
// replace_text, with anchors from view_file, and checks the bytes on disk:
// the file keeps its encoding, byte order mark and line endings.
func TestEditEncodings(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		data string
		// edit replaces line 2 with "naïve" and inserts "top" before line 1;
		// replace turns "caf" into "CAF".
		afterEdit, afterReplace string
	}{
		"utf-8": {"café €\n“ok”\n",
			"top\ncafé €\nnaïve\n", "CAFé €\n“ok”\n"},
		"utf-8 bom": {"\xEF\xBB\xBFcafé €\n“ok”\n",
			"\xEF\xBB\xBFtop\ncafé €\nnaïve\n", "\xEF\xBB\xBFCAFé €\n“ok”\n"},
		"utf-16le crlf": {utf16LE("café €\r\n“ok”\r\n"),
			utf16LE("top\r\ncafé €\r\nnaïve\r\n"), utf16LE("CAFé €\r\n“ok”\r\n")},
		"utf-16be no final newline": {utf16BE("café €\n“ok”"),
			utf16BE("top\ncafé €\nnaïve"), utf16BE("CAFé €\n“ok”")},
		"windows-1252 crlf": {"caf\xE9 \x80\r\n\x93ok\x94\r\n",
			"top\r\ncaf\xE9 \x80\r\nna\xEFve\r\n", "CAF\xE9 \x80\r\n\x93ok\x94\r\n"},
		"iso-8859-1": {"caf\xE9 \xA4\n\x81ok\x81\n",
			"top\ncaf\xE9 \xA4\nna\xEFve\n", "CAF\xE9 \xA4\n\x81ok\x81\n"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, map[string]string{"e.txt": tc.data, "r.txt": tc.data}, false)
			// The anchors come from view_file's own output.
			view, isErr := e.call(t, "view_file", map[string]any{"path": "e.txt"})
			if isErr {
				t.Fatalf("view_file: %s", view)
			}
			var hash2 string
			for l := range strings.Lines(view) {
				if rest, ok := strings.CutPrefix(l, "2|"); ok {
					hash2 = rest[:4]
				}
			}
			got, isErr := e.call(t, "edit_file", map[string]any{"path": "e.txt", "edits": []map[string]any{
				ed("replace", 2, hash2, "text", "naïve"),
				ed("insert_after", 0, "", "text", "top"),
			}})
			if isErr {
				t.Fatalf("edit_file: %s", got)
			}
			if got := readString(t, e.path("e.txt")); got != tc.afterEdit {
				t.Errorf("after edit_file: %q, want %q", got, tc.afterEdit)
			}
			got, isErr = e.call(t, "replace_text", map[string]any{"path": "r.txt", "old": "caf", "new": "CAF"})
			if isErr {
				t.Fatalf("replace_text: %s", got)
			}
			if got := readString(t, e.path("r.txt")); got != tc.afterReplace {
				t.Errorf("after replace_text: %q, want %q", got, tc.afterReplace)
			}
		})
	}
}

// TestUnencodable checks that a character the file's encoding cannot
// hold is refused, named with its line, and that nothing is written.
func TestUnencodable(t *testing.T) {
	t.Parallel()
	const latin1 = "caf\xE9\nline two\n"
	tests := map[string]struct {
		tool string
		args map[string]any
		want string
	}{
		"edit_file": {"edit_file", map[string]any{"path": "f.txt", "edits": []map[string]any{
			ed("insert_after", 1, h("café"), "text", "ok\n5 €")}},
			"edit_file changed nothing: f.txt is ISO-8859-1 text, which cannot hold '€' (U+20AC), on line 3 of the new content; use characters ISO-8859-1 has, or rewrite the file as UTF-8 with create_file"},
		"replace_text": {"replace_text", map[string]any{"path": "f.txt", "old": "two", "new": "二"},
			"replace_text changed nothing: f.txt is ISO-8859-1 text, which cannot hold '二' (U+4E8C), on line 2 of the new content"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			// 0x81 makes it ISO-8859-1 rather than windows-1252.
			e := newEnv(t, map[string]string{"f.txt": latin1 + "\x81\n"}, false)
			before := snap(t, e.path("f.txt"))
			got, isErr := e.call(t, tc.tool, tc.args)
			sdktest.Outcome(t, got, isErr, tc.want)
			if diff := cmp.Diff(before, snap(t, e.path("f.txt"))); diff != "" {
				t.Errorf("file changed (-before +after):\n%s", diff)
			}
			noTempFiles(t, e.dir)
		})
	}
}

// TestCreateOverwritesEncoded checks create_file's documented choice: the
// content is the whole file and is written as given, in UTF-8, and the
// result says the encoding changed.
func TestCreateOverwritesEncoded(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		data, note string
	}{
		"windows-1252": {"caf\xE9\n", "; the old file was windows-1252 text, and the new content is written as UTF-8, as given"},
		"utf-16le":     {utf16LE("café\n"), "; the old file was UTF-16LE text, and the new content is written as UTF-8, as given"},
		"utf-8":        {"café\n", ""},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, map[string]string{"f.txt": tc.data}, false)
			got, isErr := e.call(t, "create_file", map[string]any{"path": "f.txt", "content": "café\n", "overwrite": true})
			if isErr {
				t.Fatalf("create_file: %s", got)
			}
			if want := "overwrote f.txt (6 bytes, 1 line)" + tc.note; got != want {
				t.Errorf("result %q, want %q", got, want)
			}
			if got := readString(t, e.path("f.txt")); got != "café\n" {
				t.Errorf("file = %q", got)
			}
		})
	}
}

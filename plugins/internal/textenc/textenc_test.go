package textenc_test

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ramabana/ramabana-mcp/plugins/internal/textenc"
)

// utf16le and utf16be encode s by hand, without a BOM, so that the tests
// do not check the package against itself.
func utf16le(s string) string { return utf16(s, false) }
func utf16be(s string) string { return utf16(s, true) }

func utf16(s string, bigEndian bool) string {
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

func TestDetectDecode(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		data string
		enc  textenc.Encoding
		text string // decoded; ignored for binary
		bin  bool
	}{
		"empty":                   {"", textenc.UTF8, "", false},
		"ascii":                   {"a\nb\n", textenc.UTF8, "a\nb\n", false},
		"utf-8":                   {"naïve ✓\r\n", textenc.UTF8, "naïve ✓\r\n", false},
		"utf-8 bom":               {"\xEF\xBB\xBFhé\n", textenc.UTF8BOM, "hé\n", false},
		"utf-8 bom alone":         {"\xEF\xBB\xBF", textenc.UTF8BOM, "", false},
		"utf-16le":                {"\xFF\xFE" + utf16le("hé €\r\n😀\n"), textenc.UTF16LE, "hé €\r\n😀\n", false},
		"utf-16be":                {"\xFE\xFF" + utf16be("hé €\n😀"), textenc.UTF16BE, "hé €\n😀", false},
		"utf-16le bom alone":      {"\xFF\xFE", textenc.UTF16LE, "", false},
		"windows-1252":            {"caf\xE9 \x80 \x93quoted\x94\r\n", textenc.Windows1252, "café € “quoted”\r\n", false},
		"windows-1252 sub at end": {"caf\xE9\x1A", textenc.Windows1252, "café\x1A", false},
		"iso-8859-1 by 0x81":      {"caf\xE9 \x81\n", textenc.Latin1, "café \u0081\n", false},
		"iso-8859-1 by 0x9d":      {"\x80\x9D\xFF", textenc.Latin1, "\u0080\u009Dÿ", false},
		"latin-1 é at the end":    {"caf\xE9", textenc.Windows1252, "café", false},
		"nul byte":                {"a\x00b", 0, "", true},
		"nul in invalid utf-8":    {"\xE9\x00", 0, "", true},
		"utf-16 without bom":      {utf16le("hello"), 0, "", true},
		"control byte in legacy":  {"caf\xE9\x01", 0, "", true},
		"utf-8 bom then invalid":  {"\xEF\xBB\xBFcaf\xE9", 0, "", true},
		"utf-8 bom then nul":      {"\xEF\xBB\xBFa\x00", 0, "", true},
		"utf-16 odd length":       {"\xFF\xFEa\x00b", 0, "", true},
		"utf-16 lone high":        {"\xFF\xFE" + utf16le("a") + "\x00\xD8", 0, "", true},
		"utf-16 lone low":         {"\xFF\xFE\x00\xDC" + utf16le("a"), 0, "", true},
		"utf-16 high then ascii":  {"\xFF\xFE\x00\xD8" + utf16le("a"), 0, "", true},
		"utf-16 nul character":    {"\xFE\xFF" + utf16be("a\x00"), 0, "", true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			enc, err := textenc.Detect([]byte(tc.data))
			if tc.bin {
				if !errors.Is(err, textenc.ErrBinary) {
					t.Fatalf("Detect(%q) = %v, %v; want ErrBinary", tc.data, enc, err)
				}
				return
			}
			if err != nil || enc != tc.enc {
				t.Fatalf("Detect(%q) = %v, %v; want %v", tc.data, enc, err, tc.enc)
			}
			text, err := enc.Decode([]byte(tc.data))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.text, string(text)); diff != "" {
				t.Errorf("Decode (-want +got):\n%s", diff)
			}
			back, err := enc.Encode(string(text))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(back, []byte(tc.data)) {
				t.Errorf("Encode(Decode(%q)) = %q", tc.data, back)
			}
			r, err := io.ReadAll(enc.NewReader(strings.NewReader(tc.data)))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.text, string(r)); diff != "" {
				t.Errorf("NewReader (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSniff(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		sample string
		more   bool
		enc    textenc.Encoding
		bin    bool
	}{
		"utf-8 cut inside a character":     {"ab\xE2\x9C", true, textenc.UTF8, false},
		"utf-8 cut, but that is all":       {"ab\xE2\x9C", false, textenc.Windows1252, false},
		"utf-8 bom cut inside a character": {"\xEF\xBB\xBFab\xC3", true, textenc.UTF8BOM, false},
		"invalid before the cut":           {"caf\xE9 ab\xE2\x9C", true, textenc.Windows1252, false},
		"utf-16 cut inside a unit":         {"\xFF\xFEa\x00b", true, textenc.UTF16LE, false},
		"utf-16 cut inside a pair":         {"\xFF\xFEa\x00\x3D\xD8", true, textenc.UTF16LE, false},
		"utf-16 cut inside a pair, all":    {"\xFF\xFEa\x00\x3D\xD8", false, 0, true},
		"nul":                              {"ab\x00", true, 0, true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			enc, err := textenc.Sniff([]byte(tc.sample), tc.more)
			if tc.bin {
				if !errors.Is(err, textenc.ErrBinary) {
					t.Errorf("Sniff(%q, %v) = %v, %v; want ErrBinary", tc.sample, tc.more, enc, err)
				}
				return
			}
			if err != nil || enc != tc.enc {
				t.Errorf("Sniff(%q, %v) = %v, %v; want %v", tc.sample, tc.more, enc, err, tc.enc)
			}
		})
	}
}

// TestNULPastSniff checks that only the first SniffLen bytes are searched
// for NUL bytes, as the tools' binary check always did.
func TestNULPastSniff(t *testing.T) {
	t.Parallel()
	data := strings.Repeat("a", textenc.SniffLen) + "\x00"
	if enc, err := textenc.Detect([]byte(data)); err != nil || enc != textenc.UTF8 {
		t.Errorf("Detect = %v, %v; want UTF-8", enc, err)
	}
}

func TestEncodeUnencodable(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		enc  textenc.Encoding
		text string
		want string
	}{
		"euro in iso-8859-1":         {textenc.Latin1, "a\nb €\n", `line 2 holds '€' (U+20AC), which ISO-8859-1 cannot encode`},
		"cjk in windows-1252":        {textenc.Windows1252, "x\ny\nz 日本\n", `line 3 holds '日' (U+65E5), which windows-1252 cannot encode`},
		"c1 control in windows-1252": {textenc.Windows1252, "\u0081", `line 1 holds '\u0081' (U+0081), which windows-1252 cannot encode`},
		"replacement character":      {textenc.Latin1, "\uFFFD", `line 1 holds '�' (U+FFFD), which ISO-8859-1 cannot encode`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			out, err := tc.enc.Encode(tc.text)
			var ue *textenc.UnencodableError
			if !errors.As(err, &ue) {
				t.Fatalf("Encode(%q) = %q, %v; want an UnencodableError", tc.text, out, err)
			}
			if err.Error() != tc.want {
				t.Errorf("error %q, want %q", err, tc.want)
			}
		})
	}
}

func TestEncodeUnicode(t *testing.T) {
	t.Parallel()
	const text = "a €\r\n😀\n"
	for enc, want := range map[textenc.Encoding]string{
		textenc.UTF8:    text,
		textenc.UTF8BOM: "\xEF\xBB\xBF" + text,
		textenc.UTF16LE: "\xFF\xFE" + utf16le(text),
		textenc.UTF16BE: "\xFE\xFF" + utf16be(text),
	} {
		got, err := enc.Encode(text)
		if err != nil || string(got) != want {
			t.Errorf("%v: Encode = %q, %v; want %q", enc, got, err, want)
		}
	}
}

// FuzzRoundTrip checks, for any content, that Detect never panics and
// that content it accepts decodes to valid UTF-8 that encodes back to the
// very same bytes; and that the streaming reader agrees with Decode.
func FuzzRoundTrip(f *testing.F) {
	for _, s := range []string{"", "a\nb", "caf\xE9\x81", "\x80\x93", "\xEF\xBB\xBFx", "\xFF\xFE" + utf16le("hé😀"),
		"\xFE\xFF" + utf16be("x\r\n"), "\xFF\xFE\x00\xD8", "a\x00", "\x01\xE9"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		enc, err := textenc.Detect(data)
		if err != nil {
			return
		}
		text, err := enc.Decode(data)
		if err != nil {
			t.Fatalf("%v: Decode(%q): %v", enc, data, err)
		}
		if !utf8Valid(text) {
			t.Fatalf("%v: Decode(%q) = %q, not UTF-8", enc, data, text)
		}
		back, err := enc.Encode(string(text))
		if err != nil {
			t.Fatalf("%v: Encode(Decode(%q)): %v", enc, data, err)
		}
		if !bytes.Equal(back, data) {
			t.Fatalf("%v: Encode(Decode(%q)) = %q", enc, data, back)
		}
		streamed, err := io.ReadAll(enc.NewReader(bytes.NewReader(data)))
		if err != nil || !bytes.Equal(streamed, text) {
			t.Fatalf("%v: NewReader(%q) = %q, %v; Decode gave %q", enc, data, streamed, err, text)
		}
	})
}

func utf8Valid(b []byte) bool { return strings.ToValidUTF8(string(b), "") == string(b) }

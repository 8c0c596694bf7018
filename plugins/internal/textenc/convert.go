package textenc

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/unicode"
)

// UnencodableError is Encode's error for a character the encoding has no
// bytes for.
type UnencodableError struct {
	Encoding Encoding
	Rune     rune
	// Line is the 1-based line of the text that holds the character.
	Line int
}

func (e *UnencodableError) Error() string {
	return fmt.Sprintf("line %d holds %q (%U), which %s cannot encode", e.Line, e.Rune, e.Rune, e.Encoding)
}

// Decode returns data, the whole content of a file in encoding e, as UTF-8
// without its byte order mark. For UTF8 it is data itself, not a copy.
// Content Detect would refuse for e decodes with U+FFFD for what is
// malformed.
func (e Encoding) Decode(data []byte) ([]byte, error) {
	data = bytes.TrimPrefix(data, e.BOM())
	dec := e.decoder()
	if dec == nil {
		return data, nil
	}
	out, err := dec.Bytes(data)
	if err != nil {
		return nil, fmt.Errorf("decode %s: %w", e, err)
	}
	return out, nil
}

// Encode returns text, UTF-8 without a byte order mark, as the content of
// a file in encoding e, its byte order mark first. A character e cannot
// encode is an *UnencodableError naming the first such one.
func (e Encoding) Encode(text string) ([]byte, error) {
	bom := e.BOM()
	switch e {
	case UTF8, UTF8BOM:
		out := make([]byte, 0, len(bom)+len(text))
		return append(append(out, bom...), text...), nil
	case UTF16LE, UTF16BE:
		out, err := e.utf16().NewEncoder().Bytes([]byte(text))
		if err != nil {
			return nil, fmt.Errorf("encode %s: %w", e, err)
		}
		return append(bom, out...), nil
	}
	cm := e.charmap()
	out := make([]byte, 0, len(text))
	for i, r := range text {
		b, ok := cm.EncodeRune(r)
		if !ok || r == utf8.RuneError {
			return nil, &UnencodableError{Encoding: e, Rune: r, Line: 1 + strings.Count(text[:i], "\n")}
		}
		out = append(out, b)
	}
	return out, nil
}

// NewReader reads r, content in encoding e from its first byte (its byte
// order mark included), as UTF-8 without the mark. Malformed input reads
// as U+FFFD.
func (e Encoding) NewReader(r io.Reader) io.Reader {
	switch e {
	case UTF8:
		return r
	case UTF8BOM:
		return unicode.UTF8BOM.NewDecoder().Reader(r)
	case UTF16LE, UTF16BE:
		var order unicode.Endianness = unicode.LittleEndian
		if e == UTF16BE {
			order = unicode.BigEndian
		}
		// ExpectBOM reads the mark and drops it.
		return unicode.UTF16(order, unicode.ExpectBOM).NewDecoder().Reader(r)
	}
	return e.decoder().Reader(r)
}

// decoder is the decoder of e's content after its byte order mark, nil
// for UTF-8.
func (e Encoding) decoder() *encoding.Decoder {
	switch e {
	case UTF16LE, UTF16BE:
		return e.utf16().NewDecoder()
	case Windows1252, Latin1:
		return e.charmap().NewDecoder()
	}
	return nil
}

// utf16 is e without its byte order mark, which Decode and Encode handle.
func (e Encoding) utf16() encoding.Encoding {
	if e == UTF16BE {
		return unicode.UTF16(unicode.BigEndian, unicode.IgnoreBOM)
	}
	return unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM)
}

func (e Encoding) charmap() *charmap.Charmap {
	if e == Latin1 {
		return charmap.ISO8859_1
	}
	return charmap.Windows1252
}

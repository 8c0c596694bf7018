// Package textenc tells the text encodings the bundled groups read apart
// from binary content, and converts between them and UTF-8.
//
// A file is text in one of these encodings, decided by [Detect]:
//   - UTF-8, with or without a byte order mark (BOM);
//   - UTF-16, little or big endian, with a BOM (without one, its NUL bytes
//     make it binary);
//   - a single-byte legacy encoding, for content that is not valid UTF-8:
//     windows-1252, or ISO-8859-1 when the content holds a byte
//     windows-1252 leaves undefined (0x81 0x8D 0x8F 0x90 0x9D).
//
// Anything else (a NUL byte in the first [SniffLen] bytes without a UTF-16
// BOM, control bytes in legacy text, malformed UTF-16) is binary:
// [ErrBinary].
//
// The tools show and match text as UTF-8 ([Encoding.Decode]) and write it
// back in the file's own encoding, BOM included ([Encoding.Encode]). For
// content Detect accepts, decoding and encoding again gives the same bytes.
package textenc

import (
	"bytes"
	"errors"
	"unicode/utf8"
)

// Encoding is a text encoding a file was found in. The zero value is UTF8.
type Encoding uint8

// The encodings Detect tells apart.
const (
	UTF8 Encoding = iota
	// UTF8BOM is UTF-8 starting with the byte order mark EF BB BF.
	UTF8BOM
	// UTF16LE and UTF16BE start with their byte order mark, FF FE or FE FF.
	UTF16LE
	UTF16BE
	// Windows1252 is the Western European Windows code page (cp1252).
	Windows1252
	// Latin1 is ISO-8859-1: every byte is the code point of its value.
	Latin1
)

// String is the encoding's usual name: "UTF-8", "UTF-8 with BOM",
// "UTF-16LE", "UTF-16BE", "windows-1252", "ISO-8859-1".
func (e Encoding) String() string {
	switch e {
	case UTF8:
		return "UTF-8"
	case UTF8BOM:
		return "UTF-8 with BOM"
	case UTF16LE:
		return "UTF-16LE"
	case UTF16BE:
		return "UTF-16BE"
	case Windows1252:
		return "windows-1252"
	case Latin1:
		return "ISO-8859-1"
	}
	return "unknown encoding"
}

// Converted reports whether text in e is not UTF-8 as stored, so that the
// tools show and match it converted (a UTF-8 BOM is only left out).
func (e Encoding) Converted() bool { return e >= UTF16LE }

// BOM is the byte order mark e's content starts with; nil for none.
func (e Encoding) BOM() []byte {
	switch e {
	case UTF8BOM:
		return []byte(bomUTF8)
	case UTF16LE:
		return []byte(bomUTF16LE)
	case UTF16BE:
		return []byte(bomUTF16BE)
	}
	return nil
}

const (
	bomUTF8    = "\xEF\xBB\xBF"
	bomUTF16LE = "\xFF\xFE"
	bomUTF16BE = "\xFE\xFF"
)

// SniffLen is how much of the content is searched for NUL and control
// bytes: binary formats have them early.
const SniffLen = 8 << 10

// ErrBinary is Detect's error for content that is none of the encodings.
var ErrBinary = errors.New("binary content")

// Detect names the encoding of data, the whole content of a file, or
// fails with ErrBinary. Empty content is UTF8.
func Detect(data []byte) (Encoding, error) { return detect(data, false) }

// Sniff is Detect's judgement of sample, the first bytes of a longer
// content (more is true) or all of it (more is false): a character cut at
// the sample's end is not held against it. Whether legacy text is
// windows-1252 or ISO-8859-1 is judged from the sample alone.
func Sniff(sample []byte, more bool) (Encoding, error) { return detect(sample, more) }

func detect(data []byte, more bool) (Encoding, error) {
	switch {
	case bytes.HasPrefix(data, []byte(bomUTF8)):
		body := data[len(bomUTF8):]
		if hasNUL(head(body)) || !validUTF8(body, more) {
			return 0, ErrBinary
		}
		return UTF8BOM, nil
	case bytes.HasPrefix(data, []byte(bomUTF16LE)):
		return UTF16LE, checkUTF16(data[2:], false, more)
	case bytes.HasPrefix(data, []byte(bomUTF16BE)):
		return UTF16BE, checkUTF16(data[2:], true, more)
	}
	h := head(data)
	switch {
	case hasNUL(h):
		return 0, ErrBinary
	case validUTF8(data, more):
		return UTF8, nil
	case hasControl(h):
		return 0, ErrBinary
	case hasUndefined1252(data):
		return Latin1, nil
	}
	return Windows1252, nil
}

// hasUndefined1252 reports a byte windows-1252 maps to no character:
// 0x81, 0x8D, 0x8F, 0x90 or 0x9D.
func hasUndefined1252(b []byte) bool {
	for _, c := range b {
		switch c {
		case 0x81, 0x8D, 0x8F, 0x90, 0x9D:
			return true
		}
	}
	return false
}

func head(data []byte) []byte { return data[:min(len(data), SniffLen)] }

func hasNUL(b []byte) bool { return bytes.IndexByte(b, 0) >= 0 }

// hasControl reports C0 control bytes that text does not hold: all but
// tab, line feed, vertical tab, form feed, carriage return, SUB (0x1A, the
// DOS end of file) and escape.
func hasControl(b []byte) bool {
	for _, c := range b {
		if c < 0x20 && controlAllowed&(1<<c) == 0 {
			return true
		}
	}
	return false
}

const controlAllowed = 1<<'\t' | 1<<'\n' | 1<<'\v' | 1<<'\f' | 1<<'\r' | 1<<0x1A | 1<<0x1B

// validUTF8 is utf8.Valid, forgiving a character cut at the end when more
// content follows.
func validUTF8(b []byte, more bool) bool {
	if more {
		// Drop an incomplete last character: at most 3 bytes from a start.
		for i := len(b) - 1; i >= 0 && i >= len(b)-3; i-- {
			if utf8.RuneStart(b[i]) {
				if !utf8.FullRune(b[i:]) {
					b = b[:i]
				}
				break
			}
		}
	}
	return utf8.Valid(b)
}

// checkUTF16 checks b, UTF-16 after its BOM: whole code units, surrogates
// in pairs, no NUL character near the start. When more content follows,
// a unit or pair cut at the end is not held against it.
func checkUTF16(b []byte, bigEndian, more bool) error {
	if len(b)%2 == 1 && !more {
		return ErrBinary
	}
	unit := func(i int) uint16 {
		if bigEndian {
			return uint16(b[i])<<8 | uint16(b[i+1])
		}
		return uint16(b[i+1])<<8 | uint16(b[i])
	}
	n := len(b) &^ 1
	for i := 0; i < n; i += 2 {
		u := unit(i)
		switch {
		case u == 0 && i < SniffLen:
			return ErrBinary
		case u >= 0xDC00 && u <= 0xDFFF:
			return ErrBinary // a low surrogate without its high one
		case u >= 0xD800 && u <= 0xDBFF:
			if i+2 >= n {
				if more {
					return nil
				}
				return ErrBinary
			}
			if v := unit(i + 2); v < 0xDC00 || v > 0xDFFF {
				return ErrBinary
			}
			i += 2
		}
	}
	return nil
}

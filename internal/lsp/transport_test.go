package lsp

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

func TestReadFrame(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, in string
		max      int
		want     []string // bodies read before the error
		err      string   // "" for io.EOF
	}{
		{"two frames", "Content-Length: 2\r\n\r\n{}Content-Length: 4\r\n\r\nnull", 100, []string{"{}", "null"}, ""},
		{"any case, other headers, LF alone", "content-type: application/vscode-jsonrpc; charset=utf-8\ncontent-length:3\n\n[1]", 100, []string{"[1]"}, ""},
		{"repeated length", "Content-Length: 2\r\nContent-Length: 2\r\n\r\n{}", 100, []string{"{}"}, ""},
		{"empty body", "Content-Length: 0\r\n\r\n", 100, []string{""}, ""},
		{"at the limit", "Content-Length: 5\r\n\r\n12345", 5, []string{"12345"}, ""},
		{"over the limit", "Content-Length: 6\r\n\r\n123456", 5, nil, "lsp: frame too large: 6 bytes, the limit is 5"},
		{"huge length", "Content-Length: 99999999999999999999\r\n\r\n", 5, nil, "malformed Content-Length"},
		{"negative length", "Content-Length: -1\r\n\r\n", 5, nil, "malformed Content-Length"},
		{"no length", "Content-Type: x\r\n\r\n{}", 100, nil, "without Content-Length"},
		{"conflicting lengths", "Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}", 100, nil, "conflicting"},
		{"not a header", "hello\r\n\r\n", 100, nil, "malformed header line"},
		{"a body without header", "{\"jsonrpc\":\"2.0\"}\r\n\r\n", 100, nil, "without Content-Length"},
		{"empty header", "\r\n", 100, nil, "empty header"},
		{"long header line", "X: " + strings.Repeat("a", 2000) + "\r\n", 100, nil, "header line too long"},
		{"many header lines", strings.Repeat("X: y\r\n", 20), 100, nil, "too many lines"},
		{"cut in the header", "Content-Length: 2\r\n", 100, nil, "unexpected EOF"},
		{"cut in the body", "Content-Length: 5\r\n\r\nabc", 100, nil, "unexpected EOF"},
	} {
		r := bufio.NewReaderSize(strings.NewReader(tc.in), maxHeaderLine+16)
		var got []string
		var err error
		for {
			var body []byte
			if body, err = readFrame(r, tc.max); err != nil {
				break
			}
			got = append(got, string(body))
		}
		if strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("%s: read %q, want %q", tc.name, got, tc.want)
		}
		if tc.err == "" && err != io.EOF || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.err)
		}
	}
	_, err := readFrame(bufio.NewReader(strings.NewReader("Content-Length: 9\r\n\r\n")), 8)
	if !errors.Is(err, ErrFrameTooLarge) {
		t.Errorf("too large: %v does not wrap ErrFrameTooLarge", err)
	}
}

func TestWriteFrameRoundTrip(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	bodies := []string{`{"jsonrpc":"2.0","method":"x","params":"日本 🍕"}`, ``, `[]`}
	for _, b := range bodies {
		if err := writeFrame(&buf, []byte(b)); err != nil {
			t.Fatal(err)
		}
	}
	if !strings.HasPrefix(buf.String(), "Content-Length: 53\r\n\r\n{") {
		t.Errorf("frame %q", buf.String())
	}
	r := bufio.NewReader(&buf)
	for _, want := range bodies {
		got, err := readFrame(r, 1000)
		if err != nil || string(got) != want {
			t.Errorf("read back %q, %v; want %q", got, err, want)
		}
	}
}

package activity

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ramabana/ramabana-mcp/host/internal/pii"
)

// DefaultSummaryLen is the cap SummarizeArgs applies when given max <= 0.
const DefaultSummaryLen = 200

// maxStringRunes is where a string value is cut in a summary.
const maxStringRunes = 60

// bulkKeys are argument names whose values are file or code contents: a
// summary shows their size only.
var bulkKeys = map[string]bool{
	"content": true, "contents": true, "new": true, "old": true, "text": true,
	"source": true, "body": true, "data": true, "code": true, "patch": true,
	"diff": true, "lines": true, "stdin": true, "input": true,
	"replacement": true, "new_string": true, "old_string": true,
	"new_str": true, "old_str": true, "new_text": true, "old_text": true,
}

var errStop = errors.New("summary long enough")

// SummarizeArgs is a compact one-line summary of a call's JSON arguments,
// capped at max characters (runes; DefaultSummaryLen when max <= 0).
//
// An object's members are shown as key=value in their order; nested
// objects as {k=v ...} and arrays as [v, ...]. Strings are quoted, with
// newlines escaped, and cut after 60 characters with "…". The values of
// content-like keys (content, new, old, text, source, body, lines, patch
// and the like) are shown by size only, as content=<1.2 KB>. Empty or null
// arguments give "". Arguments that are not valid JSON are shown raw, on
// one line.
func SummarizeArgs(args json.RawMessage, max int) string {
	if max <= 0 {
		max = DefaultSummaryLen
	}
	trimmed := bytes.TrimSpace(args)
	switch string(trimmed) {
	case "", "null", "{}":
		return ""
	}
	s := summarizer{budget: 4*max + 16}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	dec.UseNumber()
	err := s.value(dec, true)
	if err == nil {
		if _, terr := dec.Token(); terr != io.EOF {
			err = errors.New("trailing data")
		}
	}
	if err != nil && !errors.Is(err, errStop) {
		return cutRunes(strings.Join(strings.Fields(string(trimmed)), " "), max)
	}
	return cutRunes(s.b.String(), max)
}

type summarizer struct {
	b      strings.Builder
	budget int
}

func (s *summarizer) write(str string) error {
	s.b.WriteString(str)
	if s.b.Len() > s.budget {
		return errStop
	}
	return nil
}

// value writes the next value; top is the outermost object, whose braces
// are left out.
func (s *summarizer) value(dec *json.Decoder, top bool) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch t := tok.(type) {
	case json.Delim:
		if t == '{' {
			return s.object(dec, top)
		}
		return s.array(dec)
	case string:
		return s.write(quoteCut(t))
	case json.Number:
		return s.write(t.String())
	case bool:
		return s.write(strconv.FormatBool(t))
	case nil:
		return s.write("null")
	}
	return fmt.Errorf("unexpected token %v", tok)
}

func (s *summarizer) object(dec *json.Decoder, top bool) error {
	if !top {
		if err := s.write("{"); err != nil {
			return err
		}
	}
	for i := 0; dec.More(); i++ {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		key, _ := tok.(string)
		sep := ""
		if i > 0 {
			sep = " "
		}
		if err := s.write(sep + displayKey(key) + "="); err != nil {
			return err
		}
		if bulkKeys[strings.ToLower(key)] {
			n, err := valueSize(dec)
			if err != nil {
				return err
			}
			if err := s.write("<" + formatSize(n) + ">"); err != nil {
				return err
			}
			continue
		}
		if err := s.value(dec, false); err != nil {
			return err
		}
	}
	if _, err := dec.Token(); err != nil { // '}'
		return err
	}
	if !top {
		return s.write("}")
	}
	return nil
}

func (s *summarizer) array(dec *json.Decoder) error {
	if err := s.write("["); err != nil {
		return err
	}
	for i := 0; dec.More(); i++ {
		if i > 0 {
			if err := s.write(", "); err != nil {
				return err
			}
		}
		if err := s.value(dec, false); err != nil {
			return err
		}
	}
	if _, err := dec.Token(); err != nil { // ']'
		return err
	}
	return s.write("]")
}

// valueSize consumes the next value and returns its size: the length of a
// string's text, the JSON length of anything else.
func valueSize(dec *json.Decoder) (int, error) {
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		return 0, err
	}
	if len(raw) > 0 && raw[0] == '"' {
		var str string
		if err := json.Unmarshal(raw, &str); err != nil {
			return 0, err
		}
		return len(str), nil
	}
	return len(raw), nil
}

func displayKey(k string) string {
	for _, r := range k {
		if r <= ' ' || r == '=' || r == '"' || r == 0x7f {
			return strconv.Quote(k)
		}
	}
	if k == "" {
		return `""`
	}
	return k
}

func quoteCut(s string) string {
	return strconv.Quote(cutRunes(s, maxStringRunes))
}

// cutRunes caps s at max runes, ending a cut string with "…". The cut
// never splits personal data (pii.Prefix): the feed holds the data as it
// is, which the outbound gate filters when it is shown.
func cutRunes(s string, max int) string {
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	if max <= 1 {
		return "…"
	}
	n := 0
	for i := range s {
		if n == max-1 {
			return pii.Prefix(s, i) + "…"
		}
		n++
	}
	return s
}

// formatSize is a byte count for people: 812 B, 1.2 KB, 3.4 MB.
func formatSize(n int) string {
	switch {
	case n < 1024:
		return strconv.Itoa(n) + " B"
	case n < 1024*1024:
		return strconv.FormatFloat(float64(n)/1024, 'f', 1, 64) + " KB"
	default:
		return strconv.FormatFloat(float64(n)/(1024*1024), 'f', 1, 64) + " MB"
	}
}

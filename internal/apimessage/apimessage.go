// Package apimessage reads the message out of an error answer of an
// OpenAI-compatible HTTP API (OpenAI, Ollama, llama.cpp, vLLM, LocalAI and
// the image servers that copy them), for errors a user or a model reads.
// The callers redact keys before they call it.
package apimessage

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

	"github.com/ramabana/ramabana-mcp/internal/textcut"
)

// Of is body's own message, from {"error": "..."}, {"error": {"message":
// "..."}}, {"message": "..."} or {"detail": "..."} (the first that holds
// one), else body's text; on one line, cut to at most n bytes at a
// character boundary with "…" after a cut. "" for an empty body.
func Of(body []byte, n int) string {
	var shapes struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  json.RawMessage `json:"detail"`
	}
	if json.Unmarshal(body, &shapes) != nil {
		return Excerpt(body, n)
	}
	var s string
	var obj struct {
		Message string `json:"message"`
	}
	switch {
	case json.Unmarshal(shapes.Error, &s) == nil && s != "":
	case json.Unmarshal(shapes.Error, &obj) == nil && obj.Message != "":
		s = obj.Message
	case shapes.Message != "":
		s = shapes.Message
	case json.Unmarshal(shapes.Detail, &s) == nil && s != "":
	default:
		return Excerpt(body, n)
	}
	return Excerpt([]byte(s), n)
}

// Status is an error answer of HTTP status code as a user reads it: the
// code and its text ("404 Not Found"), then ": " and body's own message
// (Of(body, n)) when body is not empty. A code without a standard text is
// the code alone.
func Status(code int, body []byte, n int) string {
	s := strconv.Itoa(code)
	if text := http.StatusText(code); text != "" {
		s += " " + text
	}
	if msg := Of(body, n); msg != "" {
		s += ": " + msg
	}
	return s
}

// Excerpt is b as one line (runs of white space made one space, invalid
// UTF-8 shown as "?"), cut to at most n bytes at a character boundary with
// "…" after a cut.
func Excerpt(b []byte, n int) string {
	// Enough for n bytes unless the body is mostly white space, without
	// reading all of a large one.
	head := textcut.Prefix(b, max(4*n+4, 64<<10))
	s := strings.Join(strings.Fields(strings.ToValidUTF8(string(head), "?")), " ")
	if c := textcut.Prefix(s, n); c != s || len(head) < len(b) {
		return c + "…"
	}
	return s
}

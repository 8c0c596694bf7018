// Package embedtest is a fake OpenAI-compatible embeddings server on
// 127.0.0.1, for tests: POST .../embeddings answers deterministic vectors
// (Vector), counts what it is sent, and can be made to fail or to demand
// an API key.
//
// A vector is a hashed bag of words, with a small table of synonyms (the
// knowledge a real model has and BM25 lacks): "what is on my monitor" is
// close to "take a screenshot of the screen" though they share no word.
package embedtest

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"unicode"
)

// Dim is the dimension of the vectors: large enough that the words of
// the bundled tools seldom share a bucket ("error" and "log" did at 256).
const Dim = 1024

// synonyms map a word to the word a vector counts it as.
var synonyms = map[string]string{
	"monitor":    "screen",
	"display":    "screen",
	"snapshot":   "screenshot",
	"grab":       "capture",
	"chronicle":  "log",
	"revision":   "commit",
	"changelist": "commit",
	"ledger":     "history",
	"folder":     "directory",
	"peek":       "view",
}

var stop = map[string]bool{
	"a": true, "an": true, "the": true, "of": true, "to": true, "and": true, "or": true, "in": true, "on": true,
	"for": true, "with": true, "by": true, "is": true, "it": true, "its": true, "my": true, "what": true, "as": true,
	"this": true, "that": true, "be": true, "are": true, "from": true, "at": true, "now": true, "right": true,
}

// Vector is the vector the server answers for text: its words, lower-cased,
// less stop words and a plural s, mapped through the synonyms, each
// counted in a bucket chosen by its hash. A text without a word gets a
// fixed vector: a real model never answers a zero vector.
func Vector(text string) []float32 {
	v := make([]float32, Dim)
	empty := true
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if stop[w] {
			continue
		}
		if len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") {
			w = w[:len(w)-1]
		}
		if s, ok := synonyms[w]; ok {
			w = s
		}
		h := fnv.New32a()
		h.Write([]byte(w))
		v[h.Sum32()%Dim]++
		empty = false
	}
	if empty {
		v[0] = 1
	}
	return v
}

// Server is a running fake. Safe for concurrent use.
type Server struct {
	// URL is the server's base URL, as --embed-url takes it:
	// http://127.0.0.1:PORT/v1.
	URL string

	mu       sync.Mutex
	requests int
	inputs   []string
	auth     []string
	models   []string
	status   int    // not 0: answer every request with this status
	key      string // not "": demand it as a bearer token
	answer   func(inputs []string) any
}

// New starts a fake, closed when the test ends.
func New(t testing.TB) *Server {
	t.Helper()
	s := &Server{}
	hs := httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(hs.Close)
	s.URL = hs.URL + "/v1"
	return s
}

// Fail makes every request fail with status and an OpenAI-shaped error
// message; 0 makes the server answer again.
func (s *Server) Fail(status int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.status = status
}

// RequireKey makes the server refuse a request without "Authorization:
// Bearer key" with 401 and a message that echoes the key it was sent, as
// real servers do.
func (s *Server) RequireKey(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.key = key
}

// Answer replaces the body of successful answers with what fn returns for
// the request's inputs (marshalled as JSON): for testing bad answers. nil
// restores the real ones.
func (s *Server) Answer(fn func(inputs []string) any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.answer = fn
}

// Requests is the number of requests received.
func (s *Server) Requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests
}

// Inputs are the texts received, in order of arrival.
func (s *Server) Inputs() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.inputs...)
}

// Authorizations are the Authorization headers received, one a request
// ("" for none).
func (s *Server) Authorizations() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.auth...)
}

// Models are the models requested, one a request.
func (s *Server) Models() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.models...)
}

type request struct {
	Model string          `json:"model"`
	Input json.RawMessage `json:"input"`
}

type datum struct {
	Object    string    `json:"object"`
	Index     int       `json:"index"`
	Embedding []float32 `json:"embedding"`
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/embeddings") {
		writeError(w, http.StatusNotFound, "no route "+r.Method+" "+r.URL.Path)
		return
	}
	var req request
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeError(w, http.StatusBadRequest, "bad JSON: "+err.Error())
		return
	}
	var inputs []string
	if err := json.Unmarshal(req.Input, &inputs); err != nil {
		var one string
		if err := json.Unmarshal(req.Input, &one); err != nil {
			writeError(w, http.StatusBadRequest, "input is neither a string nor a list of strings")
			return
		}
		inputs = []string{one}
	}
	s.mu.Lock()
	s.requests++
	s.inputs = append(s.inputs, inputs...)
	s.auth = append(s.auth, r.Header.Get("Authorization"))
	s.models = append(s.models, req.Model)
	status, key, answer := s.status, s.key, s.answer
	s.mu.Unlock()

	if key != "" && r.Header.Get("Authorization") != "Bearer "+key {
		writeError(w, http.StatusUnauthorized, fmt.Sprintf("Incorrect API key provided: %q", strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")))
		return
	}
	if status != 0 {
		writeError(w, status, "the fake embeddings server is failing on purpose")
		return
	}
	var body any
	if answer != nil {
		body = answer(inputs)
	} else {
		data := make([]datum, len(inputs))
		for i, in := range inputs {
			data[i] = datum{Object: "embedding", Index: i, Embedding: Vector(in)}
		}
		body = map[string]any{"object": "list", "model": req.Model, "data": data}
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(body)
}

func writeError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": msg, "type": "fake_error"}})
}

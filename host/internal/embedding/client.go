package embedding

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/ramabana/ramabana-mcp/host/internal/openaiapi"
	"github.com/ramabana/ramabana-mcp/internal/apimessage"
	"github.com/ramabana/ramabana-mcp/internal/textcut"
)

// Defaults of Config.
const (
	DefaultBatchSize     = 64
	DefaultTimeout       = 30 * time.Second
	DefaultMaxInputBytes = 2000
)

// maxResponseBytes bounds an answer's body: the light client's default,
// which is sized for embeddings (openaiapi.DefaultMaxBody).
const maxResponseBytes = openaiapi.DefaultMaxBody

// maxMessage bounds the server's own words quoted in an error.
const maxMessage = openaiapi.MaxMessage

// Config configures a Client.
type Config struct {
	// URL is the API's base URL, as the ask agent's --model-url:
	// http://127.0.0.1:11434/v1 (Ollama), https://api.openai.com/v1. A URL
	// without a path gets /v1; requests go to URL/embeddings, unless the
	// path already ends in /embeddings, which is then used as it is.
	URL string
	// Model is sent with every request. Required.
	Model string
	// APIKey is sent as a bearer token; empty sends none (local servers).
	// The environment is never read: the caller passes the key.
	APIKey string
	// KeyEnv names the environment variable the key came from, for the
	// message of an authentication failure.
	KeyEnv string
	// HTTPClient defaults to a client of its own (http.DefaultTransport's
	// settings); Timeout bounds each request whatever the client's are.
	HTTPClient *http.Client
	// Timeout bounds each request; 0 means DefaultTimeout.
	Timeout time.Duration
	// BatchSize is the most texts one request carries; 0 means
	// DefaultBatchSize.
	BatchSize int
	// MaxInputBytes cuts longer texts (at a character boundary) before they
	// are sent: some servers refuse an input longer than their context
	// (llama.cpp's default batch is 512 tokens) instead of truncating it.
	// 0 means DefaultMaxInputBytes, negative means no limit.
	MaxInputBytes int
}

// Client embeds texts with an OpenAI-compatible embeddings endpoint,
// through openaiapi (the ask agent's client too). Safe for concurrent use.
type Client struct {
	endpoint string // where requests go
	shown    string // endpoint for messages: no password
	model    string
	key      string
	keyEnv   string
	api      *openaiapi.Client
	timeout  time.Duration
	batch    int
	maxInput int
}

// Kinds of failure; every error of Embed other than the context's wraps
// exactly one, and is an *Error.
var (
	// ErrUnreachable: no answer (connection refused, DNS, timeout, a
	// dropped connection).
	ErrUnreachable = errors.New("embeddings server unreachable")
	// ErrAuth: the server refused the credentials (401 or 403).
	ErrAuth = errors.New("embeddings server refused the credentials")
	// ErrRejected: the server rejected the request (another 4xx: an
	// unknown model, an input too long, a rate limit).
	ErrRejected = errors.New("embeddings server rejected the request")
	// ErrServer: the server failed (5xx).
	ErrServer = errors.New("embeddings server error")
	// ErrBadResponse: a 2xx answer that is not what was asked for (not
	// JSON, a wrong count, indexes out of order, unequal dimensions,
	// values that are not finite).
	ErrBadResponse = errors.New("malformed embeddings response")
)

// Error is a failed Embed, naming the endpoint and the model.
type Error struct {
	Kind   error // one of the Err* kinds
	URL    string
	Model  string
	Status int    // HTTP status; 0 without an answer
	Detail string // what happened, with the server's own message (the key hidden)
	Err    error  // the cause, if any
	key    string // redacted from Error()
}

func (e *Error) Error() string {
	s := fmt.Sprintf("embeddings %s (model %q): %s", e.URL, e.Model, e.Detail)
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	if e.key != "" {
		s = strings.ReplaceAll(s, e.key, "[redacted]")
	}
	return s
}

// Unwrap exposes the kind and the cause to errors.Is and errors.As.
func (e *Error) Unwrap() []error {
	if e.Err == nil {
		return []error{e.Kind}
	}
	return []error{e.Kind, e.Err}
}

// New checks cfg and returns its Client; a URL that is not http(s) or a
// missing model is an error.
func New(cfg Config) (*Client, error) {
	if cfg.Model == "" {
		return nil, errors.New("embeddings: no model")
	}
	endpoint, err := Endpoint(cfg.URL)
	if err != nil {
		return nil, err
	}
	c := &Client{
		endpoint: endpoint, shown: endpoint, model: cfg.Model, key: cfg.APIKey, keyEnv: cfg.KeyEnv,
		timeout: cfg.Timeout, batch: cfg.BatchSize, maxInput: cfg.MaxInputBytes,
	}
	if u, err := url.Parse(endpoint); err == nil {
		// A query may hold a key (api-key=...): messages and the status
		// show that there is one, not what it says.
		hidden := u.RawQuery != ""
		u.RawQuery = ""
		c.shown = u.Redacted()
		if hidden {
			c.shown += "?[query hidden]"
		}
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = openaiapi.NewHTTPClient(0) // Timeout bounds each request
	}
	c.api = &openaiapi.Client{HTTP: hc, Key: cfg.APIKey, MaxBody: maxResponseBytes}
	if c.timeout <= 0 {
		c.timeout = DefaultTimeout
	}
	if c.batch <= 0 {
		c.batch = DefaultBatchSize
	}
	if c.maxInput == 0 {
		c.maxInput = DefaultMaxInputBytes
	}
	return c, nil
}

// Endpoint is where a Client of base URL raw sends its requests: the base
// URL as the ask agent reads it (a URL without a path gets /v1, a trailing
// slash goes) joined with /embeddings, or raw itself when its path ends in
// /embeddings. A query is kept (Azure wants its api-version); a URL that
// is not http(s) is an error.
func Endpoint(raw string) (string, error) {
	u, err := openaiapi.BaseURL(raw)
	if err != nil {
		return "", fmt.Errorf("embeddings URL %q is not an http(s) URL", raw)
	}
	if !strings.HasSuffix(u.Path, "/embeddings") {
		u.Path += "/embeddings"
		if u.RawPath != "" {
			u.RawPath += "/embeddings"
		}
	}
	return u.String(), nil
}

// Model is the model the client asks for.
func (c *Client) Model() string { return c.model }

// URL is the endpoint, with any password and query in it hidden.
func (c *Client) URL() string { return c.shown }

// Embed returns the vectors of texts, in order (see the package doc).
func (c *Client) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, 0, len(texts))
	for start := 0; start < len(texts); start += c.batch {
		vecs, err := c.request(ctx, texts[start:min(start+c.batch, len(texts))])
		if err != nil {
			return nil, err
		}
		if len(out) > 0 && len(vecs[0]) != len(out[0]) {
			return nil, c.fail(ErrBadResponse, 200, fmt.Sprintf("vectors of %d dimensions, then of %d", len(out[0]), len(vecs[0])), nil)
		}
		out = append(out, vecs...)
	}
	return out, nil
}

type request struct {
	Model string   `json:"model"`
	Input []string `json:"input"`
}

type response struct {
	Data []struct {
		Index     *int      `json:"index"`
		Embedding []float64 `json:"embedding"`
	} `json:"data"`
}

// request sends one batch.
func (c *Client) request(ctx context.Context, texts []string) ([][]float32, error) {
	in := make([]string, len(texts))
	for i, t := range texts {
		in[i] = cut(t, c.maxInput)
	}
	body, err := json.Marshal(request{Model: c.model, Input: in})
	if err != nil {
		return nil, err
	}
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	ans, err := c.api.Post(ctx, c.endpoint, body)
	var se *openaiapi.StatusError
	switch {
	case errors.As(err, &se):
		return nil, c.httpError(se)
	case err != nil && parent.Err() != nil:
		return nil, parent.Err() // the caller's context ended, not the server
	case err != nil:
		return nil, c.unreachable(err, ctx.Err() != nil)
	case ans.Cut:
		return nil, c.fail(ErrBadResponse, ans.Status, fmt.Sprintf("the answer is larger than %d MB", maxResponseBytes>>20), nil)
	}
	return c.decode(ans.Status, ans.Body, len(texts))
}

// decode checks an answer for n texts: n vectors, each index once, one
// dimension, finite values.
func (c *Client) decode(status int, raw []byte, n int) ([][]float32, error) {
	var r response
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, c.fail(ErrBadResponse, status, "the answer is not an embeddings list: "+apimessage.Excerpt(raw, maxMessage), err)
	}
	if len(r.Data) != n {
		return nil, c.fail(ErrBadResponse, status, fmt.Sprintf("%d vectors for %d texts", len(r.Data), n), nil)
	}
	out := make([][]float32, n)
	dim := 0
	for i, d := range r.Data {
		at := i // a server that sends no index sends them in order
		if d.Index != nil {
			at = *d.Index
		}
		if at < 0 || at >= n || out[at] != nil {
			return nil, c.fail(ErrBadResponse, status, fmt.Sprintf("vector %d has index %d: out of range or repeated", i, at), nil)
		}
		switch {
		case len(d.Embedding) == 0:
			return nil, c.fail(ErrBadResponse, status, fmt.Sprintf("vector %d is empty", at), nil)
		case dim == 0:
			dim = len(d.Embedding)
		case len(d.Embedding) != dim:
			return nil, c.fail(ErrBadResponse, status, fmt.Sprintf("vector %d has %d dimensions, another %d", at, len(d.Embedding), dim), nil)
		}
		v := make([]float32, len(d.Embedding))
		for j, x := range d.Embedding {
			v[j] = float32(x)
			if math.IsNaN(x) || math.IsInf(float64(v[j]), 0) {
				return nil, c.fail(ErrBadResponse, status, fmt.Sprintf("vector %d has a value that is not a finite number at %d", at, j), nil)
			}
		}
		out[at] = v
	}
	return out, nil
}

func (c *Client) fail(kind error, status int, detail string, err error) *Error {
	return &Error{Kind: kind, URL: c.shown, Model: c.model, Status: status, Detail: c.redact(detail), Err: err, key: c.key}
}

// redact hides the API key in s.
func (c *Client) redact(s string) string {
	if c.key == "" {
		return s
	}
	return strings.ReplaceAll(s, c.key, "[redacted]")
}

func (c *Client) unreachable(err error, timedOut bool) *Error {
	switch {
	case timedOut:
		return c.fail(ErrUnreachable, 0, fmt.Sprintf("no answer within %s", c.timeout), nil)
	case openaiapi.Refused(err):
		return c.fail(ErrUnreachable, 0, "connection refused; is the embeddings server running at this URL?", nil)
	case openaiapi.NoSuchHost(err):
		return c.fail(ErrUnreachable, 0, "the host name does not resolve", nil)
	}
	return c.fail(ErrUnreachable, 0, "the connection failed", err)
}

func (c *Client) httpError(se *openaiapi.StatusError) *Error {
	code := se.Code
	// The client hid the key in the body before the message is cut: a cut
	// key would not match.
	status := se.Status()
	switch {
	case code == http.StatusUnauthorized || code == http.StatusForbidden:
		hint := "check the API key"
		switch {
		case c.key == "" && c.keyEnv != "":
			hint = "no API key was sent: set $" + c.keyEnv
		case c.key == "":
			hint = "no API key was sent"
		case c.keyEnv != "":
			hint = "check the API key in $" + c.keyEnv
		}
		return c.fail(ErrAuth, code, fmt.Sprintf("the server refused the credentials (%s); %s", status, hint), nil)
	case code >= 500:
		return c.fail(ErrServer, code, "the server failed ("+status+")", nil)
	}
	return c.fail(ErrRejected, code, "the server rejected the request ("+status+")", nil)
}

// cut is s cut to at most n bytes at a character boundary; n < 0 keeps s
// whole.
func cut(s string, n int) string {
	if n < 0 {
		return s
	}
	return textcut.Prefix(s, n)
}

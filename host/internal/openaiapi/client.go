// Package openaiapi is the host's one client of OpenAI-compatible HTTP APIs
// (OpenAI, Ollama, llama.cpp's server, vLLM, LocalAI): the ask agent's chat
// completions backend and the embeddings client both post through it. It
// is the standard library and the few wire types they need, no SDK.
//
// It does the plumbing the two share: the base URL rule (a URL without a
// path gets /v1), posting JSON with the key as a bearer token, a bounded
// read of the answer, an answer outside 2xx as a *StatusError carrying the
// server's own message (read by internal/apimessage, the key hidden), and
// the kinds of transport failure. Retries, timeouts and the wording of
// errors are the callers' own.
package openaiapi

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"
	"time"

	"github.com/ramabana/ramabana-mcp/internal/apimessage"
)

// DefaultMaxBody bounds a 2xx answer's body when Client.MaxBody is 0: 64
// texts of 4,096 dimensions written as JSON are about 5 MB, a chat
// completion much less.
const DefaultMaxBody = 64 << 20

// maxErrorBody bounds the body of an answer outside 2xx: the message is
// all that is read from it.
const maxErrorBody = 1 << 20

// MaxMessage bounds the server's own words quoted by StatusError.Status.
const MaxMessage = 500

// ErrNotHTTP is BaseURL's error for a URL that is not http(s) with a host.
var ErrNotHTTP = errors.New("not an http(s) URL")

// BaseURL parses raw as the base URL of an OpenAI-compatible API: http or
// https with a host; a trailing slash goes; a URL without a path gets /v1
// (http://127.0.0.1:11434 is Ollama's http://127.0.0.1:11434/v1); the
// fragment goes; the query stays (callers decide). Otherwise ErrNotHTTP.
func BaseURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return nil, ErrNotHTTP
	}
	u.Fragment, u.RawFragment = "", ""
	u.Path = strings.TrimSuffix(u.Path, "/")
	u.RawPath = strings.TrimSuffix(u.RawPath, "/")
	if u.Path == "" {
		u.Path, u.RawPath = "/v1", ""
	}
	return u, nil
}

// NewHTTPClient is a client of its own with http.DefaultTransport's
// settings and the given response-header timeout (0: none), for callers
// not handed one.
func NewHTTPClient(responseHeaderTimeout time.Duration) *http.Client {
	if t, ok := http.DefaultTransport.(*http.Transport); ok {
		t = t.Clone()
		t.ResponseHeaderTimeout = responseHeaderTimeout
		return &http.Client{Transport: t}
	}
	return &http.Client{}
}

// Client posts JSON requests to an OpenAI-compatible API. The environment
// is never read: the caller passes the key. Safe for concurrent use.
type Client struct {
	// HTTP sends the requests; nil means http.DefaultClient.
	HTTP *http.Client
	// Key is sent as a bearer token; empty sends none (local servers). It
	// is replaced by [redacted] in the body of a StatusError, as servers
	// echo a wrong key in their message.
	Key string
	// MaxBody bounds the body of a 2xx answer; 0 means DefaultMaxBody.
	MaxBody int64
}

// Answer is a 2xx answer.
type Answer struct {
	Status int
	Header http.Header
	// Body is the answer's body, at most MaxBody bytes.
	Body []byte
	// Cut is true when the body was longer than MaxBody: Body is its start.
	Cut bool
}

// StatusError is an answer outside 2xx.
type StatusError struct {
	Code   int
	Header http.Header
	// Body is the start of the answer's body (at most 1 MB), with the
	// client's key replaced by [redacted].
	Body []byte
}

// Status is the status and the server's own message, on one line and cut
// to MaxMessage bytes: "404 Not Found: model "x" not found".
func (e *StatusError) Status() string { return apimessage.Status(e.Code, e.Body, MaxMessage) }

func (e *StatusError) Error() string { return "HTTP " + e.Status() }

// Post sends body, JSON, to endpoint and reads the answer. A 2xx answer is
// returned whole (up to MaxBody); any other status is a *StatusError; a
// request that got no answer, or whose 2xx body could not be read, returns
// the error of the http.Client or of the read as it is (see Refused,
// NoSuchHost and TimedOut), and ctx's error when ctx ended.
func (c *Client) Post(ctx context.Context, endpoint string, body []byte) (*Answer, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if c.Key != "" {
		req.Header.Set("Authorization", "Bearer "+c.Key)
	}
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		// A failed read leaves what was read: the status is the answer.
		raw, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		if c.Key != "" {
			raw = bytes.ReplaceAll(raw, []byte(c.Key), []byte("[redacted]"))
		}
		return nil, &StatusError{Code: resp.StatusCode, Header: resp.Header, Body: raw}
	}
	limit := c.MaxBody
	if limit <= 0 {
		limit = DefaultMaxBody
	}
	raw, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, err
	}
	a := &Answer{Status: resp.StatusCode, Header: resp.Header, Body: raw}
	if int64(len(raw)) > limit {
		a.Body, a.Cut = raw[:limit], true
	}
	return a, nil
}

// Refused reports whether err is a refused connection: nothing listens at
// the URL (a local server that is not running).
func Refused(err error) bool { return errors.Is(err, syscall.ECONNREFUSED) }

// NoSuchHost reports whether err is a failed DNS lookup.
func NoSuchHost(err error) bool {
	var dns *net.DNSError
	return errors.As(err, &dns)
}

// TimedOut reports whether err is a network timeout (a client or
// transport timeout, or a deadline of the request's context).
func TimedOut(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

package agent

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// Kinds of backend failure; test with errors.Is. Every error a backend built
// by NewOpenAI returns (other than ctx.Err()) is a *BackendError that
// matches exactly one of them.
var (
	// ErrUnreachable: no answer from the server (connection refused, DNS,
	// timeout, connection dropped after retries).
	ErrUnreachable = errors.New("model server unreachable")
	// ErrAuth: the server refused the key (401 or 403).
	ErrAuth = errors.New("model server refused the credentials")
	// ErrRateLimited: 429 still answered after the allowed retries, or a
	// Retry-After longer than the turn can wait.
	ErrRateLimited = errors.New("model server rate limit")
	// ErrRejected: the server rejected the request (another 4xx, such as an
	// unknown model or a context overflow).
	ErrRejected = errors.New("model server rejected the request")
	// ErrServer: the server failed (5xx, 408, 409) after the allowed retries.
	ErrServer = errors.New("model server error")
	// ErrBadResponse: the server answered 2xx with something that is not a
	// chat completion (malformed JSON, no choices).
	ErrBadResponse = errors.New("malformed model response")
)

// BackendError is a classified backend failure, naming the server and model.
type BackendError struct {
	Kind       error // one of the Err* sentinels
	URL        string
	Model      string
	Status     int           // HTTP status, 0 without a response
	RetryAfter time.Duration // the wait the server asked for, if any
	Detail     string        // what happened and what to do
	Err        error         // the underlying error, if any
}

func (e *BackendError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "model backend %s (model %q): %s", e.URL, e.Model, e.Detail)
	if e.Err != nil {
		fmt.Fprintf(&b, ": %v", e.Err)
	}
	return b.String()
}

// Unwrap exposes both the kind and the cause to errors.Is and errors.As.
func (e *BackendError) Unwrap() []error {
	if e.Err == nil {
		return []error{e.Kind}
	}
	return []error{e.Kind, e.Err}
}

package transport

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// ReconnectDelay is the SSE retry field of every streamable event stream:
// how long a client whose connection broke waits before it reconnects.
const ReconnectDelay = time.Second

// withRetry starts every event stream next serves with a retry field. The
// SDK (v1.8.0) sends the priming event but no retry field, and has no
// option for one; a field line may stand anywhere in an event, so putting
// it before the first bytes of the body makes it part of the first event,
// the priming event (on a standalone GET stream, of the SDK's opening
// comment, an event that is never dispatched).
func withRetry(next http.Handler) http.Handler {
	line := []byte("retry: " + strconv.FormatInt(ReconnectDelay.Milliseconds(), 10) + "\n")
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(&retryWriter{ResponseWriter: w, line: line}, r)
	})
}

type retryWriter struct {
	http.ResponseWriter
	line    []byte
	started bool
}

func (w *retryWriter) Write(p []byte) (int, error) {
	if !w.started {
		w.started = true
		if strings.HasPrefix(w.Header().Get("Content-Type"), "text/event-stream") {
			if _, err := w.ResponseWriter.Write(w.line); err != nil {
				return 0, err
			}
		}
	}
	return w.ResponseWriter.Write(p)
}

// Unwrap lets http.ResponseController flush through w, as the SDK does
// after each event.
func (w *retryWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

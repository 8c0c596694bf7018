package transport

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The HTTP listener's limits, taken when the HTTPOptions field is zero.
const (
	// DefaultMaxConns bounds the connections the listener holds open at
	// once. It is lowered to half the process's open-file limit when that
	// is lower, so that the plugins' pipes, upstream servers and served
	// files always have descriptors left. 512 is a few hundred clients
	// (each holds a stream and makes a call or two at a time), and below
	// the 1024 files a process is often allowed.
	DefaultMaxConns = 512
	// DefaultMaxSessions bounds the live sessions, streamable and SSE: half
	// of DefaultMaxConns, so that every session can hold its event stream
	// open and still make a call. Each session has a server of its own, and
	// an abandoned streamable session lives for SessionIdle.
	DefaultMaxSessions = 256
	// DefaultReadTimeout bounds reading a request, its header and body,
	// from its first byte: a client that sends its body slower than this
	// is cut off (the largest body the SDK takes is 4 MiB).
	DefaultReadTimeout = 30 * time.Second
	// DefaultWriteTimeout bounds each write of a response: a client that
	// stops reading what it is sent for this long is cut off. It bounds a
	// write, not the response: an event stream lasts as long as it likes.
	DefaultWriteTimeout = 30 * time.Second
	// DefaultIdleTimeout is how long a keep-alive connection may wait for
	// its next request. It is longer than clients' own (Go's closes an
	// idle connection after 90s), so that the client closes first and
	// never sends a request on a connection the server is closing.
	DefaultIdleTimeout = 2 * time.Minute
)

// readHeaderTimeout bounds reading a request's header (lowered to the read
// timeout when that is shorter).
const readHeaderTimeout = 10 * time.Second

// refusalSlots is how many connections beyond MaxConns may be held at once
// to be told, with a 503, that the server is full; one beyond those is
// closed as soon as it is accepted.
const refusalSlots = 32

// orDefault is d, or def when d is zero. A negative d stays negative: no
// limit, for net/http as for HTTPOptions.
func orDefault(d, def time.Duration) time.Duration {
	if d == 0 {
		return def
	}
	return d
}

// maxConns is the bound on connections for HTTPOptions.MaxConns n: n when
// set (negative: none), or else DefaultMaxConns, lowered to half the
// open-file limit.
func maxConns(n int) int {
	if n != 0 {
		return n
	}
	n = DefaultMaxConns
	if files := openFileLimit(); files > 0 && files/2 < n {
		n = max(files/2, 16)
	}
	return n
}

// connLimiter is a listener that holds at most max connections open. At
// the bound, a new connection takes the place of the one that has waited
// longest for a request (idle between requests, or not yet sent one),
// which is closed: idle connections can never keep a client out. When
// every connection is busy with a request or stream, a new one is served
// a 503 (refuseOverLimit), up to refusalSlots of them at once, and beyond
// those closed at once.
type connLimiter struct {
	net.Listener
	max int

	mu      sync.Mutex
	conns   map[*limitedConn]struct{} // within the bound
	refused int                       // held to be refused
}

func newConnLimiter(ln net.Listener, max int) *connLimiter {
	return &connLimiter{Listener: ln, max: max, conns: map[*limitedConn]struct{}{}}
}

// limitedConn is a connection of a connLimiter; the fields but Conn are
// the limiter's, under its mu.
type limitedConn struct {
	net.Conn
	l       *connLimiter
	refused bool      // over the bound: to be answered 503
	busy    bool      // a request or stream in progress
	since   time.Time // when it last went idle, or was accepted
	gone    bool      // no longer counted
}

func (l *connLimiter) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		lc := &limitedConn{Conn: c, l: l, since: time.Now()}
		var evict *limitedConn
		l.mu.Lock()
		if len(l.conns) >= l.max {
			evict = l.longestIdle()
		}
		switch {
		case len(l.conns) < l.max || evict != nil:
			if evict != nil {
				delete(l.conns, evict)
				evict.gone = true
			}
			l.conns[lc] = struct{}{}
		case l.refused < refusalSlots:
			l.refused++
			lc.refused = true
		default:
			lc = nil
		}
		l.mu.Unlock()
		if evict != nil {
			_ = evict.Conn.Close()
		}
		if lc == nil {
			_ = c.Close()
			continue
		}
		return lc, nil
	}
}

// longestIdle is the connection, within the bound, that has waited longest
// for a request; nil when all are busy.
func (l *connLimiter) longestIdle() *limitedConn {
	var oldest *limitedConn
	for c := range l.conns {
		if !c.busy && (oldest == nil || c.since.Before(oldest.since)) {
			oldest = c
		}
	}
	return oldest
}

// connState is the http.Server's ConnState hook: it tells which
// connections are busy.
func (l *connLimiter) connState(c net.Conn, state http.ConnState) {
	lc, ok := c.(*limitedConn)
	if !ok {
		return
	}
	switch state {
	case http.StateActive, http.StateHijacked:
		l.mu.Lock()
		lc.busy = true
		l.mu.Unlock()
	case http.StateIdle:
		l.mu.Lock()
		lc.busy, lc.since = false, time.Now()
		l.mu.Unlock()
	case http.StateClosed:
		l.forget(lc)
	}
}

// connContext is the http.Server's ConnContext hook: a connection held to
// be refused carries the bound in its requests' context.
func (l *connLimiter) connContext(ctx context.Context, c net.Conn) context.Context {
	if lc, ok := c.(*limitedConn); ok && lc.refused {
		return context.WithValue(ctx, overLimitKey{}, l.max)
	}
	return ctx
}

func (l *connLimiter) forget(c *limitedConn) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if c.gone {
		return
	}
	c.gone = true
	if c.refused {
		l.refused--
	} else {
		delete(l.conns, c)
	}
}

func (c *limitedConn) Close() error {
	c.l.forget(c)
	return c.Conn.Close()
}

type overLimitKey struct{}

// refuseOverLimit answers every request of a connection beyond the bound
// (connLimiter) with a 503, and closes it.
func refuseOverLimit(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, ok := r.Context().Value(overLimitKey{}).(int)
		if !ok {
			next.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Connection", "close")
		w.Header().Set("Retry-After", "1")
		http.Error(w, fmt.Sprintf("too many connections: this server holds at most %d at once (its connection limit), and every one is busy with a request or a stream; retry in a moment", n), http.StatusServiceUnavailable)
	})
}

// sessionLimit bounds the live sessions of /mcp and /sse; max <= 0 is no
// bound.
type sessionLimit struct {
	max int

	mu   sync.Mutex
	live int
}

// sessionRetryAfter is the Retry-After of a session refused at the bound:
// a slot frees when a client ends its session, or one goes idle for
// SessionIdle.
const sessionRetryAfter = time.Minute

func (l *sessionLimit) acquire() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.max > 0 && l.live >= l.max {
		return false
	}
	l.live++
	return true
}

func (l *sessionLimit) release() {
	l.mu.Lock()
	l.live--
	l.mu.Unlock()
}

func (l *sessionLimit) refuse(w http.ResponseWriter) {
	w.Header().Set("Retry-After", strconv.Itoa(int(sessionRetryAfter.Seconds())))
	http.Error(w, fmt.Sprintf("too many sessions: this server serves at most %d at once (its session limit); retry once a client has ended one (DELETE /mcp with its Mcp-Session-Id, or closing its /sse stream), or one has been idle for %s", l.max, SessionIdle), http.StatusServiceUnavailable)
}

// sessionSlot carries, in a request's context, the server made for the
// session the request starts: the SDK asks for a server more than once
// for one request, and each must be the same.
type sessionSlot struct{ server *mcp.Server }

type sessionSlotKey struct{}

// streamable wraps the stateful streamable handler: a POST without
// Mcp-Session-Id starts a session, which takes a slot, refused with 503 at
// the bound, until the session ends (closed, deleted or idle for
// SessionIdle). newServer makes the session's server.
func (l *sessionLimit) streamable(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Header.Get("Mcp-Session-Id") != "" {
			next.ServeHTTP(w, r)
			return
		}
		if !l.acquire() {
			l.refuse(w)
			return
		}
		slot := &sessionSlot{}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), sessionSlotKey{}, slot)))
		l.releaseWhenClosed(slot.server)
	})
}

// releaseWhenClosed releases a slot once the session of s (a server of
// its own) has ended, at once if it has none or its initialize failed
// (the SDK has closed it then).
func (l *sessionLimit) releaseWhenClosed(s *mcp.Server) {
	if s != nil {
		for ss := range s.Sessions() {
			if ss.InitializeParams() == nil {
				break
			}
			go func() {
				_ = ss.Wait()
				l.release()
			}()
			return
		}
	}
	l.release()
}

// sse wraps the SSE handler: a GET is a session, which takes a slot,
// refused with 503 at the bound, for as long as its stream is open.
func (l *sessionLimit) sse(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			next.ServeHTTP(w, r)
			return
		}
		if !l.acquire() {
			l.refuse(w)
			return
		}
		defer l.release()
		next.ServeHTTP(w, r)
	})
}

// withWriteTimeout bounds each write of a response to d (none when d <= 0):
// the write deadline is moved to d from now before each Write and Flush,
// and once more when next returns, for what net/http flushes then. A
// response may so take as long as it likes, an event stream wait for its
// next event for hours, but a client that stops reading is cut off d
// after the server's buffers fill. The deadline is cleared as a request
// starts, so that none left by the previous request on the connection
// fails it.
func withWriteTimeout(next http.Handler, d time.Duration) http.Handler {
	if d <= 0 {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc := http.NewResponseController(w)
		_ = rc.SetWriteDeadline(time.Time{}) // not supported by a recorder: no deadline then
		dw := &deadlineWriter{ResponseWriter: w, rc: rc, d: d}
		defer dw.extend()
		next.ServeHTTP(dw, r)
	})
}

type deadlineWriter struct {
	http.ResponseWriter
	rc *http.ResponseController
	d  time.Duration
}

func (w *deadlineWriter) extend() { _ = w.rc.SetWriteDeadline(time.Now().Add(w.d)) }

func (w *deadlineWriter) Write(p []byte) (int, error) {
	w.extend()
	return w.ResponseWriter.Write(p)
}

// FlushError flushes, as http.ResponseController.Flush does through w.
func (w *deadlineWriter) FlushError() error {
	w.extend()
	return w.rc.Flush()
}

// Flush is http.Flusher's, for code that asks for one.
func (w *deadlineWriter) Flush() { _ = w.FlushError() }

// Unwrap lets http.ResponseController reach the connection through w.
func (w *deadlineWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// hostCheck refuses, with 403, a request that reached a loopback address
// under a Host that is not a loopback name: a page whose name an attacker
// rebound to 127.0.0.1 (DNS rebinding) sends its own name. It is the SDK's
// localhost protection (StreamableHTTPOptions.DisableLocalhostProtection),
// done once here for every path instead of in /mcp and /sse alone. A
// request that reached another address (a container's, a pod's) is not
// checked: its Host may be any name that leads there.
func hostCheck(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok && local != nil && loopbackHost(local.String()) && !loopbackHost(r.Host) {
			http.Error(w, fmt.Sprintf("Forbidden: invalid Host header %q: this server, reached on a loopback address, answers only to a loopback name there (localhost, 127.0.0.1, [::1]), against DNS rebinding", r.Host), http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// loopbackHost reports whether hostport (a Host header or an address, with
// a port or without) names this machine's loopback interface.
func loopbackHost(hostport string) bool {
	h, _, err := net.SplitHostPort(hostport)
	if err != nil {
		h = hostport
	}
	return isLoopbackName(h)
}

package transport

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/pprof"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ServeStdio serves one MCP session over t (nil: stdin and stdout) until
// the client closes it or ctx ends. A malformed line is answered or
// dropped, never the end of the session (see StdioTransport).
func ServeStdio(ctx context.Context, s *mcp.Server, t *StdioTransport) error {
	if t == nil {
		t = &StdioTransport{}
	}
	err := s.Run(ctx, t)
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

// HTTPOptions configure ServeHTTP.
type HTTPOptions struct {
	// Addr to listen on, such as 127.0.0.1:8765.
	Addr string
	// Token, when set, is the bearer token every request must carry.
	Token string
	// AllowOrigins are the browser origins (scheme://host[:port]) allowed
	// besides the server's own; see HTTPHandler.
	AllowOrigins []string
	// Ready, when set, receives the listener's address once it accepts.
	Ready func(addr net.Addr)
	// EventBytesPerSession and EventBytesTotal bound the events kept for
	// resuming streams, per session and in all (see EventStore); zero
	// takes DefaultEventBytesPerSession and DefaultEventBytesTotal.
	EventBytesPerSession, EventBytesTotal int
	// Stateless serves /mcp in the SDK's stateless mode: no session, each
	// request answered on its own, so that replicas can sit behind any
	// load balancer (see HTTPHandler).
	Stateless bool
	// Readiness, when set, answers /readyz: 200 when ready, 503 when not,
	// the body as JSON either way. It is served without the token, so the
	// body must hold nothing secret (no paths).
	Readiness func() (ready bool, body any)
	// Metrics, when set, is served at /metrics, behind the token.
	Metrics http.Handler
	// Pprof serves net/http/pprof at /debug/pprof/, behind the token.
	Pprof bool

	// The limits below hold the listener against idle and slow clients.
	// Zero takes the default; a negative value is no limit.

	// MaxConns bounds the connections ServeHTTP holds open at once
	// (DefaultMaxConns, or half the process's open-file limit when that
	// is lower). At the bound a new connection takes the place of the
	// one that has waited longest for a request, which is closed, so
	// that idle connections never keep a client out; when every one is
	// busy with a request or a stream, the new one is answered 503 with
	// Retry-After: 1 and closed.
	MaxConns int
	// MaxSessions bounds the live sessions, streamable (from initialize
	// to DELETE, or SessionIdle without a request) and SSE (while the
	// stream is open) together (DefaultMaxSessions). A request that would
	// start one more is answered 503, naming the limit, with a
	// Retry-After. Stateless mode has no sessions: MaxConns bounds it.
	MaxSessions int
	// ReadTimeout bounds reading a request, header and body
	// (DefaultReadTimeout); the header alone has at most 10 seconds.
	ReadTimeout time.Duration
	// WriteTimeout bounds each write of a response, not the response:
	// a client that reads nothing for this long is cut off, while an
	// event stream may wait for its next event as long as it likes
	// (DefaultWriteTimeout).
	WriteTimeout time.Duration
	// IdleTimeout is how long a keep-alive connection may wait for its
	// next request (DefaultIdleTimeout).
	IdleTimeout time.Duration
}

// HTTPHandler serves streamable HTTP at /mcp and SSE at /sse, behind the
// bearer token (opts.Token) when one is set.
//
// Two checks come before anything else, on every path (/mcp, /sse, the
// probes, /metrics and /debug/pprof/ alike), token or not, and refuse with
// 403. The Host check, against DNS rebinding: a request that reached a
// loopback address must name a loopback host (localhost, 127.0.0.1,
// [::1], with any port), since a page whose name an attacker rebound to
// 127.0.0.1 sends its own. It is the SDK's localhost protection, done once
// for every path (the SDK's own is off); a request that reached another
// address (a container's, a pod's) is not checked, and an orchestrator
// that probes a loopback listener names it 127.0.0.1 or localhost. The
// Origin check: a request a browser sends from another origin is refused
// whatever its method (the SSE stream is a GET): its Origin header (or
// Sec-Fetch-Site) must name the server itself, the same loopback port
// under another loopback name (localhost for 127.0.0.1), or one of
// opts.AllowOrigins. A request without either header is not a browser's,
// and passes. AllowOrigins must be valid origins.
//
// newServer is called for each new session: each has a server of its own
// (its mcp_connect activations are its own). A streamable session idle
// for SessionIdle ends. At most opts.MaxSessions sessions live at once;
// one more is refused with 503. Each write of a response must complete
// within opts.WriteTimeout (see HTTPOptions).
//
// With opts.Stateless, /mcp is the SDK's stateless streamable HTTP: no
// Mcp-Session-Id, every POST answered by a session of its own that ends
// with it, GET and DELETE refused (405), nothing kept to resume. newServer
// is called once, and that server answers every request. /sse is not
// served: an SSE session's stream and its messages must reach the same
// process, and a request for it is told so (404).
//
// Besides, on the same listener: /healthz (200 {"status":"ok"} while the
// process serves) and /readyz (opts.Readiness), GET and HEAD only and
// without the token, for probes; /metrics (opts.Metrics) and
// /debug/pprof/ (opts.Pprof) behind the token.
//
// Streamable streams are resumable: each event has an id and is kept in an
// EventStore bounded by opts, a stream opens with the SDK's priming event
// (an id and empty data, for clients of protocol 2025-11-25 and later),
// and every event stream starts with a retry field of ReconnectDelay. A
// client whose connection breaks reconnects with GET and Last-Event-ID and
// is sent what it missed, then the rest of the stream.
func HTTPHandler(newServer func() *mcp.Server, opts HTTPOptions) (http.Handler, error) {
	mux := http.NewServeMux()
	if opts.Stateless {
		server := sync.OnceValue(newServer)
		mux.Handle("/mcp", mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server() }, &mcp.StreamableHTTPOptions{
			Stateless:                  true,
			DisableLocalhostProtection: true, // hostCheck, for every path
			// A client of protocol 2026-07-28 or later that drops a
			// request ends the call: no notifications/cancelled can
			// reach it, since that comes in another request.
			PropagateRequestCancellation: true,
		}))
		mux.HandleFunc("/sse", func(w http.ResponseWriter, _ *http.Request) {
			http.Error(w, "the SSE transport is not served with --stateless: an SSE session's stream and its messages must reach the same server process; use streamable HTTP at /mcp", http.StatusNotFound)
		})
	} else {
		// The SDK asks for a server on every request, to check the
		// protocol version; a request of a session it knows is served by
		// that session's server, so one shared server answers the version
		// check. A request that starts a session (a POST without a
		// session id) carries a slot (sessions.streamable), and its
		// session's server is made once, there.
		versions := sync.OnceValue(newServer)
		getServer := func(r *http.Request) *mcp.Server {
			slot, ok := r.Context().Value(sessionSlotKey{}).(*sessionSlot)
			if !ok {
				return versions()
			}
			if slot.server == nil {
				slot.server = newServer()
			}
			return slot.server
		}
		sessions := &sessionLimit{max: opts.MaxSessions}
		if sessions.max == 0 {
			sessions.max = DefaultMaxSessions
		}
		mux.Handle("/mcp", sessions.streamable(withRetry(mcp.NewStreamableHTTPHandler(getServer, &mcp.StreamableHTTPOptions{
			SessionTimeout:             SessionIdle,
			EventStore:                 NewEventStore(opts.EventBytesPerSession, opts.EventBytesTotal),
			DisableLocalhostProtection: true, // hostCheck, for every path
		}))))
		// The SDK asks an SSE handler for a server only for the GET that
		// starts a session.
		mux.Handle("/sse", sessions.sse(mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return newServer() }, &mcp.SSEOptions{
			DisableLocalhostProtection: true, // hostCheck, for every path
		})))
	}
	if opts.Metrics != nil {
		mux.Handle("/metrics", opts.Metrics)
	}
	if opts.Pprof {
		mux.HandleFunc("/debug/pprof/", pprof.Index)
		mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
		mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
		mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
		mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	}
	var h http.Handler = mux
	if token := opts.Token; token != "" {
		verify := func(_ context.Context, got string, _ *http.Request) (*auth.TokenInfo, error) {
			if subtle.ConstantTimeCompare([]byte(got), []byte(token)) != 1 {
				return nil, auth.ErrInvalidToken
			}
			return &auth.TokenInfo{Expiration: time.Now().Add(time.Hour)}, nil
		}
		h = auth.RequireBearerToken(verify, nil)(mux)
	}
	// The probes, before the token: an orchestrator has none.
	outer := http.NewServeMux()
	outer.Handle("/healthz", probe(func() (bool, any) { return true, map[string]string{"status": "ok"} }))
	if opts.Readiness != nil {
		outer.Handle("/readyz", probe(opts.Readiness))
	}
	outer.Handle("/", h)
	checked, err := originCheck(outer, opts.AllowOrigins)
	if err != nil {
		return nil, err
	}
	return withWriteTimeout(refuseOverLimit(hostCheck(checked)), orDefault(opts.WriteTimeout, DefaultWriteTimeout)), nil
}

// probe answers GET and HEAD with answer's body as JSON: 200 when it says
// ok, 503 when not. A probe's answer is never cached.
func probe(answer func() (ok bool, body any)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, r.Method+" is not allowed here: use GET or HEAD", http.StatusMethodNotAllowed)
			return
		}
		ok, body := answer()
		b, err := json.Marshal(body)
		if err != nil {
			http.Error(w, "cannot encode the answer: "+err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		code := http.StatusOK
		if !ok {
			code = http.StatusServiceUnavailable
		}
		w.WriteHeader(code)
		if r.Method == http.MethodGet {
			_, _ = w.Write(append(b, '\n'))
		}
	})
}

// originCheck refuses cross-origin browser requests to next (see
// HTTPHandler), with net/http's CrossOriginProtection, applied to every
// method: it lets GET, HEAD and OPTIONS through on its own.
func originCheck(next http.Handler, allow []string) (http.Handler, error) {
	cop := http.NewCrossOriginProtection()
	for _, o := range allow {
		if err := cop.AddTrustedOrigin(o); err != nil {
			return nil, fmt.Errorf("allowed origin %q: %w", o, err)
		}
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		check := r
		switch r.Method {
		case http.MethodGet, http.MethodHead, http.MethodOptions:
			check = r.Clone(r.Context())
			check.Method = http.MethodPost
		}
		if err := cop.Check(check); err != nil && !loopbackAlias(r) {
			http.Error(w, "cross-origin request refused: "+err.Error()+" (allow an origin with --allow-origin)", http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	}), nil
}

// loopbackAlias reports whether the request's Origin is the server's own
// loopback port under another loopback name: http://localhost:8765 for a
// server reached at 127.0.0.1:8765.
func loopbackAlias(r *http.Request) bool {
	o, err := url.Parse(r.Header.Get("Origin"))
	if err != nil || o.Host == "" || (o.Scheme != "http" && o.Scheme != "https") {
		return false
	}
	oh, op, err1 := net.SplitHostPort(o.Host)
	rh, rp, err2 := net.SplitHostPort(r.Host)
	return err1 == nil && err2 == nil && op == rp && isLoopbackName(oh) && isLoopbackName(rh)
}

func isLoopbackName(h string) bool {
	if strings.EqualFold(h, "localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(h, "[]"))
	return ip != nil && ip.IsLoopback()
}

// SessionIdle is how long a streamable HTTP session may go without a
// request before it ends (and its server lets go of what it holds).
const SessionIdle = time.Hour

// ServeHTTP serves HTTPHandler on opts.Addr until ctx ends, then shuts down
// within half a second. It holds at most opts.MaxConns connections, closes
// one idle for opts.IdleTimeout, and cuts off a request that takes longer
// than opts.ReadTimeout to arrive (see HTTPOptions).
func ServeHTTP(ctx context.Context, newServer func() *mcp.Server, opts HTTPOptions) error {
	handler, err := HTTPHandler(newServer, opts)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", opts.Addr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	read := orDefault(opts.ReadTimeout, DefaultReadTimeout)
	srv := &http.Server{
		Handler: handler,
		// ReadTimeout ends with the request's body: net/http reads on
		// (to see the client go) without a deadline once the body is
		// read, so that a call or stream may last beyond it.
		ReadTimeout:       read,
		ReadHeaderTimeout: readHeaderTimeout,
		IdleTimeout:       orDefault(opts.IdleTimeout, DefaultIdleTimeout),
		// No WriteTimeout: it would end every response, event streams
		// too, that long after it started; HTTPHandler bounds each write
		// instead.
	}
	if read > 0 && read < readHeaderTimeout {
		srv.ReadHeaderTimeout = read
	}
	if n := maxConns(opts.MaxConns); n > 0 {
		l := newConnLimiter(ln, n)
		ln, srv.ConnState, srv.ConnContext = l, l.connState, l.connContext
	}
	if opts.Ready != nil {
		opts.Ready(ln.Addr())
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		// Calls in flight are cancelled by then (Host.CancelCalls), but
		// event streams (SSE, a streamable GET) stay open until closed:
		// give the rest a moment, then close everything.
		sctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer cancel()
		if srv.Shutdown(sctx) != nil {
			_ = srv.Close()
		}
		return nil
	}
}

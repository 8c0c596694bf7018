package transport

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"net"
	"net/http"
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
}

// HTTPHandler serves streamable HTTP at /mcp and SSE at /sse, with the
// SDK's localhost/DNS-rebinding protection on, behind the bearer token
// (opts.Token) when one is set. A request a browser sends from another
// origin is refused with 403 before anything else, whatever its method
// (the SSE stream is a GET): its Origin header (or Sec-Fetch-Site) must
// name the server itself, the same loopback port under another loopback
// name (localhost for 127.0.0.1), or one of opts.AllowOrigins. A request
// without either header is not a browser's, and passes. AllowOrigins must
// be valid origins.
//
// newServer is called for each new session: each has a server of its own
// (its mcp_connect activations are its own). A streamable session idle
// for SessionIdle ends.
//
// Streamable streams are resumable: each event has an id and is kept in an
// EventStore bounded by opts, a stream opens with the SDK's priming event
// (an id and empty data, for clients of protocol 2025-11-25 and later),
// and every event stream starts with a retry field of ReconnectDelay. A
// client whose connection breaks reconnects with GET and Last-Event-ID and
// is sent what it missed, then the rest of the stream.
func HTTPHandler(newServer func() *mcp.Server, opts HTTPOptions) (http.Handler, error) {
	// The SDK asks for a server on every request, to check the protocol
	// version; a request of a session it knows is served by that session's
	// server, so one shared server answers the version check.
	versions := sync.OnceValue(newServer)
	getServer := func(r *http.Request) *mcp.Server {
		if r.Header.Get("Mcp-Session-Id") != "" {
			return versions()
		}
		return newServer()
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", withRetry(mcp.NewStreamableHTTPHandler(getServer, &mcp.StreamableHTTPOptions{
		SessionTimeout: SessionIdle,
		EventStore:     NewEventStore(opts.EventBytesPerSession, opts.EventBytesTotal),
	})))
	mux.Handle("/sse", mcp.NewSSEHandler(getServer, nil))
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
	return originCheck(h, opts.AllowOrigins)
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
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(strings.Trim(h, "[]"))
	return ip != nil && ip.IsLoopback()
}

// SessionIdle is how long a streamable HTTP session may go without a
// request before it ends (and its server lets go of what it holds).
const SessionIdle = time.Hour

// ServeHTTP serves HTTPHandler on opts.Addr until ctx ends, then shuts down
// within half a second.
func ServeHTTP(ctx context.Context, newServer func() *mcp.Server, opts HTTPOptions) error {
	handler, err := HTTPHandler(newServer, opts)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", opts.Addr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second}
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

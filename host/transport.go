package host

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ServeStdio serves one MCP session over stdin and stdout until the client
// closes it or ctx ends. A malformed line is answered or dropped, never
// the end of the session (see StdioTransport).
func ServeStdio(ctx context.Context, s *mcp.Server) error {
	err := s.Run(ctx, &StdioTransport{})
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
	// Ready, when set, receives the listener's address once it accepts.
	Ready func(addr net.Addr)
}

// HTTPHandler serves streamable HTTP at /mcp and SSE at /sse, with the
// SDK's localhost/DNS-rebinding protection on, behind the bearer token when
// one is set.
func HTTPHandler(s *mcp.Server, token string) http.Handler {
	getServer := func(*http.Request) *mcp.Server { return s }
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcp.NewStreamableHTTPHandler(getServer, nil))
	mux.Handle("/sse", mcp.NewSSEHandler(getServer, nil))
	if token == "" {
		return mux
	}
	verify := func(_ context.Context, got string, _ *http.Request) (*auth.TokenInfo, error) {
		if subtle.ConstantTimeCompare([]byte(got), []byte(token)) != 1 {
			return nil, auth.ErrInvalidToken
		}
		return &auth.TokenInfo{Expiration: time.Now().Add(time.Hour)}, nil
	}
	return auth.RequireBearerToken(verify, nil)(mux)
}

// ServeHTTP serves HTTPHandler on opts.Addr until ctx ends, then shuts down.
func ServeHTTP(ctx context.Context, s *mcp.Server, opts HTTPOptions) error {
	ln, err := net.Listen("tcp", opts.Addr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	srv := &http.Server{Handler: HTTPHandler(s, opts.Token), ReadHeaderTimeout: 10 * time.Second}
	if opts.Ready != nil {
		opts.Ready(ln.Addr())
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
		return nil
	}
}

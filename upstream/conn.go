package upstream

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ConnectOptions configure [Connect]. The zero value works.
type ConnectOptions struct {
	// Name and Version are the client implementation sent in initialize;
	// empty means "ramabana-mcp" and "dev".
	Name, Version string
	// Logger receives the go-sdk client's log and this package's; nil
	// discards.
	Logger *slog.Logger
	// Stderr receives stdio servers' stderr; nil discards it. It must never
	// be the host's stdout, which may carry the host's own MCP stream.
	Stderr io.Writer
	// HTTPClient is the base client for url servers; nil means
	// http.DefaultClient. Configured headers are added to every request.
	HTTPClient *http.Client
	// LookupEnv resolves ${VAR} references; nil means os.LookupEnv.
	LookupEnv func(string) (string, bool)
	// CloseTimeout is how long Close waits for a stdio server to exit after
	// closing its stdin before it signals the process group (SIGTERM, then
	// SIGKILL after as long again). Zero means 5s.
	CloseTimeout time.Duration
}

func (o ConnectOptions) logger() *slog.Logger {
	if o.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return o.Logger
}

// Conn is a live session with one upstream server. It is safe for
// concurrent use.
type Conn struct {
	server  Server // as configured, references unexpanded
	session *mcp.ClientSession
	cmd     *exec.Cmd // stdio servers only
	log     *slog.Logger

	closeOnce sync.Once
	closeErr  error
}

// Connect starts or dials s and completes the MCP handshake. ctx bounds the
// handshake only: the session lives until Close.
func Connect(ctx context.Context, s Server, opts ConnectOptions) (*Conn, error) {
	x, err := s.expanded(opts.LookupEnv)
	if err != nil {
		return nil, fmt.Errorf("connect MCP server %q: %w", s.ID, err)
	}
	log := opts.logger().With("mcp_server", s.ID)
	client := mcp.NewClient(&mcp.Implementation{
		Name:    cmp.Or(opts.Name, "ramabana-mcp"),
		Version: cmp.Or(opts.Version, "dev"),
	}, &mcp.ClientOptions{
		Logger: log,
		// No roots: upstream servers get no view of the host's roots.
		Capabilities: &mcp.ClientCapabilities{},
	})
	c := &Conn{server: s, log: log}
	var transport mcp.Transport
	switch x.Type {
	case TypeStdio:
		c.cmd = command(x, opts)
		transport = &mcp.CommandTransport{Command: c.cmd, TerminateDuration: closeTimeout(opts)}
	case TypeHTTP:
		transport = &mcp.StreamableClientTransport{Endpoint: x.URL, HTTPClient: httpClient(opts.HTTPClient, x.Headers)}
	case TypeSSE:
		transport = detached{&mcp.SSEClientTransport{Endpoint: x.URL, HTTPClient: httpClient(opts.HTTPClient, x.Headers)}}
	default:
		return nil, fmt.Errorf("connect MCP server %q: unknown type %q", s.ID, x.Type)
	}
	session, err := client.Connect(ctx, cursorTransport{transport}, nil)
	if err != nil {
		if c.cmd != nil && c.cmd.Process != nil {
			killGroup(c.cmd.Process.Pid)
			if c.cmd.ProcessState == nil {
				_ = c.cmd.Wait()
			}
		}
		return nil, fmt.Errorf("connect MCP server %q: %w", s.ID, err)
	}
	c.session = session
	return c, nil
}

func closeTimeout(opts ConnectOptions) time.Duration {
	if opts.CloseTimeout > 0 {
		return opts.CloseTimeout
	}
	return 5 * time.Second
}

// command builds the stdio server's process: the host environment plus the
// configured env, in its own process group so that Close can end whatever it
// started.
func command(s Server, opts ConnectOptions) *exec.Cmd {
	cmd := exec.Command(s.Command, s.Args...)
	cmd.Dir = s.Cwd
	cmd.Env = os.Environ()
	for _, k := range slices.Sorted(maps.Keys(s.Env)) {
		cmd.Env = append(cmd.Env, k+"="+s.Env[k])
	}
	cmd.Stderr = opts.Stderr
	setProcessGroup(cmd)
	// Bounds Wait when a child of the server still holds stderr open.
	cmd.WaitDelay = time.Second
	return cmd
}

// Server returns the server as configured.
func (c *Conn) Server() Server { return c.server }

// Instructions returns the server's initialize instructions, if any.
func (c *Conn) Instructions() string {
	if r := c.session.InitializeResult(); r != nil {
		return r.Instructions
	}
	return ""
}

// Close ends the session. For a stdio server it closes stdin, waits for the
// process to exit (signalling it after CloseTimeout), then kills whatever is
// left in its process group. Close is idempotent; an exit status of the
// server is logged, not returned.
func (c *Conn) Close() error {
	c.closeOnce.Do(func() {
		err := c.session.Close()
		if c.cmd != nil {
			killGroup(c.cmd.Process.Pid)
			if exit := (*exec.ExitError)(nil); errors.As(err, &exit) {
				c.log.Debug("MCP server exited", "status", exit.String())
				err = nil
			}
		}
		if err != nil {
			c.closeErr = fmt.Errorf("close MCP server %q: %w", c.server.ID, err)
		}
	})
	return c.closeErr
}

// httpClient returns base with headers set on every request.
func httpClient(base *http.Client, headers map[string]string) *http.Client {
	if base == nil {
		base = http.DefaultClient
	}
	if len(headers) == 0 {
		return base
	}
	c := *base
	rt := c.Transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	c.Transport = headerTransport{rt, headers}
	return &c
}

type headerTransport struct {
	next    http.RoundTripper
	headers map[string]string
}

func (t headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	for k, v := range t.headers {
		req.Header.Set(k, v)
	}
	return t.next.RoundTrip(req)
}

// detached gives a transport a connection context that outlives the ctx
// passed to Connect, which bounds only the dial. The SSE client ties its
// event stream to that context, so a short handshake deadline would
// otherwise end the session.
type detached struct{ mcp.Transport }

func (d detached) Connect(ctx context.Context) (mcp.Connection, error) {
	connCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	stop := context.AfterFunc(ctx, cancel)
	conn, err := d.Transport.Connect(connCtx)
	if !stop() {
		// ctx ended during the dial and connCtx was cancelled with it.
		if conn != nil {
			_ = conn.Close()
		}
		cancel()
		return nil, cmp.Or(err, ctx.Err())
	}
	if err != nil {
		cancel()
		return nil, err
	}
	return &cancelConn{conn, cancel}, nil
}

type cancelConn struct {
	mcp.Connection
	cancel context.CancelFunc
}

func (c *cancelConn) Close() error {
	err := c.Connection.Close()
	c.cancel()
	return err
}

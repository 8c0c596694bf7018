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
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
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
	// ConnectTimeout bounds a Link's connect: the handshake and the first
	// tools/list. Zero means DefaultConnectTimeout.
	ConnectTimeout time.Duration
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
	stdio   *stdioTransport // stdio servers only
	log     *slog.Logger

	// onToolsChanged, when set (SetOnToolsChanged), is called on the
	// server's notifications/tools/list_changed, in a goroutine of its own.
	onToolsChanged atomic.Pointer[func()]

	done chan struct{} // closed when the session ends

	progressMu sync.Mutex
	progress   map[string]ProgressFunc // by the progress token of a call in flight
	nextToken  uint64

	closeOnce sync.Once
	closeErr  error
}

// ProgressFunc receives a call's progress notifications.
type ProgressFunc func(progress, total float64, message string)

// Connect starts or dials s and completes the MCP handshake. ctx bounds the
// handshake only: the session lives until Close.
func Connect(ctx context.Context, s Server, opts ConnectOptions) (*Conn, error) {
	x, err := s.expanded(opts.LookupEnv)
	if err != nil {
		return nil, fmt.Errorf("connect MCP server %q: %w", s.ID, err)
	}
	log := opts.logger().With("mcp_server", s.ID)
	c := &Conn{server: s, log: log, progress: map[string]ProgressFunc{}}
	client := mcp.NewClient(&mcp.Implementation{
		Name:    cmp.Or(opts.Name, "ramabana-mcp"),
		Version: cmp.Or(opts.Version, "dev"),
	}, &mcp.ClientOptions{
		Logger: log,
		// No roots: upstream servers get no view of the host's roots.
		Capabilities:                &mcp.ClientCapabilities{},
		ProgressNotificationHandler: c.onProgress,
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			if f := c.onToolsChanged.Load(); f != nil {
				go (*f)()
			}
		},
	})
	var transport mcp.Transport
	switch x.Type {
	case TypeStdio:
		c.stdio = &stdioTransport{cmd: command(x, opts), terminate: closeTimeout(opts)}
		transport = c.stdio
	case TypeHTTP:
		transport = &mcp.StreamableClientTransport{Endpoint: x.URL, HTTPClient: httpClient(opts.HTTPClient, x.Headers)}
	case TypeSSE:
		transport = detached{&mcp.SSEClientTransport{Endpoint: x.URL, HTTPClient: httpClient(opts.HTTPClient, x.Headers)}}
	default:
		return nil, fmt.Errorf("connect MCP server %q: unknown type %q", s.ID, x.Type)
	}
	session, err := client.Connect(ctx, cursorTransport{transport}, nil)
	if err != nil {
		if c.stdio != nil {
			c.stdio.kill()
		}
		return nil, fmt.Errorf("connect MCP server %q: %w", s.ID, err)
	}
	c.session = session
	c.done = make(chan struct{})
	go func() {
		_ = session.Wait()
		close(c.done)
	}()
	return c, nil
}

// SetOnToolsChanged sets the function called, in a goroutine of its own,
// each time the server says its tool list changed.
func (c *Conn) SetOnToolsChanged(f func()) { c.onToolsChanged.Store(&f) }

// Done is closed when the session has ended: closed, or the server gone
// (a stdio server exited, an HTTP session lost).
func (c *Conn) Done() <-chan struct{} { return c.done }

// Transport names how the server is reached: "stdio", "streamable-http"
// or "sse".
func (c *Conn) Transport() string { return TransportLabel(c.server.Type) }

// TransportLabel names a server type as 003's upstream_register records
// it: "stdio", "streamable-http" or "sse".
func TransportLabel(typ string) string {
	if typ == TypeHTTP {
		return "streamable-http"
	}
	return typ
}

// Pid is the stdio server's process id; 0 for a url server.
func (c *Conn) Pid() int {
	if c.stdio == nil {
		return 0
	}
	return c.stdio.pid()
}

func (c *Conn) onProgress(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
	token := fmt.Sprint(req.Params.ProgressToken)
	c.progressMu.Lock()
	f := c.progress[token]
	c.progressMu.Unlock()
	if f != nil {
		f(req.Params.Progress, req.Params.Total, req.Params.Message)
	}
}

// watchProgress routes the progress notifications of one call to f, under
// a token it returns; done stops the routing.
func (c *Conn) watchProgress(f ProgressFunc) (token string, done func()) {
	c.progressMu.Lock()
	defer c.progressMu.Unlock()
	c.nextToken++
	token = "ramabana-" + strconv.FormatUint(c.nextToken, 10)
	c.progress[token] = f
	return token, func() {
		c.progressMu.Lock()
		delete(c.progress, token)
		c.progressMu.Unlock()
	}
}

func closeTimeout(opts ConnectOptions) time.Duration {
	if opts.CloseTimeout > 0 {
		return opts.CloseTimeout
	}
	return 5 * time.Second
}

// command builds the stdio server's process: the host environment (less
// ramabana's own RAMABANA_* variables, which hold its bearer token and
// plugin secrets) plus the configured env, which may set any variable.
func command(s Server, opts ConnectOptions) *exec.Cmd {
	cmd := exec.Command(s.Command, s.Args...)
	cmd.Dir = s.Cwd
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "RAMABANA_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(s.Env)) {
		cmd.Env = append(cmd.Env, k+"="+s.Env[k])
	}
	cmd.Stderr = opts.Stderr
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
// process to exit (signalling it after CloseTimeout), then kills whatever it
// left behind. Close is idempotent; an exit status of the
// server is logged, not returned.
func (c *Conn) Close() error {
	c.closeOnce.Do(func() {
		err := c.session.Close()
		if c.stdio != nil {
			// Closing the session closed stdin and waited for the server.
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

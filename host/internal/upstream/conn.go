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
	"net/url"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ramabana/ramabana-mcp/internal/launch"
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
	// Pins holds back a Link's tools whose definitions changed since they
	// were pinned; the zero value pins nothing.
	Pins Pins
	// Tokens are the OAuth tokens kept for remote servers (type http):
	// a server with one gets it, refreshed as it expires (oauth.go).
	Tokens Tokens
	// OAuth, when set, authorizes the connection instead (Login's flow).
	OAuth auth.OAuthHandler
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
	// server's notifications/tools/list_changed; changedEarly remembers
	// one that came before it was set.
	onToolsChanged atomic.Pointer[func()]
	changedEarly   atomic.Bool
	// onFeatures, when set (SetOnFeatures), is told of the server's
	// resources/list_changed and prompts/list_changed (uri ""), and of
	// resources/updated (the resource's namespaced uri).
	onFeatures atomic.Pointer[func(uri string)]

	hints absentHints // what each listed tool's annotations leave out (cursor.go)

	// acks are the resource subscriptions waiting for the server's
	// notifications/subscriptions/acknowledged, by URI (features.go).
	acksMu sync.Mutex
	acks   map[string][]chan struct{}

	done chan struct{} // closed when the session ends

	secrets []string // expanded ${VAR} values, kept out of errors

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
	lookup := opts.LookupEnv
	if lookup == nil {
		lookup = os.LookupEnv
	}
	var secrets []string // what ${VAR}s expanded to: errors must not show them
	x, err := s.expanded(func(name string) (string, bool) {
		v, ok := lookup(name)
		if ok && len(v) >= minSecret {
			secrets = append(secrets, v)
		}
		return v, ok
	})
	if err != nil {
		return nil, fmt.Errorf("connect MCP server %q: %w", s.ID, err)
	}
	log := opts.logger().With("mcp_server", s.ID)
	c := &Conn{server: s, log: log, progress: map[string]ProgressFunc{}, secrets: secrets}
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
				(*f)()
			} else {
				c.changedEarly.Store(true)
			}
		},
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) { c.featuresChanged("") },
		PromptListChangedHandler:   func(context.Context, *mcp.PromptListChangedRequest) { c.featuresChanged("") },
		ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
			if req.Params != nil && req.Params.URI != "" {
				c.featuresChanged(NamespaceURI(s.ID, req.Params.URI))
			}
		},
	})
	client.AddReceivingMiddleware(c.watchAcks)
	var transport mcp.Transport
	watch := &authWatch{}
	switch x.Type {
	case TypeStdio:
		c.stdio = &stdioTransport{cmd: command(x, opts), terminate: closeTimeout(opts)}
		transport = c.stdio
	case TypeHTTP:
		client := httpClient(opts.HTTPClient, x.URL, x.Headers, watch)
		oauth := opts.OAuth
		if oauth == nil {
			oauth = opts.Tokens.handler(s, client) // keyed by the URL as configured, as Login keeps it
		}
		transport = &mcp.StreamableClientTransport{Endpoint: x.URL, HTTPClient: client, OAuthHandler: oauth}
	case TypeSSE:
		transport = detached{&mcp.SSEClientTransport{Endpoint: x.URL, HTTPClient: httpClient(opts.HTTPClient, x.URL, x.Headers, watch)}}
	default:
		return nil, fmt.Errorf("connect MCP server %q: unknown type %q", s.ID, x.Type)
	}
	session, err := client.Connect(ctx, cursorTransport{Transport: transport, hints: &c.hints}, nil)
	if err != nil {
		if c.stdio != nil {
			c.stdio.kill()
		}
		if errors.Is(err, ErrNeedsAuth) {
			return nil, c.redact(fmt.Errorf("connect MCP server %q: %w", s.ID, err))
		}
		if code := watch.status.Load(); code != 0 {
			how := `set its credentials in the config's headers, e.g. "Authorization": "Bearer ${TOKEN}"`
			if x.Type == TypeHTTP {
				how = fmt.Sprintf("log in with `ramabana-mcp upstream login %s` if it uses OAuth, or %s", s.ID, how)
			}
			return nil, c.redact(fmt.Errorf("connect MCP server %q: %w (HTTP %d): %s (%w)", s.ID, ErrNeedsAuth, code, how, err))
		}
		return nil, c.redact(fmt.Errorf("connect MCP server %q: %w", s.ID, err))
	}
	c.session = session
	c.done = make(chan struct{})
	go func() {
		_ = session.Wait()
		close(c.done)
	}()
	return c, nil
}

// minSecret is the shortest expanded value redact hides: shorter ones
// would garble messages and hide little.
const minSecret = 4

// redact replaces every expanded ${VAR} value in err's message with
// [redacted]: a token in a url's query would otherwise reach the log, the
// status resource and the activity feed. The result still wraps err.
func (c *Conn) redact(err error) error {
	if err == nil || len(c.secrets) == 0 {
		return err
	}
	msg := err.Error()
	for _, s := range c.secrets {
		msg = strings.ReplaceAll(msg, s, "[redacted]")
	}
	if msg == err.Error() {
		return err
	}
	return &redactedError{msg: msg, err: err}
}

type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

// SetOnToolsChanged sets the function called each time the server says
// its tool list changed, at once if it said so before. f must not block:
// it runs on the session's message loop.
func (c *Conn) SetOnToolsChanged(f func()) {
	c.onToolsChanged.Store(&f)
	if c.changedEarly.Swap(false) {
		f()
	}
}

// SetOnFeatures sets the function told of changes to the server's
// resources and prompts: uri "" when a list changed, a resource's
// namespaced URI when the server says it was updated. f must not block.
func (c *Conn) SetOnFeatures(f func(uri string)) { c.onFeatures.Store(&f) }

func (c *Conn) featuresChanged(uri string) {
	if f := c.onFeatures.Load(); f != nil {
		(*f)(uri)
	}
}

// Done is closed when the session has ended: closed, or the server gone
// (a stdio server exited, an HTTP session lost).
func (c *Conn) Done() <-chan struct{} { return c.done }

// TransportLabel names a server type as the status shows it
// (docs/upstream.md): "stdio", "streamable-http" or "sse".
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

// command builds the stdio server's process. Its environment is not the
// host's, which may hold ramabana's keys and tokens (the bearer token, the
// model's and the embeddings' API keys) and the user's: it is the base
// allow-list every program ramabana starts gets (launch.BaseEnviron: PATH,
// HOME, the locale, the temporary and XDG folders, certificates, proxies),
// plus the configured env, which may set any variable, one of the host's
// passed on purpose with "NAME": "${NAME}" included.
func command(s Server, opts ConnectOptions) *exec.Cmd {
	cmd := exec.Command(s.Command, s.Args...)
	cmd.Dir = s.Cwd
	cmd.Env = launch.BaseEnviron(os.Environ())
	// Appended last, the configured values win: of a repeated name,
	// exec.Cmd uses the last.
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

// ErrNeedsAuth is wrapped by a connect refused for want of credentials:
// the server answered 401, or 403 with a WWW-Authenticate challenge.
var ErrNeedsAuth = errors.New("the server needs authorization")

// authWatch notes the last refusal for want of credentials the server's
// host answered.
type authWatch struct{ status atomic.Int32 }

func (w *authWatch) note(resp *http.Response) {
	if resp.StatusCode == http.StatusUnauthorized ||
		resp.StatusCode == http.StatusForbidden && resp.Header.Get("WWW-Authenticate") != "" {
		w.status.Store(int32(resp.StatusCode))
	}
}

// httpClient returns base with headers set on every request to the
// endpoint's host (and port): a redirect elsewhere does not get them.
// Every answer is shown to auth.
func httpClient(base *http.Client, endpoint string, headers map[string]string, auth *authWatch) *http.Client {
	if base == nil {
		base = http.DefaultClient
	}
	c := *base
	rt := c.Transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	host := ""
	if u, err := url.Parse(endpoint); err == nil {
		host = u.Host
	}
	c.Transport = headerTransport{rt, host, headers, auth}
	return &c
}

type headerTransport struct {
	next    http.RoundTripper
	host    string // the endpoint's host:port
	headers map[string]string
	auth    *authWatch
}

func (t headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.URL.Host == t.host && len(t.headers) > 0 {
		req = req.Clone(req.Context())
		for k, v := range t.headers {
			req.Header.Set(k, v)
		}
	}
	resp, err := t.next.RoundTrip(req)
	if err == nil && req.URL.Host == t.host {
		t.auth.note(resp) // not a redirect's: that host's refusal is not this server's
	}
	return resp, err
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

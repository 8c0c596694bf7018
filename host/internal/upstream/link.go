package upstream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ramabana/ramabana-mcp/sdk"
)

// States of a [Link], as [LinkStatus.State] names them.
const (
	StateIdle         = "idle"         // not connected yet
	StateLazy         = "lazy"         // a lazy server: each conversation connects its own with mcp_connect
	StateConnecting   = "connecting"   // the handshake or the first tools/list is under way
	StateReady        = "ready"        // connected, tools listed
	StateFailed       = "failed"       // the last connect failed (Error says why); the next use tries again
	StateDisconnected = "disconnected" // the connection was lost; the next use reconnects
	StateClosed       = "closed"
)

// DefaultConnectTimeout bounds a connect (handshake and first tools/list)
// when ConnectOptions.ConnectTimeout is zero.
const DefaultConnectTimeout = 30 * time.Second

// Link keeps one upstream server connected for whoever uses it. It
// connects on first use (or Connect), lists the server's tools (only those
// its allow and deny lists let through), lists them again when the server
// says they changed, and reconnects on the next use after the connection
// was lost: a stdio server that exited, an HTTP session the server no
// longer knows. Every call is bounded by the server's timeout, and every
// connect by the connect timeout. A Link is safe for concurrent use.
type Link struct {
	server   Server
	opts     ConnectOptions
	onChange func() // after the tools or the state changed; nil: nobody asks

	connectMu sync.Mutex // one connect at a time

	mu            sync.Mutex
	conn          *Conn  // nil when not connected
	listed        []Tool // as last listed, those the allow and deny lists let through
	tools         []Tool // listed, less those held
	held          []Held // listed tools the pins hold back
	features      Features
	onUpdated     func(uri string)  // SetOnResourceUpdated
	names         map[string]string // namespaced name → upstream name
	state         string
	err           error
	instructions  string
	transport     string
	closed        bool
	cancelConnect context.CancelFunc // of the connect in flight
	attempts      int                // connects begun
	relisting     bool               // a re-list runs
	relistAgain   bool               // the list changed again while it ran
}

// NewLink returns a Link to s that is not connected yet. onChange, when
// not nil, is called (never with the Link's lock held) after each change
// of its tools or state.
func NewLink(s Server, opts ConnectOptions, onChange func()) *Link {
	return &Link{server: s, opts: opts, onChange: onChange, state: StateIdle, transport: TransportLabel(s.Type)}
}

// Server returns the server as configured.
func (l *Link) Server() Server { return l.server }

// conn is the current connection, nil when there is none (for tests).
func (l *Link) connection() *Conn {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.conn
}

// Tools returns the tools of the last listing, in upstream order; none
// before the first connect.
func (l *Link) Tools() []Tool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.tools)
}

// Instructions are the server's initialize instructions, once connected.
func (l *Link) Instructions() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.instructions
}

// ErrClosed is the error of a Link used after Close.
var ErrClosed = errors.New("MCP server connection is closed")

// Connect connects the server, unless it is connected already, and returns
// its tools. A failed connect leaves the Link failed; the next use tries
// again.
func (l *Link) Connect(ctx context.Context) ([]Tool, error) {
	if _, err := l.live(ctx); err != nil {
		return nil, err
	}
	return l.Tools(), nil
}

// live returns the connection, connecting first when there is none or it
// was lost.
func (l *Link) live(ctx context.Context) (*Conn, error) {
	if c, err := l.current(); c != nil || err != nil {
		return c, err
	}
	l.mu.Lock()
	attempt := l.attempts
	l.mu.Unlock()
	l.connectMu.Lock()
	defer l.connectMu.Unlock()
	if c, err := l.current(); c != nil || err != nil {
		return c, err // connected while this one waited
	}
	l.mu.Lock()
	if l.attempts != attempt && l.state == StateFailed {
		// A connect that began while this one waited failed: its answer
		// is this one's, rather than another wait of a connect timeout.
		err := l.err
		l.mu.Unlock()
		return nil, err
	}
	l.attempts++
	l.mu.Unlock()

	ctx, cancel := context.WithTimeout(ctx, l.connectTimeout())
	defer cancel()
	l.mu.Lock()
	l.cancelConnect = cancel
	l.state, l.err = StateConnecting, nil
	l.mu.Unlock()
	l.changed()

	conn, err := Connect(ctx, l.server, l.opts)
	var tools []Tool
	if err == nil {
		tools, err = l.list(ctx, conn)
		if err != nil {
			_ = conn.Close()
		}
	}
	if err != nil && ctx.Err() == context.DeadlineExceeded {
		err = fmt.Errorf("connect MCP server %q: no answer within %s: %w", l.server.ID, l.connectTimeout(), err)
	}

	l.mu.Lock()
	l.cancelConnect = nil
	if l.closed {
		l.mu.Unlock()
		if err == nil {
			_ = conn.Close()
		}
		return nil, ErrClosed
	}
	if err != nil {
		l.state, l.err = StateFailed, err
		l.mu.Unlock()
		l.changed()
		return nil, err
	}
	l.conn, l.state, l.err = conn, StateReady, nil
	l.instructions = conn.Instructions()
	l.setTools(tools)
	l.mu.Unlock()
	l.listFeatures(ctx, conn)
	conn.SetOnFeatures(func(uri string) {
		if uri == "" {
			go l.listFeatures(context.Background(), conn)
			return
		}
		l.mu.Lock()
		f := l.onUpdated
		l.mu.Unlock()
		if f != nil {
			f(uri)
		}
	})
	conn.SetOnToolsChanged(func() { l.listChanged(conn) })
	go l.watch(conn)
	l.changed()
	return conn, nil
}

// current is the live connection, or nil; an error only after Close.
func (l *Link) current() (*Conn, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil, ErrClosed
	}
	if l.conn == nil {
		return nil, nil
	}
	select {
	case <-l.conn.Done():
		l.lost(l.conn)
		return nil, nil
	default:
		return l.conn, nil
	}
}

// lost forgets a connection that ended; l.mu is held.
func (l *Link) lost(c *Conn) {
	if l.conn != c {
		return
	}
	l.conn = nil
	if !l.closed {
		l.state = StateDisconnected
	}
	go c.Close() // reaps a stdio server; never under the lock
}

// watch marks the Link disconnected when c ends.
func (l *Link) watch(c *Conn) {
	<-c.Done()
	l.mu.Lock()
	was := l.conn == c && !l.closed
	l.lost(c)
	l.mu.Unlock()
	if was {
		l.opts.logger().Warn("MCP server connection lost; it reconnects on next use", "mcp_server", l.server.ID)
		l.changed()
	}
}

// list lists the server's tools that the config lets through.
func (l *Link) list(ctx context.Context, c *Conn) ([]Tool, error) {
	tools, err := c.Tools(ctx)
	if err != nil {
		return nil, err
	}
	kept := tools[:0]
	for _, t := range tools {
		if l.server.Allows(t.Name) {
			kept = append(kept, t)
		}
	}
	return kept, nil
}

// listChanged lists the tools again after the server said they changed:
// one listing at a time, and one more after it when the server said so
// again meanwhile, so that a flood of notifications costs two listings and
// the last listing is the newest.
func (l *Link) listChanged(c *Conn) {
	l.mu.Lock()
	if l.relisting {
		l.relistAgain = true
		l.mu.Unlock()
		return
	}
	l.relisting = true
	l.mu.Unlock()
	go func() {
		for {
			l.relist(c)
			l.mu.Lock()
			if !l.relistAgain || l.conn != c {
				l.relisting, l.relistAgain = false, false
				l.mu.Unlock()
				return
			}
			l.relistAgain = false
			l.mu.Unlock()
		}
	}()
}

// relist lists the tools again.
func (l *Link) relist(c *Conn) {
	ctx, cancel := context.WithTimeout(context.Background(), l.connectTimeout())
	defer cancel()
	tools, err := l.list(ctx, c)
	l.mu.Lock()
	if l.conn != c {
		l.mu.Unlock()
		return
	}
	if err != nil {
		l.err = err // the tools listed before stay
		l.mu.Unlock()
		l.opts.logger().Warn("MCP server's tools could not be listed again; keeping the earlier list", "mcp_server", l.server.ID, "error", err)
		l.changed()
		return
	}
	l.err = nil
	l.setTools(tools)
	l.mu.Unlock()
	l.changed()
}

// setTools replaces the tools with those of listed that the pins let
// through; l.mu is held. A tool held now that was not before is logged.
func (l *Link) setTools(listed []Tool) {
	l.listed = listed
	tools, held, err := l.opts.Pins.Check(l.server, listed)
	if err != nil {
		l.opts.logger().Warn("MCP server's tools could not be pinned; they are served unpinned", "mcp_server", l.server.ID, "error", err)
	}
	was := map[string]bool{}
	for _, h := range l.held {
		was[h.Tool] = true
	}
	for _, h := range held {
		if !was[h.Tool] {
			l.opts.logger().Warn("MCP server tool held back", "mcp_server", l.server.ID, "tool", h.Tool, "reason", h.Reason(l.server.ID))
		}
	}
	l.tools, l.held = tools, held
	l.names = make(map[string]string, len(tools))
	for _, t := range tools {
		l.names[t.Namespaced] = t.Name
	}
}

// Repin checks the tools last listed against the pins again, after the
// user approved some (`ramabana-mcp upstream approve`): a tool approved
// is served from now on. It reports whether the tools changed.
func (l *Link) Repin() bool {
	l.mu.Lock()
	if l.conn == nil {
		l.mu.Unlock()
		return false
	}
	before := len(l.held)
	l.setTools(l.listed)
	changed := len(l.held) != before
	l.mu.Unlock()
	if changed {
		l.changed()
	}
	return changed
}

// Held is what the pins hold back of the tools last listed.
func (l *Link) Held() []Held {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.held)
}

// listFeatures lists the server's resources, templates and prompts on c
// (features), keeping the earlier lists when that fails.
func (l *Link) listFeatures(ctx context.Context, c *Conn) {
	ctx, cancel := context.WithTimeout(ctx, l.connectTimeout())
	defer cancel()
	f, err := c.features(ctx)
	if err != nil {
		l.opts.logger().Warn("MCP server's resources or prompts could not be listed", "mcp_server", l.server.ID, "error", err)
	}
	l.mu.Lock()
	if l.conn != c {
		l.mu.Unlock()
		return
	}
	if err == nil || len(f.Resources)+len(f.Templates)+len(f.Prompts) > 0 {
		l.features = f
	}
	l.mu.Unlock()
	l.changed()
}

// Features are the server's resources, resource templates and prompts as
// last listed, namespaced.
func (l *Link) Features() Features {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.features
}

// SetOnResourceUpdated sets the function told, with its namespaced URI,
// of each resource the server says was updated (after a Subscribe).
func (l *Link) SetOnResourceUpdated(f func(uri string)) {
	l.mu.Lock()
	l.onUpdated = f
	l.mu.Unlock()
}

// ReadResource reads the server's resource uri (its own URI), bounded by
// the server's call timeout.
func (l *Link) ReadResource(ctx context.Context, uri string) (*mcp.ReadResourceResult, error) {
	c, err := l.live(ctx)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, l.server.CallTimeout())
	defer cancel()
	return c.ReadResource(ctx, uri)
}

// GetPrompt gets the server's prompt listed as namespaced.
func (l *Link) GetPrompt(ctx context.Context, namespaced string, args map[string]string) (*mcp.GetPromptResult, error) {
	c, err := l.live(ctx)
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	name, listed := l.features.PromptNames[namespaced]
	l.mu.Unlock()
	if !listed {
		return nil, fmt.Errorf("MCP server %q lists no prompt %q", l.server.ID, namespaced)
	}
	ctx, cancel := context.WithTimeout(ctx, l.server.CallTimeout())
	defer cancel()
	return c.GetPrompt(ctx, name, args)
}

// Subscribe and Unsubscribe forward a subscription to the server's
// resource uri (its own URI).
func (l *Link) Subscribe(ctx context.Context, uri string) error {
	c, err := l.live(ctx)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, l.server.CallTimeout())
	defer cancel()
	return c.Subscribe(ctx, uri)
}

func (l *Link) Unsubscribe(ctx context.Context, uri string) error {
	c, err := l.current()
	if c == nil || err != nil {
		return err
	}
	return c.Unsubscribe(ctx, uri)
}

func (l *Link) changed() {
	if l.onChange != nil {
		l.onChange()
	}
}

func (l *Link) connectTimeout() time.Duration {
	if l.opts.ConnectTimeout > 0 {
		return l.opts.ConnectTimeout
	}
	return DefaultConnectTimeout
}

// Call calls one of the server's tools by its namespaced name, connecting
// first when needed. The call ends after the server's timeout. A name the
// server does not list matches [ErrUnknownTool]; a connection that fails
// under a call (anything but the server's own JSON-RPC error, the timeout
// or a cancel) fails this call and the next one reconnects; see
// [Conn.Call] for the rest.
func (l *Link) Call(ctx context.Context, namespaced string, args json.RawMessage, progress ProgressFunc) (*sdk.Result, error) {
	for retried := false; ; retried = true {
		res, unsent, err := l.call(ctx, namespaced, args, progress)
		if !unsent || retried {
			return res, err
		}
		// The connection was closing, so the request never went out: the
		// dead connection is dropped, and one more try connects afresh.
	}
}

// call is one try of Call; unsent says the request never went out because
// the connection was already closing.
func (l *Link) call(ctx context.Context, namespaced string, args json.RawMessage, progress ProgressFunc) (_ *sdk.Result, unsent bool, _ error) {
	c, err := l.live(ctx)
	if err != nil {
		return nil, false, err
	}
	l.mu.Lock()
	tool, listed := l.names[namespaced]
	l.mu.Unlock()
	if !listed {
		_, asked, _ := SplitName(namespaced)
		return nil, false, unknownTool(namespaced, fmt.Sprintf("MCP server %q lists no tool %q", l.server.ID, asked))
	}
	limit := l.server.CallTimeout()
	callCtx, cancel := context.WithTimeoutCause(ctx, limit, errTimedOut)
	defer cancel()
	res, err := c.Call(callCtx, tool, args, progress)
	var rpcErr *jsonrpc.Error
	switch {
	case err == nil:
		return res, false, nil
	case ctx.Err() == nil && errors.Is(context.Cause(callCtx), errTimedOut):
		return nil, false, fmt.Errorf("MCP server %q did not answer %s within %s (its timeout): %w", l.server.ID, tool, limit, ErrTimeout)
	case ctx.Err() != nil, errors.As(err, &rpcErr):
		return nil, false, err // cancelled, or the server's own answer: the connection is fine
	}
	// The connection failed under the call (a stdio server that exited, an
	// HTTP session the server lost): the next use connects afresh.
	l.mu.Lock()
	l.lost(c)
	l.mu.Unlock()
	l.changed()
	// The SDK says ErrConnectionClosed only of a call it refused to send.
	return nil, errors.Is(err, mcp.ErrConnectionClosed), fmt.Errorf("%w (the connection is lost; the next call reconnects)", err)
}

var errTimedOut = errors.New("the MCP server's timeout")

// ErrTimeout is matched by a call that outlived its server's timeout.
var ErrTimeout = errors.New("timed out")

// LinkStatus is a Link's state for the status resource.
type LinkStatus struct {
	ID          string `json:"id"`
	Description string `json:"description,omitempty"`
	Transport   string `json:"transport"`
	State       string `json:"state"`
	Error       string `json:"error,omitempty"`
	Lazy        bool   `json:"lazy,omitempty"`
	ReadOnly    bool   `json:"readonly,omitempty"`
	Tools       int    `json:"tools"`
	// Renamed maps each shortened tool name to the upstream tool's name.
	Renamed      map[string]string `json:"renamed,omitempty"`
	Instructions string            `json:"instructions,omitempty"`
	Source       string            `json:"source,omitempty"`
	// NeedsAuth says the server refused the last connect for want of
	// credentials (ErrNeedsAuth).
	NeedsAuth bool `json:"needs_auth,omitempty"`
	// Held are the tools the pins hold back: each changed since it was
	// pinned (or, under pin strict, new), with what lets it through.
	Held []HeldStatus `json:"held,omitempty"`
}

// HeldStatus is a held tool in the status.
type HeldStatus struct {
	Tool   string `json:"tool"`
	Name   string `json:"name"` // the name it would be served under
	Reason string `json:"reason"`
}

// IdleStatus is the status of s before anything connected it: idle, or
// lazy for a lazy server.
func IdleStatus(s Server) LinkStatus {
	st := NewLink(s, ConnectOptions{}, nil).Status()
	if s.Lazy {
		st.State = StateLazy
	}
	return st
}

// Status says how the Link stands.
func (l *Link) Status() LinkStatus {
	l.mu.Lock()
	defer l.mu.Unlock()
	st := LinkStatus{
		ID: l.server.ID, Description: l.server.Description, Transport: l.transport, State: l.state,
		Lazy: l.server.Lazy, ReadOnly: l.server.ReadOnly, Tools: len(l.tools),
		Instructions: l.instructions, Source: l.server.Source,
	}
	if l.err != nil {
		st.Error = l.err.Error()
		st.NeedsAuth = errors.Is(l.err, ErrNeedsAuth)
	}
	for _, h := range l.held {
		st.Held = append(st.Held, HeldStatus{Tool: h.Tool, Name: h.Namespaced, Reason: h.Reason(l.server.ID)})
	}
	for _, t := range l.tools {
		if t.Namespaced != l.server.ID+Separator+t.Name {
			if st.Renamed == nil {
				st.Renamed = map[string]string{}
			}
			st.Renamed[t.Namespaced] = t.Name
		}
	}
	return st
}

// Close cancels a connect in flight and ends the connection (a stdio
// server with everything it started). The Link cannot be used after.
func (l *Link) Close() error {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return nil
	}
	l.closed = true
	l.state = StateClosed
	if l.cancelConnect != nil {
		l.cancelConnect()
	}
	c := l.conn
	l.conn = nil
	l.mu.Unlock()
	// A cancelled connect closes what it opened before it returns: wait
	// for it.
	l.connectMu.Lock()
	defer l.connectMu.Unlock()
	if c != nil {
		return c.Close()
	}
	return nil
}

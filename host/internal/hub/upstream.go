package hub

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ramabana/ramabana-mcp/host/internal/activity"
	"github.com/ramabana/ramabana-mcp/host/internal/catalog"
	"github.com/ramabana/ramabana-mcp/host/internal/upstream"
	"github.com/ramabana/ramabana-mcp/sdk"
)

// upstreams are the MCP servers of the user's config as the host serves
// them: each eager one is a Link connected at Start, its tools in the
// catalog under the source "mcp:<id>"; lazy ones wait for a
// conversation's mcp_connect (UpstreamSession).
type upstreams struct {
	links   map[string]*upstream.Link // eager servers, by id
	refused map[string]string         // servers not served, by id: why
	connect sync.WaitGroup            // the connects Start began
	retries sync.WaitGroup            // retryUpstream loops; they end when the host closes

	// syncMu makes each sync read a link's tools and put them in the
	// catalog in one step, so the last listing is the one that stays.
	syncMu sync.Mutex
	state  map[string]string          // the state each link was last seen in
	held   map[string]map[string]bool // the tools each link held back when last seen

	subs upstreamSubs // subscriptions to upstream resources (features.go)
}

// upstreamSource is the catalog source of an upstream server's tools.
func upstreamSource(id string) string { return "mcp:" + id }

// newUpstreams makes a Link of every eager server; nothing connects yet.
func (h *Host) newUpstreams() {
	h.up.links = map[string]*upstream.Link{}
	h.up.state = map[string]string{}
	h.up.held = map[string]map[string]bool{}
	h.up.refused = map[string]string{}
	for _, s := range h.upstreamServers() {
		if s.Lazy {
			continue
		}
		id := s.ID
		h.up.links[id] = upstream.NewLink(s, h.upstreamOptions(), func() { h.syncUpstream(id) })
	}
}

// upstreamServers are the configured servers the host serves: not those
// refused, nor those --groups opts out (they are not even started).
func (h *Host) upstreamServers() []upstream.Server {
	var out []upstream.Server
	for _, s := range h.cfg.Upstream.Servers() {
		if _, refused := h.up.refused[s.ID]; !refused && h.serverMounted(s.ID) {
			out = append(out, s)
		}
	}
	return out
}

// repinUpstreams checks every eager server's tools against the pins
// again, after the pins changed on disk (an approval): a tool approved is
// served at once.
func (h *Host) repinUpstreams() {
	for _, l := range h.up.links {
		l.Repin()
	}
}

// serverMounted reports whether --groups leaves the upstream server id in
// (catalog.Policy.ServerMounted).
func (h *Host) serverMounted(id string) bool {
	ok, _ := h.policy.ServerMounted(id)
	return ok
}

func (h *Host) upstreamOptions() upstream.ConnectOptions {
	opts := h.cfg.UpstreamOptions
	opts.Version = h.cfg.Version
	if opts.Logger == nil {
		opts.Logger = h.logger
	}
	return opts
}

// startUpstreams connects every eager server in the background, all at
// once; h.up.connect ends when each has connected or failed. One that
// failed is tried again in the background (retryUpstream).
func (h *Host) startUpstreams() {
	for _, l := range h.up.links {
		h.up.connect.Go(func() {
			if _, err := l.Connect(context.Background()); err != nil && !errors.Is(err, upstream.ErrClosed) {
				h.logger.Warn("MCP server skipped; it is tried again in the background", "mcp_server", l.Server().ID, "error", err)
				h.up.retries.Go(func() { h.retryUpstream(l) })
			}
		})
	}
}

// Bounds of the waits between retries of an eager server that failed.
const (
	firstRetry = 30 * time.Second
	lastRetry  = 10 * time.Minute
)

// retryUpstream connects a failed eager server again, after firstRetry,
// then waits twice as long each time up to lastRetry, until it connects or
// the host closes: a server whose first start outlived the connect timeout
// (an npx download), or that was down, joins when it can.
func (h *Host) retryUpstream(l *upstream.Link) {
	for wait := firstRetry; ; wait = min(2*wait, lastRetry) {
		timer := time.NewTimer(wait)
		select {
		case <-timer.C:
		case <-h.closing:
			timer.Stop()
			return
		}
		if l.Status().State == upstream.StateReady {
			return // a call connected it meanwhile
		}
		_, err := l.Connect(context.Background())
		if err == nil || errors.Is(err, upstream.ErrClosed) {
			return
		}
		h.logger.Debug("MCP server still fails", "mcp_server", l.Server().ID, "error", err, "next_try", min(2*wait, lastRetry))
	}
}

// syncUpstream makes the catalog hold what the link of id lists now, and
// notes a connect in the activity feed.
func (h *Host) syncUpstream(id string) {
	l := h.up.links[id]
	h.up.syncMu.Lock()
	st := l.Status()
	prev := h.up.state[id]
	h.up.state[id] = st.State
	if st.State == upstream.StateClosed {
		h.up.syncMu.Unlock()
		return
	}
	caller := linkCaller{l}
	tools := l.Tools()
	entries := make([]*catalog.Entry, 0, len(tools))
	for _, t := range tools {
		entries = append(entries, UpstreamEntry(l.Server(), t, caller))
	}
	errs := h.catalog.Replace(upstreamSource(id), entries)
	held := map[string]bool{}
	for _, t := range st.Held {
		held[t.Tool] = true
		if !h.up.held[id][t.Tool] {
			h.activity.Note(activity.EventUpstreamHeld, id, activity.Server, t.Name+": "+t.Reason)
		}
	}
	h.up.held[id] = held
	h.up.syncMu.Unlock()
	for _, err := range errs {
		h.logger.Warn("MCP server tool left out", "mcp_server", id, "error", err)
	}
	if st.State == upstream.StateReady && prev != upstream.StateReady {
		h.activity.Note(activity.EventUpstreamRegister, id, activity.Server, registerMessage(st))
		h.logger.Info("MCP server connected", "mcp_server", id, "transport", st.Transport, "tools", st.Tools)
	}
	h.toolsChanged()
}

// registerMessage is an upstream_register event's message: transport
// label, tool count and instructions (docs/upstream.md).
func registerMessage(st upstream.LinkStatus) string {
	msg := fmt.Sprintf("%s, %d tools", st.Transport, st.Tools)
	if st.Instructions != "" {
		msg += ", instructions: " + st.Instructions
	}
	return msg
}

// closeUpstreams ends every eager server's connection (h.closing is
// closed, so no retry starts another).
func (h *Host) closeUpstreams() {
	var wg sync.WaitGroup
	for _, l := range h.up.links {
		wg.Go(func() { _ = l.Close() })
	}
	wg.Wait()
	h.up.connect.Wait() // no connect of Start's is left to start a retry
	h.up.retries.Wait()
}

// UpstreamStatus is every configured upstream server's state: eager ones
// as their link stands, lazy ones as "lazy" (each conversation connects
// its own).
func (h *Host) UpstreamStatus() []upstream.LinkStatus {
	var out []upstream.LinkStatus
	for _, s := range h.cfg.Upstream.Servers() {
		switch l := h.up.links[s.ID]; {
		case l != nil:
			out = append(out, l.Status())
		case h.up.refused[s.ID] != "":
			st := upstream.IdleStatus(s)
			st.State, st.Error = upstream.StateFailed, h.up.refused[s.ID]
			out = append(out, st)
		case !h.serverMounted(s.ID):
			st := upstream.IdleStatus(s)
			st.State, st.Error = upstream.StateIdle, "opted out with --groups"
			out = append(out, st)
		default:
			out = append(out, upstream.IdleStatus(s))
		}
	}
	return out
}

// UpstreamEntry is the catalog entry of an upstream server's tool. It is a
// read tool only when the server says readOnlyHint: true or the user's
// config calls the server readonly; every other upstream tool is a write
// tool. It reaches the network (open world) unless annotated otherwise,
// and always when the server itself is remote.
// Its annotations and _meta are kept for re-export as they came.
func UpstreamEntry(s upstream.Server, t upstream.Tool, caller catalog.Caller) *catalog.Entry {
	ann := t.Annotations
	readOnly := s.ReadOnly || (ann != nil && ann.ReadOnlyHint)
	spec := sdk.ToolSpec{
		Name: t.Namespaced, Title: t.Title, Description: t.Description,
		InputSchema: t.InputSchema, OutputSchema: t.OutputSchema,
		Kind: sdk.KindWrite,
	}
	if readOnly {
		spec.Kind = sdk.KindRead
	}
	open := true
	if ann != nil {
		if ann.OpenWorldHint != nil {
			open = *ann.OpenWorldHint
		}
		spec.Annotations.Destructive = ann.DestructiveHint
		if ann.IdempotentHint {
			spec.Annotations.Idempotent = &ann.IdempotentHint
		}
	}
	if s.Remote() {
		open = true // every call crosses the network, whatever the tool says
	}
	spec.Annotations.OpenWorld = &open
	if readOnly && (ann == nil || !ann.ReadOnlyHint) {
		// The user's readonly config: say so to the client too.
		copied := &mcp.ToolAnnotations{ReadOnlyHint: true}
		if ann != nil {
			c := *ann
			c.ReadOnlyHint = true
			copied = &c
		}
		ann = copied
	}
	absent := t.AbsentHints
	if readOnly {
		// The user's readonly config says readOnlyHint: true, absent or not.
		absent = slices.DeleteFunc(slices.Clone(absent), func(h string) bool { return h == "readOnlyHint" })
	}
	e := catalog.NewUpstreamEntry(spec, s.ID, upstreamSource(s.ID),
		&catalog.Upstream{Server: s.ID, Annotations: ann, Meta: maps.Clone(t.Meta), Order: t.Order, AbsentHints: absent}, caller)
	e.GroupDescription = s.Description
	return e
}

// linkCaller calls an eager server's tools through its Link.
type linkCaller struct{ l *upstream.Link }

func (c linkCaller) Call(ctx context.Context, call *sdk.Call, events sdk.Events) (*sdk.Result, error) {
	return c.l.Call(ctx, call.Tool, call.Arguments, progressTo(events))
}

// progressTo forwards an upstream call's progress to the caller's events;
// nil, so that the upstream server is not asked for progress, when nobody
// wants it (an MCP client's call without a progress token says so with
// WantsProgress).
func progressTo(events sdk.Events) upstream.ProgressFunc {
	if events == nil {
		return nil
	}
	if w, ok := events.(interface{ WantsProgress() bool }); ok && !w.WantsProgress() {
		return nil
	}
	return events.Progress
}

// UpstreamSession is one conversation's activation set, an MCP session's
// or an ask turn's: the lazy servers it connected with mcp_connect (its
// own connections, shared with no other conversation) and their tools,
// called through the host's one call path. It is safe for concurrent use.
type UpstreamSession struct {
	h     *Host
	pool  *upstream.Pool
	agent bool // an ask turn: write tools are callable whatever --write says

	mu      sync.Mutex
	entries map[string]*catalog.Entry
	served  map[string]*catalog.Entry // every tool of the servers it connected, callable or not
	order   []string                  // tool names in activation order
	indexed map[string][]string       // server id → the tool names it put in the search index
	closed  bool
}

// LazyUpstreams are the servers a conversation connects with mcp_connect,
// sorted by id.
func (h *Host) LazyUpstreams() []upstream.Server {
	var lazy []upstream.Server
	for _, s := range h.upstreamServers() {
		if s.Lazy {
			lazy = append(lazy, s)
		}
	}
	return lazy
}

// NewUpstreamSession starts an empty activation set over the lazy servers;
// agent says it is an ask turn's. Close it when the conversation ends.
func (h *Host) NewUpstreamSession(agent bool) *UpstreamSession {
	return &UpstreamSession{
		h: h, agent: agent, entries: map[string]*catalog.Entry{}, served: map[string]*catalog.Entry{},
		pool: upstream.NewPool(upstream.NewConfig(h.LazyUpstreams()...), h.upstreamOptions()),
	}
}

// Available are the servers mcp_connect can connect, sorted by id.
func (s *UpstreamSession) Available() []upstream.Server { return s.pool.Available() }

// Connect connects the server with the id and returns the tools it adds
// that this conversation may call. An unknown id is an
// *upstream.UnknownServerError; a connected one matches
// upstream.ErrAlreadyConnected.
func (s *UpstreamSession) Connect(ctx context.Context, id string) ([]*catalog.Entry, error) {
	tools, err := s.pool.Connect(ctx, id)
	if err != nil {
		return nil, err
	}
	server, _ := s.pool.Lookup(id)
	caller := poolCaller{s.pool}
	var added, served []*catalog.Entry // what this conversation may call; every tool of the server
	s.mu.Lock()
	for _, t := range tools {
		e := UpstreamEntry(server, t, caller)
		if _, taken := s.h.catalog.Get(e.Spec.Name); taken {
			continue // the host serves a tool of that name
		}
		served = append(served, e)
		s.served[e.Spec.Name] = e
		if !s.h.callable(e, s.agent) {
			continue
		}
		s.entries[e.Spec.Name] = e
		s.order = append(s.order, e.Spec.Name)
		added = append(added, e)
	}
	s.mu.Unlock()
	// Indexed whole: which of them a conversation finds is its own
	// entries' business. Not under s.mu: a search holds the index while
	// it asks s about its entries. Released when the conversation ends.
	s.h.indexSession(id, served)
	names := make([]string, len(served))
	for i, e := range served {
		names[i] = e.Spec.Name
	}
	s.mu.Lock()
	closed := s.closed
	if !closed {
		if s.indexed == nil {
			s.indexed = map[string][]string{}
		}
		s.indexed[id] = names
	}
	s.mu.Unlock()
	if closed {
		s.h.releaseSession(id, names)
	}
	s.h.logOf(ctx).Note(activity.EventUpstreamRegister, id, callerOf(ctx), registerMessage(upstream.LinkStatus{
		Transport: upstream.TransportLabel(server.Type), Tools: len(added), Instructions: s.pool.Instructions(id),
	}))
	return added, nil
}

// Entries are the tools connected so far, in activation order.
func (s *UpstreamSession) Entries() []*catalog.Entry {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]*catalog.Entry, len(s.order))
	for i, name := range s.order {
		out[i] = s.entries[name]
	}
	return out
}

// entry is the session's tool of that name.
func (s *UpstreamSession) entry(name string) (*catalog.Entry, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.entries[name]
	return e, ok
}

// Call runs one of the session's tools through the host's one call path;
// a name it does not have is the host's UnknownTool.
func (s *UpstreamSession) Call(ctx context.Context, name string, args json.RawMessage, events sdk.Events) (*sdk.Result, error) {
	s.mu.Lock()
	e := s.entries[name]
	s.mu.Unlock()
	if e == nil {
		return nil, s.UnknownTool(name)
	}
	return s.h.call(ctx, e, args, events)
}

// UnknownTool is why the conversation lacks the tool: for a tool of a
// server it connected, the serving policy's reason (a write tool without
// --write, a network tool under --web=false), which connecting again
// would not lift; otherwise the host's (Host.UnknownTool).
func (s *UpstreamSession) UnknownTool(name string) error {
	s.mu.Lock()
	e := s.served[name]
	s.mu.Unlock()
	if e != nil {
		if why := s.h.uncallable(e, s.agent); why != "" {
			return &sdk.UnknownToolError{Tool: name, Why: why}
		}
	}
	return s.h.UnknownTool(name, s.agent)
}

// Close ends the session's connections and takes its tools out of the
// search index.
func (s *UpstreamSession) Close() error {
	s.mu.Lock()
	indexed := s.indexed
	s.indexed, s.closed = nil, true
	s.mu.Unlock()
	for id, names := range indexed {
		s.h.releaseSession(id, names)
	}
	return s.pool.Close()
}

// poolCaller calls a session's tools through its pool.
type poolCaller struct{ p *upstream.Pool }

func (c poolCaller) Call(ctx context.Context, call *sdk.Call, events sdk.Events) (*sdk.Result, error) {
	return c.p.Call(ctx, call.Tool, call.Arguments, progressTo(events))
}

// Package mcpserver exports a host over MCP: one tool per mounted catalog
// entry (the plugin's own schema and description, annotations from the
// entry, and its agent task in _meta.mcp_server and _meta.fastmcp.tags),
// kept in step with the host as plugins come and go; the skills and status resources, which a
// client may subscribe to, and completion of skill names; and progress
// notifications for the calls that ask for them. Every tool call takes the
// host's one call path.
package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ramabana/ramabana-mcp/host/internal/activity"
	"github.com/ramabana/ramabana-mcp/host/internal/catalog"
	"github.com/ramabana/ramabana-mcp/host/internal/hub"
	"github.com/ramabana/ramabana-mcp/host/internal/telemetry"
	"github.com/ramabana/ramabana-mcp/host/internal/upstream"
	"github.com/ramabana/ramabana-mcp/sdk"
	"github.com/ramabana/ramabana-mcp/tasks"
)

// MetaKey is the _meta key of a tool's task (docs/agent-tasks.md);
// package tasks reads it, and its FastMCP twin.
const MetaKey = tasks.MetaKey

// Options configure New.
type Options struct {
	// Version is the server's version.
	Version string
	// Logger receives the server's log; nil discards it.
	Logger *slog.Logger
	// ReadyBy bounds how long a tools/list waits for the host to settle
	// its plugins and eager upstream servers (hub.Ready): until then it
	// waits, after it lists what there is, and what comes later is
	// announced with notifications/tools/list_changed. initialize is
	// answered at once either way. The zero time never waits.
	ReadyBy time.Time
	// Surface is what tools/list holds: SurfaceAll (the default) every
	// mounted tool, search_capabilities among them; SurfaceSearch only
	// search_capabilities, invoke_tool and ask (capability mode).
	Surface string
	// Stateless makes the server the one that answers every request of a
	// stateless HTTP transport (transport.HTTPOptions.Stateless), each in
	// a session of its own that ends with the request: it follows the
	// host for as long as the process runs, not for one session's life,
	// and it refuses, in words that name --stateless, what needs a session
	// to last: mcp_connect and the lazy upstream servers' tools, and the
	// legacy resources/subscribe (see stateless.go).
	Stateless bool
	// Telemetry, when set, makes every request a span, the parent of its
	// tool call's. nil: none.
	Telemetry *telemetry.Instruments
	// ClientRoots serves the client's roots (MCP roots/list) instead of
	// the host's folders once the client has initialized, and follows
	// notifications/roots/list_changed: for a server started without
	// --root, over stdio, whose one session is the one client's.
	ClientRoots bool
}

// Surfaces of Options.Surface.
const (
	SurfaceAll    = "all"
	SurfaceSearch = "search"
)

// New builds the MCP server over h for one MCP session (for stdio, the
// one; over HTTP, call it for each new session): one tool per mounted
// catalog entry, and mcp_connect when the config has lazy upstream
// servers, whose tools it adds to this session only. A tool that is not
// mounted is absent, and calling it is the SDK's unknown-tool error
// (invalid params) saying why it is absent (hub.UnknownTool). The
// server's tools follow the host's as plugins and upstream servers come
// and go (h.OnToolsChanged), and the SDK tells the client with
// notifications/tools/list_changed. The resources follow the host's
// skills and status (h.OnChange): the client may subscribe to them and
// complete skill names (resources.go). The server lets go of the host
// when its session ends.
func New(h *hub.Host, opts Options) *mcp.Server {
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	var t *tools
	res := newResources(h, logger)
	var initialized func(context.Context, *mcp.InitializedRequest)
	var onRootsChanged func(context.Context, *mcp.RootsListChangedRequest)
	if opts.ClientRoots {
		cr := &clientRoots{host: h, logger: logger}
		initialized = func(_ context.Context, req *mcp.InitializedRequest) { go cr.sync(req.Session) }
		onRootsChanged = func(_ context.Context, req *mcp.RootsListChangedRequest) { go cr.sync(req.Session) }
	}
	caps := &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{ListChanged: true}}
	if h.EagerUpstreams() {
		// Upstream servers' prompts come when they connect, maybe
		// after the client's initialize.
		caps.Prompts = &mcp.PromptCapabilities{ListChanged: true}
	}
	s := mcp.NewServer(&mcp.Implementation{
		Name:    "ramabana",
		Title:   "Ramabana",
		Version: opts.Version,
	}, &mcp.ServerOptions{
		Instructions: instructions(h, opts.Surface == SurfaceSearch),
		// Tools come and go with plugins: advertise list changes even
		// when the server starts with none.
		Capabilities: caps,
		// The SDK logs every session's start and end at info; only its
		// warnings are news to a user reading the host's log.
		Logger: slog.New(minLevel{logger.Handler(), slog.LevelWarn}),
		// With these the SDK advertises resources.subscribe and
		// completions.
		SubscribeHandler:   res.subscribe,
		UnsubscribeHandler: res.unsubscribe,
		CompletionHandler:  res.complete,
		InitializedHandler: initialized,
		//lint:ignore SA1019 roots are deprecated by protocol 2026-07-28, and what clients speak today (roots.go)
		RootsListChangedHandler: onRootsChanged,
	})
	res.server = s
	t = &tools{server: s, host: h, logger: logger, exported: map[string]*catalog.Entry{}, listed: map[string]*mcp.Tool{}, own: map[string]bool{},
		searchOnly: opts.Surface == SurfaceSearch, stateless: opts.Stateless, resources: res, synced: make(chan struct{}), loaded: -1}
	if !opts.Stateless {
		// The session's own activity feed and changes ledger; a stateless
		// server's requests are each a session of their own, and share the
		// server's.
		t.activity = h.Activity().Session()
	}
	if connectable(h, opts) {
		// The session's activation set of the lazy upstream servers.
		t.session = h.NewUpstreamSession(false)
	}
	s.AddReceivingMiddleware(t.orderList)
	// Inside waitReady (added below, so outer): a list or a read waits
	// for the host first, then sees the upstream servers' resources and
	// prompts as they are, not as the last coalesced change left them.
	s.AddReceivingMiddleware(res.syncOnList)
	// No tools yet, and no subscription: a server no session ever uses
	// (the HTTP handler makes one for a request that may fail) holds
	// nothing. The session's first request subscribes and brings the
	// tools in (attach).
	if opts.Stateless {
		// One server for every request, as long as the process runs.
		t.attached = true
		h.OnToolsChanged(t.sync)
		t.sync()
		res.attach()
		s.AddReceivingMiddleware(waitReady(h, opts.ReadyBy, t.known), refuseSubscribe, t.refuseUnknown)
	} else {
		// attachOnFirstRequest outside waitReady: a call of a tool the host
		// had at the start finds it in the server (known) once the
		// session's first sync is in.
		s.AddReceivingMiddleware(t.attachOnFirstRequest, waitReady(h, opts.ReadyBy, t.known), t.refuseUnknown)
		// Outside waitReady: the first tools/list is under way while it
		// waits for the host.
		s.AddReceivingMiddleware(t.trackFirstList)
		s.AddSendingMiddleware(t.skipChangesBeforeFirstList)
	}
	if opts.Telemetry != nil {
		// The span covers the wait for the host.
		s.AddReceivingMiddleware(traceRequests(opts.Telemetry))
	}
	if g := h.Gate(); g.On() {
		// Added last, so outermost: every answer leaves through the gate,
		// whatever made it, and so does every notification.
		s.AddReceivingMiddleware(g.Receiving())
		s.AddSendingMiddleware(g.Sending())
	}
	// Outside the gate: it only takes keys out of what the gate let through.
	s.AddReceivingMiddleware(t.leaveHintsOut)
	res.add()
	return s
}

// waitReady makes every request but the handshake, ping and a call of a
// tool the server has wait for the host to settle, until readyBy: a
// tools/list, a resources/read of the status, a call of a tool still
// starting see what is ready by then.
func waitReady(h *hub.Host, readyBy time.Time, known func(string) bool) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			wait := true
			switch {
			case method == "initialize", method == "server/discover", method == "ping", strings.HasPrefix(method, "notifications/"):
				wait = false
			case method == "tools/call":
				if call, ok := req.GetParams().(*mcp.CallToolParamsRaw); ok {
					wait = !known(call.Name)
				}
			}
			if wait {
				if d := time.Until(readyBy); d > 0 {
					timer := time.NewTimer(d)
					select {
					case <-h.Ready():
					case <-timer.C:
					case <-ctx.Done():
					}
					timer.Stop()
				}
			}
			return next(ctx, method, req)
		}
	}
}

// traceRequests makes every request a span (notifications are not
// requests): its method and, for a tool call, the tool's name; a
// traceparent in a call's _meta makes it the client's span's child.
func traceRequests(ins *telemetry.Instruments) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if strings.HasPrefix(method, "notifications/") {
				return next(ctx, method, req)
			}
			var tool string
			var meta map[string]any
			if call, ok := req.GetParams().(*mcp.CallToolParamsRaw); ok && call != nil {
				tool, meta = call.Name, call.Meta
			}
			ctx, span := ins.StartRequest(ctx, method, tool, meta)
			res, err := next(ctx, method, req)
			r, _ := res.(*mcp.CallToolResult)
			span.End(err, r != nil && r.IsError)
			return res, err
		}
	}
}

// tools keeps an MCP server's tools in step with a host's mounted ones.
type tools struct {
	server     *mcp.Server
	host       *hub.Host
	logger     *slog.Logger
	searchOnly bool // capability mode: only search_capabilities, invoke_tool and ask are listed (invoke_tool by sync)
	stateless  bool // one server for every request (Options.Stateless)
	resources  *resources
	activity   *activity.Log // the session's own; nil when stateless

	mu       sync.Mutex
	exported map[string]*catalog.Entry // the catalog's tools the server has, by name
	listed   map[string]*mcp.Tool      // each exported tool's MCP form, as tools/list gives it (add)
	own      map[string]bool           // the session's own tools: mcp_connect and what it added
	session  *hub.UpstreamSession      // the session's mcp_connect activations; nil before the first
	invokeAs *mcp.ToolAnnotations      // invoke_tool's annotations as last added (capability mode)
	rank     map[string]int            // each exported tool's place in the host's order (orderList)
	attached bool
	synced   chan struct{} // closed when the attached session's first sync is done (load)
	loaded   int64         // t.version that first sync left; -1 before it
	ended    bool
	version  int64 // counts the changes of the server's tools, each once it is made
	first    firstList
}

// known says whether a call of the tool may go ahead before the host
// settles: the server has it, and its answer does not depend on the whole
// catalog, as search_capabilities', invoke_tool's and ask's do (they
// would miss the tools still starting).
func (t *tools) known(name string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if e := t.exported[name]; e != nil {
		return !e.InHostGroup(hub.SearchGroup) && !e.InHostGroup(hub.AgentGroup)
	}
	return t.own[name] && name != InvokeTool
}

// attachOnFirstRequest attaches the server to its session at the
// session's first request, whatever it is: some clients skip
// notifications/initialized, and a client of protocol 2026-07-28 may
// begin with server/discover, or with no handshake at all. Every request
// but those two then waits for the session's first sync of the tools
// (attach). A request without a session (the go-sdk gives every request
// one) syncs them itself.
func (t *tools) attachOnFirstRequest(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		ss, _ := req.GetSession().(*mcp.ServerSession)
		if ss == nil {
			t.sync()
			return next(ctx, method, req)
		}
		handshake := method == "initialize" || method == "server/discover"
		t.attach(ss, handshake)
		if !handshake {
			select {
			case <-t.synced:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		return next(ctx, method, req)
	}
}

// attach keeps the server's tools and resources in step with the host's
// for as long as the session lasts, then lets go of the host and ends the
// session's upstream connections. Only the first call does anything; it
// closes t.synced once the server holds the host's tools (load). At a
// handshake (behind, true) that first sync runs behind the answer, which
// holds no tool: the 30-odd tools go into the server while the client
// reads it, not before the client has it.
func (t *tools) attach(ss *mcp.ServerSession, behind bool) {
	t.mu.Lock()
	if t.attached {
		t.mu.Unlock()
		return
	}
	t.attached = true
	t.mu.Unlock()
	stop := t.host.OnToolsChanged(t.sync)
	if behind {
		go t.load()
	} else {
		t.load()
	}
	stopResources := t.resources.attach()
	go func() {
		_ = ss.Wait()
		stop()
		stopResources()
		t.mu.Lock()
		t.ended = true
		up := t.session
		t.mu.Unlock()
		if up != nil {
			_ = up.Close()
		}
	}()
}

// sync makes the MCP server's tools the mounted catalog entries: removed
// and replaced entries go, new ones come.
func (t *tools) sync() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.syncLocked()
}

// load is the session's first sync: it notes the version it leaves the
// tools at (t.loaded), then closes t.synced.
func (t *tools) load() {
	t.mu.Lock()
	t.syncLocked()
	t.loaded = t.version
	t.mu.Unlock()
	close(t.synced)
}

// syncLocked is sync with t.mu held.
func (t *tools) syncLocked() {
	want := map[string]*catalog.Entry{}
	var reach []*catalog.Entry // what invoke_tool calls, in capability mode
	t.rank = map[string]int{}
	for i, e := range t.host.Mounted() {
		t.rank[e.Spec.Name] = i
		if e.Spec.Name == upstream.ConnectToolName && t.session == nil {
			continue // this session connects nothing itself (connectable)
		}
		if !t.searchOnly || e.InHostGroup(hub.SearchGroup) || e.InHostGroup(hub.AgentGroup) {
			want[e.Spec.Name] = e
		} else {
			reach = append(reach, e)
		}
	}
	if t.searchOnly {
		if ann := invokeAnnotations(reach); !sameAnnotations(ann, t.invokeAs) {
			t.invokeAs = ann
			t.server.AddTool(invokeTool(ann), t.invoke)
			t.own[InvokeTool] = true
			t.version++
		}
	}
	var gone []string
	for name, e := range t.exported {
		if want[name] != e {
			gone = append(gone, name)
			delete(t.exported, name)
			delete(t.listed, name)
		}
	}
	if len(gone) > 0 {
		t.server.RemoveTools(gone...)
		t.version++
	}
	for name, e := range want {
		if t.exported[name] == nil && t.add(e, t.handler(name)) {
			t.exported[name] = e
		}
	}
}

// orderList puts a tools/list page in the host's order (hub.Mounted:
// groups by name, an upstream server's tools in the server's own order)
// instead of the SDK's, which is by name; the session's own tools
// (mcp_connect, invoke_tool) come after. Each page is ordered within
// itself: the SDK pages by name, a thousand tools to a page.
func (t *tools) orderList(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method == "tools/list" {
			// Before the SDK takes its tools (firstList).
			t.listing(ctx)
		}
		res, err := next(ctx, method, req)
		list, ok := res.(*mcp.ListToolsResult)
		if method != "tools/list" || err != nil || !ok {
			return res, err
		}
		t.mu.Lock()
		rank := t.rank
		list.Tools = t.completeLocked(list.Tools)
		t.mu.Unlock()
		place := func(name string) int {
			if r, ok := rank[name]; ok {
				return r
			}
			return len(rank)
		}
		slices.SortStableFunc(list.Tools, func(a, b *mcp.Tool) int { return place(a.Name) - place(b.Name) })
		return list, nil
	}
}

// leaveHintsOut keeps an upstream tool's absent boolean hints absent: the
// go-sdk writes readOnlyHint and idempotentHint on every tool, false when
// unset, so a tools/list result that holds a tool whose server left them
// out (catalog.Upstream.AbsentHints) is sent without those keys.
func (t *tools) leaveHintsOut(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		list, ok := res.(*mcp.ListToolsResult)
		if method != "tools/list" || err != nil || !ok {
			return res, err
		}
		absent := map[string][]string{}
		t.mu.Lock()
		for name, e := range t.exported {
			if e.Upstream != nil && len(e.Upstream.AbsentHints) > 0 {
				absent[name] = e.Upstream.AbsentHints
			}
		}
		t.mu.Unlock()
		if len(absent) == 0 {
			return res, err
		}
		return &listWithoutHints{ListToolsResult: list, absent: absent}, nil
	}
}

// listWithoutHints is a tools/list result sent without some tools' hints.
type listWithoutHints struct {
	*mcp.ListToolsResult
	absent map[string][]string // by tool name
}

func (l *listWithoutHints) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(l.ListToolsResult)
	if err != nil {
		return nil, err
	}
	var page map[string]json.RawMessage
	var tools []map[string]json.RawMessage
	if json.Unmarshal(b, &page) != nil || json.Unmarshal(page["tools"], &tools) != nil {
		return b, nil
	}
	for _, tool := range tools {
		var name string
		_ = json.Unmarshal(tool["name"], &name)
		var ann map[string]json.RawMessage
		if len(l.absent[name]) == 0 || json.Unmarshal(tool["annotations"], &ann) != nil || ann == nil {
			continue
		}
		for _, h := range l.absent[name] {
			delete(ann, h)
		}
		if tool["annotations"], err = json.Marshal(ann); err != nil {
			return nil, err
		}
	}
	if page["tools"], err = json.Marshal(tools); err != nil {
		return nil, err
	}
	return json.Marshal(page)
}

// add adds e to the MCP server (sdkAdds: a tool the SDK refuses, an
// input schema whose root is not an object, is left out) and counts the
// change in t.version. t.mu is held: the SDK's notification of the change
// must not find the count from before it (firstList).
//
// The SDK is given a stand-in where it may be (standsIn), and tools/list
// answers are completed from t.listed (completeLocked).
func (t *tools) add(e *catalog.Entry, h mcp.ToolHandler) bool {
	full := mcpTool(e)
	toSDK := full
	if standsIn(e) {
		toSDK = &mcp.Tool{Name: full.Name, InputSchema: standInSchema}
	}
	if !sdkAdds(t.logger, "tool", e.Spec.Name, func() { t.server.AddTool(toSDK, h) }) {
		return false
	}
	t.listed[e.Spec.Name] = full
	t.version++
	return true
}

// standInSchema is the input schema of every stand-in the SDK holds. As a
// *jsonschema.Schema, not JSON: AddTool checks a schema given as JSON by
// decoding it, and each decode allocates a 32 kB buffer (its JSON
// decoder's), 1 MB of garbage for the 30 tools of a start.
var standInSchema = &jsonschema.Schema{Type: "object"}

// standsIn says whether the SDK may hold a stand-in for e's tool: its
// name and standInSchema, the rest kept in t.listed. The SDK reads a tool
// it is given for three things: its name, to dispatch calls; its input
// schema's x-mcp-header annotations, which it checks at AddTool and
// against an HTTP call's headers; and the whole tool, for tools/list.
// Checking a schema costs it two decodes of the schema into maps, some
// 3 ms of a start's 28 tools while the client's first tools/list waits.
//
// So a tool stands in when the SDK would find nothing to refuse: a
// plugin's or the host's own (an upstream server's tool is given whole,
// and the SDK leaves out one it refuses, sdkAdds) whose input schema has
// no "x-mcp-header" in it (the SDK's decoder matches keys as written) nor
// a \u escape of one of its characters, whose root's "type" is "object"
// as the SDK reads it (keys as written, the last of a repeated one: the
// catalog's check, encoding/json's, matches keys in any case), and whose
// schemas nest no deeper than the SDK's decoder goes (sdkMaxDepth).
func standsIn(e *catalog.Entry) bool {
	in := e.Spec.InputSchema
	if e.Upstream != nil || bytes.Contains(in, []byte("x-mcp-header")) || escapesKeyLetter(in) {
		return false
	}
	var root map[string]json.RawMessage
	if json.Unmarshal(in, &root) != nil || string(root["type"]) != `"object"` {
		return false
	}
	return jsonDepth(in) < sdkMaxDepth && jsonDepth(e.Spec.OutputSchema) < sdkMaxDepth
}

// escapesKeyLetter says whether raw holds a \u escape of a character of
// "x-mcp-header", which could spell the key. Go's encoder escapes <, > and
// & so (a description's "<path>"), which is no reason to give a tool
// whole.
func escapesKeyLetter(raw []byte) bool {
	for i := bytes.Index(raw, []byte(`\u`)); i >= 0; {
		if code, err := strconv.ParseUint(string(raw[i+2:min(i+6, len(raw))]), 16, 16); err != nil || strings.ContainsRune("x-mcpheadr", rune(code)) {
			return true
		}
		next := bytes.Index(raw[i+2:], []byte(`\u`))
		if next < 0 {
			break
		}
		i += 2 + next
	}
	return false
}

// sdkMaxDepth is the nesting the SDK's JSON decoder refuses (1000, in its
// internal/json), with a margin.
const sdkMaxDepth = 900

// jsonDepth is how deeply raw's objects and arrays nest.
func jsonDepth(raw []byte) int {
	depth, deepest := 0, 0
	inString, escaped := false, false
	for _, c := range raw {
		switch {
		case escaped:
			escaped = false
		case inString:
			switch c {
			case '\\':
				escaped = true
			case '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			depth++
			deepest = max(deepest, depth)
		case c == '}' || c == ']':
			depth--
		}
	}
	return deepest
}

// completeLocked puts each tool of an SDK's tools/list page in its MCP
// form from t.listed, and leaves out a stand-in whose tool went between
// the SDK's listing and this (a change that its notification follows).
// The session's own tools (invoke_tool), given to the SDK whole, stay as
// they are. t.mu is held.
func (t *tools) completeLocked(page []*mcp.Tool) []*mcp.Tool {
	out := page[:0]
	for _, tool := range page {
		if full, ok := t.listed[tool.Name]; ok {
			out = append(out, full)
		} else if t.own[tool.Name] {
			out = append(out, tool)
		}
	}
	return out
}

// sdkAdds runs add, which adds a tool, resource, template or prompt named
// name to an MCP server. The SDK panics on one it cannot serve (a tool's
// input schema whose root is not an object, a URI or template it cannot
// parse), which only an upstream server can send: such a one is left out
// with a warning, and sdkAdds reports false.
func sdkAdds(logger *slog.Logger, what, name string, add func()) (ok bool) {
	defer func() {
		if p := recover(); p != nil {
			logger.Warn(what+" left out: the MCP SDK refuses it", what, name, "error", p)
			ok = false
		}
	}()
	add()
	return true
}

// mcpTool is the MCP form of a catalog entry. An upstream server's tool
// keeps its annotations and _meta as it listed them (absent hints stay
// absent), with the task tag added when its _meta has none.
func mcpTool(e *catalog.Entry) *mcp.Tool {
	if up := e.Upstream; up != nil {
		t := &mcp.Tool{
			Name: e.Spec.Name, Title: e.Spec.Title, Description: e.Spec.Description,
			InputSchema: json.RawMessage(e.Spec.InputSchema), Annotations: up.Annotations,
			Meta: mcp.Meta{},
		}
		maps.Copy(t.Meta, up.Meta)
		// What the server said of the task wins; a key it left out is
		// filled in from the task read off the other.
		for k, v := range e.TaskInfo().Meta() {
			if _, ok := t.Meta[k]; !ok {
				t.Meta[k] = v
			}
		}
		if len(e.Spec.OutputSchema) > 0 {
			t.OutputSchema = json.RawMessage(e.Spec.OutputSchema)
		}
		return t
	}
	hints := e.Hints()
	t := &mcp.Tool{
		Name:        e.Spec.Name,
		Title:       e.Spec.Title,
		Description: e.Spec.Description,
		InputSchema: json.RawMessage(e.Spec.InputSchema),
		Annotations: &mcp.ToolAnnotations{
			Title:           e.Spec.Title,
			ReadOnlyHint:    hints.ReadOnly,
			DestructiveHint: &hints.Destructive,
			IdempotentHint:  hints.Idempotent,
			OpenWorldHint:   &hints.OpenWorld,
		},
		Meta: TaskMeta(e.Spec),
	}
	if len(e.Spec.OutputSchema) > 0 {
		t.OutputSchema = json.RawMessage(e.Spec.OutputSchema)
	}
	if e.GroupMode == sdk.ModeLegacy {
		t.Meta["deprecated"] = map[string]any{"replaced_by": e.ReplacedBy}
	}
	return t
}

// TaskMeta is the _meta of a plugin's tool: its task under MetaKey (task
// always, as_user_message for context tools, mode for skill tools) and
// again as the one tag under tasks.FastMCPKey (docs/agent-tasks.md).
func TaskMeta(s sdk.ToolSpec) mcp.Meta {
	return catalog.SpecTask(s).Meta()
}

// handler calls the tool through the host's one call path and turns the
// outcome into an MCP result. A plugin failure is a tool error naming the
// group, so the client's model sees it; only protocol faults are Go errors.
func (t *tools) handler(name string) mcp.ToolHandler {
	return t.handle(name, t.host.Call)
}

// handle runs call for the tool and turns its outcome into an MCP result.
func (t *tools) handle(name string, call func(context.Context, string, json.RawMessage, sdk.Events) (*sdk.Result, error)) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		events := &sessionEvents{ctx: ctx, session: req.Session, token: req.Params.GetProgressToken(), logger: t.logger}
		t.mu.Lock()
		ctx = hub.WithUpstreamSession(ctx, t.session)
		t.mu.Unlock()
		ctx = hub.WithActivity(ctx, t.activity)
		res, err := call(ctx, name, req.Params.Arguments, events)
		if errors.Is(err, sdk.ErrUnknownTool) {
			return nil, t.unknownTool(name)
		}
		if name == upstream.ConnectToolName && err == nil && !res.IsError {
			t.addConnected()
		}
		if err != nil {
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}}, nil
		}
		return mcpResult(res), nil
	}
}

func mcpResult(r *sdk.Result) *mcp.CallToolResult {
	out := &mcp.CallToolResult{IsError: r.IsError, Content: make([]mcp.Content, 0, len(r.Content))}
	for _, c := range r.Content {
		switch {
		case c.Image != nil:
			out.Content = append(out.Content, &mcp.ImageContent{Data: c.Image.Data, MIMEType: c.Image.MIMEType})
		case c.Resource != nil:
			out.Content = append(out.Content, &mcp.EmbeddedResource{Resource: &mcp.ResourceContents{
				URI: c.Resource.URI, MIMEType: c.Resource.MIMEType, Text: c.Resource.Text, Blob: c.Resource.Blob,
			}})
		default:
			out.Content = append(out.Content, &mcp.TextContent{Text: c.Text})
		}
	}
	if len(r.Structured) > 0 {
		out.StructuredContent = json.RawMessage(r.Structured)
		if len(out.Content) == 0 {
			// Clients that read only content still get the result.
			out.Content = append(out.Content, &mcp.TextContent{Text: string(r.Structured)})
		}
	}
	return out
}

// sessionEvents forwards a call's progress to the MCP client as progress
// notifications, when the client sent a progress token. A call's log lines
// are the hub's to log (MCP's logging notifications are deprecated,
// SEP-2577): it never hands them on here.
type sessionEvents struct {
	ctx     context.Context
	session *mcp.ServerSession
	token   any
	logger  *slog.Logger

	mu   sync.Mutex
	sent bool
	last float64
}

// WantsProgress says whether the client asked for progress (sent a
// progress token); an upstream server is asked for it only then.
func (e *sessionEvents) WantsProgress() bool { return e.token != nil && e.session != nil }

func (e *sessionEvents) Progress(progress, total float64, message string) {
	if e.token == nil || e.session == nil {
		return
	}
	// MCP requires progress to increase: drop what would not, and what is
	// not a number.
	if math.IsNaN(progress) || math.IsInf(progress, 0) {
		return
	}
	e.mu.Lock()
	if e.sent && progress <= e.last {
		e.mu.Unlock()
		return
	}
	e.sent, e.last = true, progress
	e.mu.Unlock()
	_ = e.session.NotifyProgress(e.ctx, &mcp.ProgressNotificationParams{
		ProgressToken: e.token, Progress: progress, Total: total, Message: message,
	})
}

// Log does nothing: the hub logs a call's log lines, naming the call.
func (e *sessionEvents) Log(sdk.LogLevel, string) {}

// minLevel drops records below its level, whatever the wrapped handler
// would accept.
type minLevel struct {
	slog.Handler
	level slog.Level
}

func (m minLevel) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= m.level && m.Handler.Enabled(ctx, l)
}

func (m minLevel) WithAttrs(attrs []slog.Attr) slog.Handler {
	return minLevel{m.Handler.WithAttrs(attrs), m.level}
}

func (m minLevel) WithGroup(name string) slog.Handler {
	return minLevel{m.Handler.WithGroup(name), m.level}
}

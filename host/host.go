package host

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ramabana/ramabana-mcp/activity"
	"github.com/ramabana/ramabana-mcp/catalog"
	"github.com/ramabana/ramabana-mcp/internal/launch"
	"github.com/ramabana/ramabana-mcp/pii"
	"github.com/ramabana/ramabana-mcp/sdk"
	"github.com/ramabana/ramabana-mcp/supervise"
)

// Config is everything the host is started with; cmd/ramabana-mcp builds it
// from flags.
type Config struct {
	// Roots are the served folders. At least one; each must exist.
	Roots []string
	// Write mounts write tools for the client.
	Write bool
	// ReadOutside lets read tools take paths outside the roots.
	ReadOutside bool
	// Web allows tools that reach the network.
	Web bool
	// Groups opts groups in ("exhash") or out ("-shell").
	Groups []string
	// Agent says an agent is configured: legacy groups are left out.
	Agent bool
	// NoSandbox runs commands without the Landlock sandbox (--sandbox=off).
	NoSandbox bool
	// PII filters read tools' results: off, redact or refuse.
	PII pii.Mode
	// Transport is how the server is reached, for the status resource.
	Transport string
	// HomeDir holds the user's skills (~/.agents/skills); empty means the
	// user's home directory.
	HomeDir string
	// PluginDirs are searched for ramabana-plugin-<name> binaries, in order.
	PluginDirs []string
	// Self is the host binary, re-executed as `Self plugin serve <name>` for
	// each name in Bundled.
	Self    string
	Bundled []string
	// ConfigDir is the user's ramabana config dir.
	ConfigDir string
	// StartTimeout bounds a plugin's handshake and Describe; 0 means 10s.
	StartTimeout time.Duration
	// PluginEnv names host environment variables passed to plugins beyond
	// the built-in allow-list.
	PluginEnv []string
	// Version is the host's version, sent to plugins and clients.
	Version string
	// Describe, when set, describes a bundled group in-process, as its
	// plugin process would: the group is served from that description
	// while its process starts in the background.
	Describe func(name string, host sdk.Host) (*sdk.Description, error)
	// Verify, when set, is asked before every launch of a plugin binary
	// (not a bundled group) whether it may run: the installed-plugin lock
	// check. Its error is the reason the plugin is refused.
	Verify func(path string) error
	// Logger receives the host's and plugins' logs; nil means slog.Default.
	Logger *slog.Logger
}

// Host owns the plugin processes and the catalog.
type Host struct {
	cfg      Config
	policy   catalog.Policy
	logger   *slog.Logger
	roots    []string
	catalog  *catalog.Catalog
	activity *activity.Log

	skillsMu    sync.Mutex
	warned      map[string]bool // skill warnings already logged
	agentStatus func() any      // nil without an agent

	mu      sync.Mutex
	plugins map[string]*supervise.Plugin
	skipped map[string]string           // plugin name → why it is not served
	idle    map[string]supervise.Source // started, then stopped: none of their groups is mounted

	launches sync.WaitGroup // background launches (launchLate)
	closing  chan struct{}  // closed by Close
	reloadMu sync.Mutex     // one Reload at a time; held by Close
	closed   bool           // under reloadMu: no plugin starts after Close

	// calls ends when CancelCalls is called: every call's context is
	// bound to it.
	calls       context.Context
	cancelCalls context.CancelCauseFunc

	exportMu sync.Mutex
	server   *mcp.Server               // nil until NewMCPServer
	exported map[string]*catalog.Entry // the tools the server has, by name
}

// New checks the config and resolves the roots. It starts nothing.
func New(cfg Config) (*Host, error) {
	if len(cfg.Roots) == 0 {
		return nil, errors.New("no folder to serve")
	}
	roots := make([]string, 0, len(cfg.Roots))
	for _, r := range cfg.Roots {
		abs, err := filepath.Abs(r)
		if err != nil {
			return nil, fmt.Errorf("root %q: %w", r, err)
		}
		abs, err = filepath.EvalSymlinks(abs)
		if err != nil {
			return nil, fmt.Errorf("root %q: %w", r, err)
		}
		fi, err := os.Stat(abs)
		if err != nil {
			return nil, fmt.Errorf("root %q: %w", r, err)
		}
		if !fi.IsDir() {
			return nil, fmt.Errorf("root %q: not a directory", r)
		}
		roots = append(roots, abs)
	}
	optIn, optOut, err := catalog.ParseGroups(cfg.Groups)
	if err != nil {
		return nil, err
	}
	if cfg.StartTimeout == 0 {
		cfg.StartTimeout = 10 * time.Second
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.HomeDir == "" {
		cfg.HomeDir, _ = os.UserHomeDir()
	}
	h := &Host{
		cfg:      cfg,
		policy:   catalog.Policy{Write: cfg.Write, Web: cfg.Web, OptIn: optIn, OptOut: optOut, Agent: cfg.Agent},
		logger:   cfg.Logger,
		roots:    roots,
		catalog:  catalog.New(),
		plugins:  map[string]*supervise.Plugin{},
		skipped:  map[string]string{},
		idle:     map[string]supervise.Source{},
		activity: activity.New(activity.Options{}),
		warned:   map[string]bool{},
		closing:  make(chan struct{}),
	}
	h.calls, h.cancelCalls = context.WithCancelCause(context.Background())
	if err := newSessionGroup(h.activity).register(h.catalog); err != nil {
		return nil, fmt.Errorf("session group: %w", err)
	}
	return h, nil
}

// Roots are the served folders, absolute with symlinks resolved.
func (h *Host) Roots() []string { return h.roots }

// Policy is the serving policy.
func (h *Host) Policy() catalog.Policy { return h.policy }

// Start discovers the plugins and launches them in parallel. A plugin that
// fails to start, describe or register is skipped with one log line; the
// rest are served. Start fails only when ctx ends.
func (h *Host) Start(ctx context.Context) error {
	h.reloadMu.Lock()
	defer h.reloadMu.Unlock()
	if h.closed {
		return errClosed
	}
	sources, errs := supervise.Discover(h.cfg.Self, h.cfg.Bundled, h.cfg.PluginDirs)
	for _, err := range errs {
		h.logger.Warn("plugin skipped", "error", err)
	}
	return h.startAll(ctx, sources)
}

var errClosed = errors.New("host is closed")

// commandsAllowed says whether the shell group is mounted for the client
// (with --write) or for the agent: the user has then allowed programs to
// run, and plugins may run the ones their data names (git hooks, filters).
func (h *Host) commandsAllowed() bool {
	return (h.cfg.Write || h.cfg.Agent) && !h.policy.OptOut[ShellGroup]
}

// ShellGroup is the group whose tools run commands.
const ShellGroup = "shell"

// launchConfig is what every plugin is launched with.
func (h *Host) launchConfig() supervise.Config {
	return supervise.Config{
		Host: sdk.Host{
			Roots: h.roots, ReadOutside: h.cfg.ReadOutside, Web: h.cfg.Web, Write: h.cfg.Write,
			Commands: h.commandsAllowed(), NoSandbox: h.cfg.NoSandbox, ConfigDir: h.cfg.ConfigDir, HostVersion: h.cfg.Version,
		},
		Launch: launch.Options{
			Env:          launch.Environ(os.Environ(), h.cfg.PluginEnv),
			StartTimeout: h.cfg.StartTimeout,
			Logger:       h.logger,
			Verify:       h.cfg.Verify,
		},
		Logger: h.logger,
	}
}

// startAll launches sources in parallel and registers them in name order,
// so that which of two plugins declaring the same tool wins does not
// depend on launch timing.
//
// A bundled group whose description the binary can give in-process
// (Config.Describe) is registered at once from it, and its process is
// launched in the background: the client gets its tools without waiting
// for seven processes to start on two cores, and a call that comes before
// the process is up waits for it. A background launch that fails takes
// the group's tools away again.
func (h *Host) startAll(ctx context.Context, sources []supervise.Source) error {
	cfg := h.launchConfig()
	var wg sync.WaitGroup
	results := make([]error, len(sources))
	plugins := make([]*supervise.Plugin, len(sources))
	early := make([]bool, len(sources))
	for i, src := range sources {
		if h.policy.OptOut[src.Name] && src.Bundled {
			continue // a whole bundled plugin opted out is not started at all
		}
		plugins[i] = supervise.New(src, cfg)
		if src.Bundled && h.cfg.Describe != nil {
			if d, err := h.cfg.Describe(src.Name, cfg.Host); err == nil {
				plugins[i].Presume(d)
				early[i] = true
				continue
			}
		}
		wg.Go(func() { results[i] = plugins[i].Start(ctx) })
	}
	for i, p := range plugins {
		if p != nil && early[i] && h.register(p, nil) {
			h.launches.Go(func() { h.launchLate(p) })
		}
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		for i, p := range plugins {
			switch {
			case p != nil && early[i]:
				h.drop(p) // registered already: take its tools away too
			case p != nil:
				p.Stop()
			}
		}
		return err
	}
	for i, p := range plugins {
		if p != nil && !early[i] {
			h.register(p, results[i])
		}
	}
	return nil
}

// warmDelay is how long background launches wait, so that the client's
// handshake and first tools/list do not compete with seven processes
// starting; a call that comes sooner launches its plugin itself.
const warmDelay = 200 * time.Millisecond

// launchLate launches a plugin registered from its in-process description,
// after warmDelay unless the host closes first.
func (h *Host) launchLate(p *supervise.Plugin) {
	select {
	case <-time.After(warmDelay):
	case <-h.closing:
		return
	}
	if err := p.Start(context.Background()); err != nil && !p.Stopped() {
		h.drop(p)
		h.skip(p.Source(), err)
		h.syncTools()
	}
}

// register adds a launched plugin's tools to the catalog, or stops it:
// when it failed to start, when its tools clash, or when none of its
// groups can be mounted. It reports whether the plugin is served.
func (h *Host) register(p *supervise.Plugin, err error) bool {
	if err == nil && !h.policy.AnyGroupMounted(p.Description()) {
		p.Stop()
		h.mu.Lock()
		h.idle[p.Name()] = p.Source()
		h.mu.Unlock()
		h.logger.Debug("plugin stopped: none of its groups is mounted", "plugin", p.Name())
		return false
	}
	if err == nil {
		err = h.catalog.Add(p.Name(), p.Description(), p)
	}
	if err != nil {
		p.Stop()
		h.skip(p.Source(), err)
		return false
	}
	h.mu.Lock()
	h.plugins[p.Name()] = p
	delete(h.skipped, p.Name())
	h.mu.Unlock()
	h.logger.Debug("plugin started", "plugin", p.Name(), "source", p.Source().String(), "pid", p.Pid())
	return true
}

func (h *Host) skip(src supervise.Source, err error) {
	h.mu.Lock()
	h.skipped[src.Name] = err.Error()
	h.mu.Unlock()
	h.logger.Warn("plugin skipped", "plugin", src.Name, "source", src.String(), "error", err)
}

// Plugins returns the served plugins by name.
func (h *Host) Plugins() map[string]*supervise.Plugin {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make(map[string]*supervise.Plugin, len(h.plugins))
	for k, v := range h.plugins {
		out[k] = v
	}
	return out
}

// Skipped returns the plugins that are not served, with why.
func (h *Host) Skipped() map[string]string {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make(map[string]string, len(h.skipped))
	for k, v := range h.skipped {
		out[k] = v
	}
	return out
}

// Mounted returns the entries the client sees, sorted by group and name.
func (h *Host) Mounted() []*catalog.Entry {
	var out []*catalog.Entry
	for _, e := range h.catalog.All() {
		if ok, _ := h.policy.Mounted(e); ok {
			out = append(out, e)
		}
	}
	return out
}

// Catalog is every described tool, mounted or not.
func (h *Host) Catalog() *catalog.Catalog { return h.catalog }

// AgentTools are the entries the ask agent may call: every tool of a
// mounted group that the network policy allows, write tools included
// (there is no approval gate in a turn; --write only decides what the
// client may call directly), but not the agent's own tools.
func (h *Host) AgentTools() []*catalog.Entry {
	var out []*catalog.Entry
	for _, e := range h.catalog.All() {
		if e.Group == AgentGroup {
			continue
		}
		if ok, _ := h.policy.GroupMounted(e.Group, e.GroupMode); !ok {
			continue
		}
		if !h.policy.Web && e.Hints().OpenWorld {
			continue
		}
		out = append(out, e)
	}
	return out
}

// AgentGroup is the in-process group of the ask tool.
const AgentGroup = "agent"

// AgentCall runs one of AgentTools through the same path as Call: schema
// validation, the activity feed (as ctx's caller), the PII filter.
func (h *Host) AgentCall(ctx context.Context, name string, args json.RawMessage, events sdk.Events) (*sdk.Result, error) {
	for _, e := range h.AgentTools() {
		if e.Spec.Name == name {
			return h.call(ctx, e, args, events)
		}
	}
	return nil, fmt.Errorf("%w %q", sdk.ErrUnknownTool, name)
}

// Record records a call that does not go through the catalog (an upstream
// server's tool called by the agent) in the activity feed.
func (h *Host) Record(ctx context.Context, tool, group string, args json.RawMessage) func(*sdk.Result, error) {
	p := h.activity.Start(tool, group, callerOf(ctx), args)
	return p.Finish
}

// AddGroup serves an in-process group through the catalog, like a plugin:
// its calls take the same path. The MCP server's tools follow.
func (h *Host) AddGroup(name string, g sdk.Group) error {
	d, err := g.Describe(context.Background(), h.launchConfig().Host)
	if err != nil {
		return fmt.Errorf("describe %s: %w", name, err)
	}
	if err := h.catalog.Add(name, d, g); err != nil {
		return err
	}
	h.syncTools()
	return nil
}

// Call runs a mounted tool: it validates the arguments against the tool's
// schema, then calls its source. A bad argument is a tool error result
// (the model can correct it); an unmounted tool is sdk.ErrUnknownTool; a plugin
// that dies mid-call is an error wrapping supervise.ErrPluginDied.
func (h *Host) Call(ctx context.Context, name string, args json.RawMessage, events sdk.Events) (*sdk.Result, error) {
	e, ok := h.catalog.Get(name)
	if ok {
		ok, _ = h.policy.Mounted(e)
	}
	if !ok {
		return nil, fmt.Errorf("%w %q", sdk.ErrUnknownTool, name)
	}
	return h.call(ctx, e, args, events)
}

// call is the one call path behind Call and AgentCall.
func (h *Host) call(ctx context.Context, e *catalog.Entry, args json.RawMessage, events sdk.Events) (*sdk.Result, error) {
	name := e.Spec.Name
	ctx, done := h.callContext(ctx)
	defer done()
	id := newCallID()
	if se, ok := events.(*sessionEvents); ok {
		se.callID = id // its log lines name the call
	}
	rec := h.activity.StartCall(id, name, e.Group, callerOf(ctx), args)
	if err := e.Validate(args); err != nil {
		res := toolError("%v", err)
		rec.Finish(res, nil)
		h.logger.Debug("call", "call_id", id, "tool", name, "group", e.Group, "outcome", "invalid arguments")
		return res, nil
	}
	if t := bytes.TrimSpace(args); len(t) == 0 || bytes.Equal(t, []byte("null")) {
		args = json.RawMessage("{}") // absent arguments reach the plugin as the empty object
	}
	res, err := e.Call(ctx, &sdk.Call{Tool: name, Arguments: args, ID: id}, events)
	rec.Finish(res, err)
	h.logger.Debug("call", "call_id", id, "tool", name, "group", e.Group, "outcome", outcome(res, err))
	if err != nil {
		return nil, fmt.Errorf("%s (group %q): %w", name, e.Group, err)
	}
	if e.Spec.Kind == sdk.KindRead {
		res = pii.FilterResult(h.cfg.PII, name, res)
	}
	return res, nil
}

// toolError is a result the host answers for a plugin, with a failure the
// client's model can act on: IsError, and the message as its one text block.
func toolError(format string, args ...any) *sdk.Result {
	return &sdk.Result{IsError: true, Content: []sdk.Content{{Text: fmt.Sprintf(format, args...)}}}
}

// FilterPII applies the --pii mode to a result from outside the catalog
// (an upstream server's tool called by the agent), as to a read tool's.
func (h *Host) FilterPII(tool string, res *sdk.Result) *sdk.Result {
	return pii.FilterResult(h.cfg.PII, tool, res)
}

// Activity is the session's activity feed and changes ledger.
func (h *Host) Activity() *activity.Log { return h.activity }

// Close stops every plugin and its process group. It is safe to call more
// than once.
func (h *Host) Close() error {
	h.reloadMu.Lock()
	defer h.reloadMu.Unlock()
	if !h.closed {
		close(h.closing)
	}
	h.closed = true
	h.mu.Lock()
	plugins := make([]*supervise.Plugin, 0, len(h.plugins))
	for _, p := range h.plugins {
		plugins = append(plugins, p)
	}
	h.mu.Unlock()
	var wg sync.WaitGroup
	for _, p := range plugins {
		wg.Go(p.Stop)
	}
	wg.Wait()
	h.launches.Wait() // a stopped plugin's launch ends and kills what it started
	return nil
}

// WaitStarted waits for the background launches of bundled groups (see
// Config.Describe), or for ctx.
func (h *Host) WaitStarted(ctx context.Context) error {
	done := make(chan struct{})
	go func() { h.launches.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

package hub

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ramabana/ramabana-mcp/host/internal/search"

	"github.com/ramabana/ramabana-mcp/host/internal/activity"
	"github.com/ramabana/ramabana-mcp/host/internal/catalog"
	"github.com/ramabana/ramabana-mcp/host/internal/embedding"
	"github.com/ramabana/ramabana-mcp/host/internal/gate"
	"github.com/ramabana/ramabana-mcp/host/internal/supervise"
	"github.com/ramabana/ramabana-mcp/host/internal/telemetry"
	"github.com/ramabana/ramabana-mcp/host/internal/upstream"
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
	// NotMounted are tools the configuration leaves out before any plugin
	// is asked (ask without --model, or with --delegate=false), with why:
	// a call of one is told that, in words that name the flag.
	NotMounted map[string]string
	// NoSandbox runs commands without the Landlock sandbox (--sandbox=off).
	NoSandbox bool
	// Gate is the outbound filter of --pii and --vault, built once: the
	// MCP server and the ask agent send through it, the call path takes
	// its one decision (withhold a result under --pii refuse) and turns a
	// model's placeholders back into values for the tools that may have
	// them. nil: none.
	Gate *gate.Gate
	// Transport is how the server is reached, for the status resource.
	Transport string
	// HomeDir holds the user's skills (~/.agents/skills); empty means the
	// user's home directory.
	HomeDir string
	// PluginDirs are searched for ramabana-plugin-<name> binaries, in order.
	PluginDirs []string
	// Bundled are the groups the server's own binary serves.
	Bundled Bundled
	// ConfigDir is the user's ramabana config dir.
	ConfigDir string
	// PluginIdle, when positive, is how long a plugin process with no call
	// in flight is kept; then it exits, and the next call starts it again
	// (--plugin-idle). 0 keeps it.
	PluginIdle time.Duration
	// StartTimeout bounds a plugin's handshake and Describe; 0 means 10s.
	StartTimeout time.Duration
	// PluginEnv names host environment variables passed to plugins beyond
	// the built-in allow-list.
	PluginEnv []string
	// Version is the host's version, sent to plugins and clients.
	Version string
	// Verify, when set, is asked before every launch of a plugin binary
	// (not a bundled group) whether it may run: the installed-plugin lock
	// check. Its error is the reason the plugin is refused.
	Verify func(path string) error
	// Logger receives the host's and plugins' logs; nil means slog.Default.
	Logger *slog.Logger
	// Upstream are the upstream MCP servers: eager ones connect at Start
	// and their tools join the catalog as <id>__<tool>; lazy ones wait for
	// a conversation's mcp_connect. nil: none.
	Upstream *upstream.Config
	// UpstreamOptions are how upstream servers are connected (the version
	// is the host's).
	UpstreamOptions upstream.ConnectOptions
	// Embed, when set, makes search_capabilities' ranking hybrid: every
	// tool is embedded in the background (only what changed; the vectors
	// are cached in ConfigDir/embeddings), and a query's vector ranks the
	// tools too, the two rankings fused with BM25's. nil: BM25 alone.
	Embed *embedding.Client
	// Telemetry, when set, makes every call a span and a measurement, and
	// has its gauges observe the plugins and upstream servers. nil: none.
	Telemetry *telemetry.Instruments
}

// Host owns the plugin processes and the catalog.
type Host struct {
	cfg    Config
	policy catalog.Policy
	logger *slog.Logger
	// roots are the served folders: the configured ones, until the client's
	// replace them (SetRoots).
	roots    atomic.Pointer[[]string]
	catalog  *catalog.Catalog
	activity *activity.Log

	skillsMu    sync.Mutex
	warned      map[string]bool // skill warnings already logged
	agentStatus func() any      // nil without an agent

	mu        sync.Mutex
	plugins   map[string]*supervise.Plugin
	skipped   map[string]string                // plugin name → why it is not served
	failedAs  map[string]supervise.Fingerprint // plugin name → its binary when it failed
	unmounted map[string]unmountedPlugin       // described, then stopped: none of their groups is mounted

	descriptions  supervise.Descriptions // plugin binaries' descriptions, kept in ConfigDir
	closing       chan struct{}          // closed by Close
	reloadMu      sync.Mutex             // one Reload at a time; held by Close
	rootsMoved    chan struct{}          // SetRoots tells Watch to watch the new roots' skill folders
	swapping      sync.RWMutex           // held by SetRoots while the plugins are swapped; a call's look-up waits
	swappingRoots bool                   // SetRoots is under way (under reloadMu): startAll tells no change midway
	started       bool                   // Start has registered the plugins (under reloadMu)
	closed        bool                   // under reloadMu: no plugin starts after Close

	// calls ends when CancelCalls is called: every call's context is
	// bound to it.
	calls       context.Context
	cancelCalls context.CancelCauseFunc

	// sources are the plugins New found, which Start launches, and
	// discoverErrs what it could not use; laterGroups are --groups names
	// that only a plugin's description may explain (checkGroups), and
	// knownGroups every group name known before.
	sources      []supervise.Source
	discoverErrs []error
	laterGroups  []string
	knownGroups  map[string]bool

	up     upstreams
	search searcher
	ready  chan struct{} // closed when Start's plugins and upstream connects have settled

	watchMu  sync.Mutex
	watchers map[int]func(Change) // OnChange subscribers, by id
	watchID  int
	batches  int    // Starts and Reloads under way: changes but the tools' are held (batch)
	held     Change // what changed during them
}

// New checks the config: the --groups names (a *GroupsError when the
// command line is at fault), against the plugins it finds in the plugin
// dirs (once: Start launches those), and the roots, which it resolves. It
// starts nothing.
func New(cfg Config) (*Host, error) {
	if len(cfg.Roots) == 0 {
		return nil, errors.New("no folder to serve")
	}
	optIn, optOut, err := catalog.ParseGroups(cfg.Groups)
	if err != nil {
		return nil, &GroupsError{err}
	}
	// The plugins, found once: Start launches these.
	sources, discoverErrs := supervise.Discover(cfg.Bundled.Self, cfg.Bundled.Names(), cfg.PluginDirs)
	laterGroups, knownGroups, builtinGroups, err := checkGroups(cfg, optIn, optOut, sources)
	if err != nil {
		return nil, err
	}
	roots, err := resolveRoots(cfg.Roots)
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
		cfg:       cfg,
		policy:    catalog.Policy{Write: cfg.Write, Web: cfg.Web, OptIn: optIn, OptOut: optOut, Agent: cfg.Agent, Builtin: builtinGroups},
		logger:    cfg.Logger,
		catalog:   catalog.New(),
		plugins:   map[string]*supervise.Plugin{},
		skipped:   map[string]string{},
		failedAs:  map[string]supervise.Fingerprint{},
		unmounted: map[string]unmountedPlugin{},
		activity:  activity.New(activity.Options{}),
		warned:    map[string]bool{},
		closing:   make(chan struct{}),
		ready:     make(chan struct{}),
		search:    searcher{ix: search.New(), indexed: map[string][sha256.Size]byte{}},
	}
	h.roots.Store(&roots)
	h.rootsMoved = make(chan struct{}, 1)
	h.descriptions = supervise.DescriptionsIn(cfg.ConfigDir)
	h.sources, h.discoverErrs = sources, discoverErrs
	h.laterGroups, h.knownGroups = laterGroups, knownGroups
	h.newUpstreams()
	h.calls, h.cancelCalls = context.WithCancelCause(context.Background())
	stopObserving := h.observeTelemetry()
	if err := newSessionGroup(h.logOf, func() string { return h.Roots()[0] }).register(h.catalog); err != nil {
		stopObserving() // a host New does not return is observed no more
		return nil, fmt.Errorf("session group: %w", err)
	}
	if err := h.registerConnect(); err != nil {
		stopObserving()
		return nil, fmt.Errorf("mcp_connect: %w", err)
	}
	if w := h.vaultWarning(); w != "" {
		h.logger.Warn(w)
	}
	return h, nil
}

// Roots are the served folders, absolute with symlinks resolved: the
// configured ones, or the client's since SetRoots. The slice is never
// changed: SetRoots stores a new one.
func (h *Host) Roots() []string { return *h.roots.Load() }

// Policy is the serving policy.
func (h *Host) Policy() catalog.Policy { return h.policy }

// Start connects the eager upstream servers in the background, discovers
// the plugins and launches them in parallel. A plugin that fails to start,
// describe or register is skipped with one log line, and so is an upstream
// server that fails to connect; the rest are served. Start returns when the
// plugins have settled (upstream servers' tools arrive as they connect:
// Ready says when all have); it fails only when ctx ends.
func (h *Host) Start(ctx context.Context) error {
	h.reloadMu.Lock()
	defer h.reloadMu.Unlock()
	if h.closed {
		return errClosed
	}
	defer h.batch()()
	h.startUpstreams()
	for _, err := range h.discoverErrs {
		h.logger.Warn("plugin skipped", "error", err)
	}
	err := h.startAll(ctx, h.sources)
	h.started = true
	h.toolsChanged()
	if err == nil {
		h.warnLaterGroups()
	}
	go func() {
		h.up.connect.Wait()
		close(h.ready)
	}()
	return err
}

// Ready is closed once Start has settled every plugin and every eager
// upstream server (connected or failed): a client's first tools/list may
// wait for it, up to a bound.
func (h *Host) Ready() <-chan struct{} { return h.ready }

var errClosed = errors.New("host is closed")

// commandsAllowed says whether the shell group is mounted for the client
// (with --write) or for the agent: the user has then allowed programs to
// run, and plugins may run the ones their data names (git hooks, filters).
func (h *Host) commandsAllowed() bool {
	return (h.cfg.Write || h.cfg.Agent) && !h.policy.OptOut[ShellGroup]
}

// vaultWarning says what --vault cannot hold against, when that is so:
// commands read what the user can, the vault's key included, and can
// print a value in a shape --pii does not know.
func (h *Host) vaultWarning() string {
	if h.cfg.Gate.Vault() == nil || !h.commandsAllowed() {
		return ""
	}
	return "--vault with the shell group mounted: a command can read any file this user can, the vault's key included, and print a value in a form --pii does not recognise; opt the shell out (--groups -shell) to keep values from the model"
}

// ShellGroup is the group whose tools run commands.
const ShellGroup = "shell"

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

// AgentTools are the entries the ask agent may call (see callable).
func (h *Host) AgentTools() []*catalog.Entry {
	var out []*catalog.Entry
	for _, e := range h.catalog.All() {
		if h.callable(e, true) {
			out = append(out, e)
		}
	}
	return out
}

// callable is the serving policy for one caller. The client may call what
// is mounted. An ask turn (agent) may call every tool of a mounted group
// that the network policy allows, write tools included (there is no
// approval gate in a turn; --write only decides what the client may call
// directly), but not the agent's own tools.
func (h *Host) callable(e *catalog.Entry, agent bool) bool { return h.uncallable(e, agent) == "" }

// uncallable is why the caller may not call e, in words that name the
// flag that would let it; "" when it may (see callable).
func (h *Host) uncallable(e *catalog.Entry, agent bool) string {
	if !agent {
		_, why := h.policy.Mounted(e)
		return why
	}
	if e.InHostGroup(AgentGroup) {
		return "the ask agent's own tool, not for its turns"
	}
	if e.Plugin == connectSource {
		return "a turn connects MCP servers with an mcp_connect of its own"
	}
	_, why := h.policy.MountedForAgent(e)
	return why
}

// AgentGroup is the in-process group of the ask tool.
const AgentGroup = "agent"

// Activity is the server's activity feed and changes ledger: every
// session's calls (an MCP session has a log of its own too: WithActivity).
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
	h.closeUpstreams()
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
	h.search.worker.Wait() // no cache file is written after Close
	return nil
}

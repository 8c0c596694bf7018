package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ramabana/ramabana-mcp/agent"
	"github.com/ramabana/ramabana-mcp/ask"
	"github.com/ramabana/ramabana-mcp/catalog"
	"github.com/ramabana/ramabana-mcp/embed"
	"github.com/ramabana/ramabana-mcp/gate"
	"github.com/ramabana/ramabana-mcp/hub"
	"github.com/ramabana/ramabana-mcp/internal/cliflag"
	"github.com/ramabana/ramabana-mcp/internal/launch"
	"github.com/ramabana/ramabana-mcp/internal/plugincli"
	"github.com/ramabana/ramabana-mcp/internal/pluginrpc"
	"github.com/ramabana/ramabana-mcp/mcpserver"
	"github.com/ramabana/ramabana-mcp/pii"
	"github.com/ramabana/ramabana-mcp/pluginstore"
	"github.com/ramabana/ramabana-mcp/sdk"
	"github.com/ramabana/ramabana-mcp/supervise"
	"github.com/ramabana/ramabana-mcp/telemetry"
	"github.com/ramabana/ramabana-mcp/transport"
	"github.com/ramabana/ramabana-mcp/upstream"
	"github.com/ramabana/ramabana-mcp/vault"
)

// version is set at build time with -ldflags "-X main.version=..."; a
// module build falls back to the module version.
var version = ""

func hostVersion() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

// run dispatches the subcommands: `help` prints the usage, `plugin ...`
// runs the plugin commands (`plugin serve <name>` a bundled group as a
// plugin process); anything else serves MCP.
func run(ctx context.Context, args []string) error {
	if len(args) > 0 {
		switch args[0] {
		case "help":
			return runHelp(args[1:], os.Stdout)
		case "plugin":
			return runPlugin(ctx, args[1:])
		}
	}
	return serve(ctx, args)
}

// runPlugin runs `plugin serve <group>` (the host re-executing itself as
// a bundled plugin) and the plugin management commands.
func runPlugin(ctx context.Context, args []string) error {
	if len(args) == 2 && args[0] == "serve" {
		newGroup, ok := bundled[args[1]]
		if !ok {
			return cliflag.Usage(fmt.Errorf("plugin serve: no bundled group %q (have %s)", args[1], strings.Join(bundledNames(), ", ")), plugincli.Help)
		}
		var opts []sdk.ServeOpt
		if allCPUs[args[1]] {
			opts = append(opts, sdk.WithAllCPUs())
		}
		sdk.Serve(newGroup(), opts...)
		return nil
	}
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("find own binary: %w", err)
	}
	return plugincli.Run(ctx, pluginEnv(self, os.Stdout, os.Stderr), args)
}

// pluginEnv is what the plugin subcommands need of this binary, with self
// serving the bundled groups (tests pass the built ramabana-mcp).
func pluginEnv(self string, stdout, stderr io.Writer) plugincli.Env {
	return plugincli.Env{Self: self, Bundled: bundledNames(), Version: hostVersion(), Stdout: stdout, Stderr: stderr}
}

func bundledNames() []string { return slices.Sorted(maps.Keys(bundled)) }

type options struct {
	roots, plugins, groups, pluginEnv cliflag.List
	allowOrigins, mcpConfigs          cliflag.List
	write, readOutside, web, version  bool
	noSandbox                         bool
	stateless, pprof                  bool
	transport, addr, token, cfg       string
	pii                               pii.Mode
	piiNER, vault                     bool
	model, modelURL, modelKeyEnv      string
	embedModel, embedURL, embedKeyEnv string
	delegate                          bool
	maxSteps, contextBudget           int
	maxRetries                        int
	logLevel                          slog.Level
	startTimeout, upstreamWait        time.Duration
	upstreamConnectTimeout            time.Duration
	surface                           string
	otel, metrics                     bool
}

// newFlagSet defines the server's flags on o. It prints nothing: serve
// prints the usage (usage.go) and the errors.
func newFlagSet(o *options) *flag.FlagSet {
	fs := flag.NewFlagSet("ramabana-mcp", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	fs.Var(&o.roots, "root", "folders to serve, comma-separated or repeated (default: the current folder)")
	fs.Var(&o.plugins, "plugins", "plugin dirs searched for ramabana-plugin-<group> binaries, before $RAMABANA_PLUGIN_PATH and CFG/plugins")
	fs.Var(&o.groups, "groups", "opt groups in (exhash) or out (-shell), comma-separated")
	fs.Var(&o.pluginEnv, "plugin-env", "host environment variables to pass to plugins beyond the built-in allow-list")
	fs.BoolVar(&o.write, "write", false, "mount the write tools too (default: read-only)")
	fs.BoolVar(&o.readOutside, "read-outside", false, "let read tools take paths outside the served folders; writes stay inside")
	fs.BoolVar(&o.web, "web", true, "serve tools that reach the network")
	fs.Func("sandbox", "on or off: run shell commands in a Landlock sandbox (writes only inside the served folders and a private temp dir) where the kernel allows (default on)", func(s string) error {
		switch s {
		case "on", "true":
			o.noSandbox = false
		case "off", "false":
			o.noSandbox = true
		default:
			return fmt.Errorf("use on or off")
		}
		return nil
	})
	fs.StringVar(&o.transport, "transport", "stdio", "stdio, http (streamable HTTP at /mcp, SSE at /sse; probes at /healthz and /readyz) or sse")
	fs.StringVar(&o.addr, "addr", "127.0.0.1:8765", "listen address for http and sse")
	fs.Var(&o.allowOrigins, "allow-origin", "browser origins (scheme://host[:port]) allowed to reach http and sse besides the server's own, comma-separated or repeated; other cross-origin requests get 403")
	fs.BoolVar(&o.stateless, "stateless", false, "with --transport http, serve /mcp statelessly (no session; each request answered on its own), so that replicas can sit behind any load balancer; "+
		"mcp_connect and lazy upstream servers, resources/subscribe, resuming streams and /sse are then not served (README: Serving many users)")
	fs.BoolVar(&o.pprof, "pprof", false, "with --transport http or sse, serve Go's profiles (net/http/pprof) at /debug/pprof/, behind the token")
	fs.StringVar(&o.token, "token", "", "bearer token required by http and sse (default: $RAMABANA_TOKEN)")
	fs.StringVar(&o.cfg, "cfg", "", "config dir, for skills, plugins and stores (default: ~/.config/ramabana)")
	fs.Func("log-level", "debug, info, warn or error; logs go to stderr (default info)", func(s string) error {
		if err := o.logLevel.UnmarshalText([]byte(s)); err != nil {
			return errors.New("use debug, info, warn or error")
		}
		return nil
	})
	cliflag.DurationVar(fs, &o.startTimeout, "start-timeout", 10*time.Second, "how long a plugin may take to start and describe itself")
	fs.Func("tools", "all (every tool, search_capabilities among them) or search (capability mode: only search_capabilities, invoke_tool and ask) (default all)", func(v string) error {
		switch v {
		case mcpserver.SurfaceAll, mcpserver.SurfaceSearch:
			o.surface = v
			return nil
		}
		return fmt.Errorf("use all or search")
	})
	fs.Var(&o.mcpConfigs, "mcp-config", "upstream MCP server config files (mcpServers or VS Code servers JSON), read after CFG/mcp.json, comma-separated or repeated")
	cliflag.DurationVar(fs, &o.upstreamConnectTimeout, "upstream-connect-timeout", upstream.DefaultConnectTimeout, "how long an upstream MCP server may take to start, answer initialize and list its tools")
	cliflag.DurationVar(fs, &o.upstreamWait, "upstream-wait", 5*time.Second, "how long a client's first tools/list waits for plugins and upstream MCP servers still starting; later tools arrive with tools/list_changed")
	fs.BoolVar(&o.version, "version", false, "print the version and exit")
	fs.BoolVar(&o.otel, "otel", false, "export traces and metrics over OTLP, to where the standard OTEL_EXPORTER_OTLP_* variables say (default http/protobuf to localhost:4318); on without the flag when OTEL_EXPORTER_OTLP_ENDPOINT is set")
	fs.BoolVar(&o.metrics, "metrics", false, "serve Prometheus metrics at /metrics on the HTTP listener (behind the token)")
	fs.StringVar(&o.model, "model", "", "model for the ask agent (an OpenAI-compatible chat model); omit to serve tools only")
	fs.StringVar(&o.modelURL, "model-url", "http://127.0.0.1:11434/v1", "OpenAI-compatible API base URL for --model; the default is Ollama's")
	fs.StringVar(&o.modelKeyEnv, "model-key-env", "RAMABANA_MODEL_KEY", "environment variable holding the API key for --model-url, if it needs one")
	fs.BoolVar(&o.delegate, "delegate", true, "with --model, mount the ask tool")
	fs.StringVar(&o.embedModel, "embed-model", "", "embeddings model that makes search_capabilities' ranking hybrid (BM25 fused with vector similarity), served at --embed-url; omit for BM25 alone")
	fs.StringVar(&o.embedURL, "embed-url", "", "OpenAI-compatible API base URL for --embed-model, read as --model-url is (http://127.0.0.1:11434/v1 for Ollama; requests go to its /embeddings, or to the URL itself when it ends in /embeddings)")
	fs.StringVar(&o.embedKeyEnv, "embed-key-env", "RAMABANA_EMBED_KEY", "environment variable holding the API key for --embed-url, if it needs one")
	cliflag.CountVar(fs, &o.maxSteps, "max-steps", 0, "model calls one ask turn may make (default 20)")
	cliflag.CountVar(fs, &o.maxRetries, "max-retries", agent.DefaultMaxRetries, "further attempts an ask turn makes after an evaluation tool judges its answer not valid, each with the feedback; 0 for none")
	cliflag.CountVar(fs, &o.contextBudget, "context-budget", 0, "characters of conversation (about 4 a token) above which an ask turn compacts its history (default 200000)")
	fs.Func("pii", "off, redact or refuse: filter e-mail addresses, phone numbers, card numbers and secrets out of read tools' results (default off; addresses at example.com and other reserved documentation domains are kept)", func(s string) error {
		m, err := pii.ParseMode(s)
		o.pii = m
		return err
	})
	fs.BoolVar(&o.vault, "vault", false, "with --pii redact or refuse, show the model stable placeholders (⟦email:3⟧) instead of [REDACTED:kind], keep the values in an encrypted vault (CFG/vault.db; its key in CFG/vault.key or $"+vault.KeyFileEnv+"), and turn placeholders in write tools' arguments back into the values")
	fs.BoolVar(&o.piiNER, "pii-ner", false, "with --pii redact or refuse, filter personal names too: titled names (Dr. Jane Smith, Sig.ra Bianchi) and listed first names with a surname")
	return fs
}

// parseFlags parses and checks the server's flags. An error is a
// cliflag.UsageError, or flag.ErrHelp for -h and --help.
func parseFlags(args []string) (*options, error) {
	o := &options{}
	fs := newFlagSet(o)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, err
		}
		return nil, usageErr(err)
	}
	if fs.NArg() > 0 {
		return nil, usageErr(fmt.Errorf("unexpected argument %q; the subcommands are help and plugin", fs.Arg(0)))
	}
	if err := checkFlags(o); err != nil {
		return nil, usageErr(err)
	}
	cfg, err := cliflag.ConfigDir(o.cfg)
	if err != nil {
		return nil, err
	}
	o.cfg = cfg
	return o, nil
}

// checkFlags checks what one flag's parser cannot: values checked after
// parsing, and flags that need each other. It fills in the defaults that
// depend on others (the roots, the token).
func checkFlags(o *options) error {
	switch o.transport {
	case "stdio", "http", "sse":
	case "streamable-http":
		o.transport = "http"
	default:
		return fmt.Errorf("--transport %q: use stdio, http or sse", o.transport)
	}
	if o.stateless && o.transport != "http" {
		return fmt.Errorf("--stateless needs --transport http: it is streamable HTTP's stateless mode; stdio is one client's own process, and SSE keeps each session's stream in one process")
	}
	if o.pprof && o.transport == "stdio" {
		return errors.New("--pprof needs --transport http or sse: the profiles are served on the HTTP listener")
	}
	if _, _, err := net.SplitHostPort(o.addr); err != nil {
		return fmt.Errorf("--addr %q: want HOST:PORT, such as 127.0.0.1:8765", o.addr)
	}
	for _, origin := range o.allowOrigins {
		if err := http.NewCrossOriginProtection().AddTrustedOrigin(origin); err != nil {
			return fmt.Errorf("--allow-origin %q: want scheme://host[:port], such as http://localhost:3000", origin)
		}
	}
	if len(o.roots) == 0 {
		o.roots = cliflag.List{"."}
	}
	if o.token == "" {
		o.token = os.Getenv("RAMABANA_TOKEN")
	}
	if o.transport != "stdio" && o.token == "" && !loopback(o.addr) {
		return fmt.Errorf("--addr %s is reachable from other machines: set a bearer token with $RAMABANA_TOKEN or --token, or listen on 127.0.0.1", o.addr)
	}
	if o.metrics && o.transport == "stdio" {
		return errors.New("--metrics serves /metrics on the HTTP listener: add --transport http, or export over OTLP with --otel")
	}
	if o.piiNER && o.pii == pii.ModeOff {
		return errors.New("--pii-ner needs --pii redact or --pii refuse: it adds personal names to what --pii filters")
	}
	if o.vault && o.pii == pii.ModeOff {
		return errors.New("--vault needs --pii redact or --pii refuse: it keeps what --pii finds and shows placeholders for it")
	}
	switch {
	case o.embedModel != "" && o.embedURL == "":
		return errors.New("--embed-model needs --embed-url, the OpenAI-compatible server that embeds with it (http://127.0.0.1:11434/v1 for Ollama)")
	case o.embedModel == "" && o.embedURL != "":
		return errors.New("--embed-url needs --embed-model, the embeddings model to ask it for")
	}
	return nil
}

func usageErr(err error) error { return cliflag.Usage(err, help) }

func serve(ctx context.Context, args []string) error {
	o, err := parseFlags(args)
	if errors.Is(err, flag.ErrHelp) {
		printUsage(os.Stdout)
		return nil
	}
	if err != nil {
		return err
	}
	if o.version {
		fmt.Println("ramabana-mcp", hostVersion(), "protocol", pluginrpc.ProtocolVersion)
		return nil
	}
	stdinIsTerminal := cliflag.IsTerminal(os.Stdin)
	fmt.Fprint(os.Stderr, stdioHint(o.transport, stdinIsTerminal))
	var vlt *vault.Vault
	if o.vault {
		vlt, err = vault.Open(ctx, filepath.Join(o.cfg, vault.DBName), vault.KeyPath(o.cfg), vault.Scope(o.roots))
		if err != nil {
			return err
		}
		defer vlt.Close()
	}
	// The one outbound gate: the MCP server, the ask agent's model and the
	// log all send through it.
	outbound := gate.New(o.pii, o.piiNER, vlt)
	var logHandler slog.Handler = slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: o.logLevel})
	var upstreamStderr io.Writer = os.Stderr
	if outbound.On() {
		// What the host, its plugins and upstream servers log leaves no
		// more than the tools' results do.
		logHandler = outbound.Filter().Handler(logHandler)
		w := outbound.Filter().Writer(os.Stderr)
		defer w.Close()
		upstreamStderr = w
	}
	logger := slog.New(logHandler)
	slog.SetDefault(logger)
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("find own binary: %w", err)
	}
	tel, err := telemetry.Setup(ctx, telemetry.Options{OTLP: o.otel, Prometheus: o.metrics, ServiceVersion: hostVersion(), Logger: logger})
	if err != nil {
		return usageErr(err)
	}
	// flushed is closed when the flush started as serving ends (below)
	// has ended; on an earlier return, the flush is made here.
	var flushed chan struct{}
	defer func() {
		if flushed != nil {
			<-flushed
			return
		}
		flushTelemetry(ctx, tel, logger)
	}()
	if tel.Instruments != nil {
		logger.Info("telemetry", "otlp_traces", tel.Traces, "otlp_metrics", tel.MetricsOTLP, "prometheus", tel.Metrics != nil)
	}
	embedder, err := newEmbedder(o)
	if err != nil {
		return usageErr(err)
	}
	upstreams := loadUpstreams(o, logger)
	pluginDirs := append(slices.Clone(o.plugins), supervise.DefaultPluginDirs(o.cfg)...)
	known, laterGroups, err := checkGroups(o.groups, self, pluginDirs, upstreams)
	if err != nil {
		return usageErr(err)
	}
	h, err := hub.New(hub.Config{
		Roots:        o.roots,
		Write:        o.write,
		ReadOutside:  o.readOutside,
		Web:          o.web,
		NoSandbox:    o.noSandbox,
		Groups:       o.groups,
		PluginDirs:   pluginDirs,
		Self:         self,
		Bundled:      bundledNames(),
		ConfigDir:    o.cfg,
		StartTimeout: o.startTimeout,
		PluginEnv:    o.pluginEnv,
		Version:      hostVersion(),
		Logger:       logger,
		Verify:       pluginstore.VerifyInstalled,
		Describe:     describeBundled,
		Gate:         outbound,
		Agent:        o.model != "",
		Transport:    o.transport,
		Upstream:     upstreams,
		UpstreamOptions: upstream.ConnectOptions{
			Name: "ramabana-mcp", Logger: logger, Stderr: upstreamStderr, ConnectTimeout: o.upstreamConnectTimeout,
		},
		Embed:     embedder,
		Telemetry: tel.Instruments,
	})
	if err != nil {
		return err
	}
	// Runs after Close (defers run last first): the plugins are stopped.
	defer launch.RemoveSocketDir()
	defer h.Close()
	// A signal cancels the calls in flight first: the session waits for
	// them before it closes, and Close then stops the plugins.
	defer context.AfterFunc(ctx, h.CancelCalls)()
	if o.model != "" && o.delegate {
		if err := mountAgent(h, o, logger); err != nil {
			return err
		}
	}
	// initialize is answered at once: plugins and upstream servers start
	// behind it, and a client's first tools/list waits for them up to
	// --upstream-wait.
	readyBy := time.Now().Add(o.upstreamWait)
	newServer := func() *mcp.Server {
		return mcpserver.New(h, mcpserver.Options{Version: hostVersion(), Logger: logger, ReadyBy: readyBy, Surface: o.surface, Stateless: o.stateless, Telemetry: tel.Instruments})
	}
	watchCtx, stopWatch := context.WithCancel(ctx)
	started := make(chan struct{})
	go func() {
		defer close(started)
		if err := h.Start(watchCtx); err != nil {
			return
		}
		warnUnknownGroups(h, laterGroups, known, logger)
		logger.Info("serving", "roots", h.Roots(), "tools", len(h.Mounted()), "transport", o.transport, "write", o.write)
		if err := h.Watch(watchCtx); err != nil {
			logger.Warn("plugin dirs are not watched; installs take effect at the next start", "error", err)
		}
	}()
	// Runs before the deferred Close: no reload may start plugins after it.
	defer func() { stopWatch(); <-started }()
	// Runs first of all: the telemetry is flushed while the host stops its
	// plugins, so that both fit in the stop deadline after a signal.
	defer func() {
		flushed = make(chan struct{})
		go func() {
			defer close(flushed)
			flushTelemetry(ctx, tel, logger)
		}()
	}()
	if o.transport == "stdio" {
		t := &transport.StdioTransport{}
		if stdinIsTerminal {
			t.Terminal = os.Stderr
		}
		return transport.ServeStdio(ctx, newServer(), t)
	}
	return transport.ServeHTTP(ctx, newServer, transport.HTTPOptions{
		Addr: o.addr, Token: o.token, AllowOrigins: o.allowOrigins, Stateless: o.stateless, Pprof: o.pprof, Metrics: tel.Metrics,
		Readiness: func() (bool, any) {
			hl := h.Health()
			return hl.Ready, hl
		},
		Ready: func(addr net.Addr) {
			base := "http://" + addr.String()
			if o.stateless {
				logger.Info("listening", "mcp", base+"/mcp", "stateless", true, "token", o.token != "")
				return
			}
			logger.Info("listening", "mcp", base+"/mcp", "sse", base+"/sse", "token", o.token != "")
		},
	})
}

// flushTimeout bounds the telemetry's flush at exit: within the stop
// deadline (main.go), since it runs beside the plugins' stop.
const flushTimeout = 1500 * time.Millisecond

// flushTelemetry sends what the exporters hold and stops them, even after
// a signal ended ctx.
func flushTelemetry(ctx context.Context, tel *telemetry.Telemetry, logger *slog.Logger) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), flushTimeout)
	defer cancel()
	if err := tel.Shutdown(ctx); err != nil {
		logger.Warn("telemetry: flushing at exit failed", "error", err)
	}
}

// hostGroups are the host's own groups, which --groups can name too.
var hostGroups = []string{hub.AgentGroup, hub.SearchGroup, hub.SessionGroup}

// checkGroups checks the names --groups uses against those known before
// any plugin starts: the bundled plugins and their groups, the host's own
// groups, the upstream server ids and the installed plugins' names. A name
// none of them has is an error naming the valid ones: a typo such as
// "exhsh" or "-shel" would otherwise be ignored in silence. But an
// installed plugin may declare groups beyond its own name, known only once
// it has started: with installed plugins, such a name is returned in later
// instead, for warnUnknownGroups to judge once they have.
func checkGroups(groups []string, self string, pluginDirs []string, upstreams *upstream.Config) (known map[string]bool, later []string, err error) {
	if len(groups) == 0 {
		return nil, nil, nil
	}
	optIn, optOut, err := catalog.ParseGroups(groups)
	if err != nil {
		return nil, nil, err
	}
	known = map[string]bool{}
	for _, g := range hostGroups {
		known[g] = true
	}
	for name, newGroup := range bundled {
		known[name] = true
		d, err := newGroup().Describe(context.Background(), sdk.Host{})
		if err != nil {
			return nil, nil, fmt.Errorf("describe bundled group %q: %w", name, err)
		}
		for _, g := range d.Groups {
			known[g.Name] = true
		}
	}
	for _, s := range upstreams.Servers() {
		known[s.ID] = true
	}
	sources, _ := supervise.Discover(self, nil, pluginDirs) // a broken dir is the host's to report
	for _, src := range sources {
		known[src.Name] = true
	}
	var unknown []string
	for _, name := range append(slices.Sorted(maps.Keys(optIn)), slices.Sorted(maps.Keys(optOut))...) {
		if !known[name] {
			unknown = append(unknown, name)
		}
	}
	switch {
	case len(unknown) == 0:
		return known, nil, nil
	case len(sources) > 0:
		return known, unknown, nil
	}
	return nil, nil, fmt.Errorf("--groups: no group %s; the groups are %s", quoteList(unknown), strings.Join(slices.Sorted(maps.Keys(known)), ", "))
}

// warnUnknownGroups warns about the names of --groups that no started
// plugin declared either: they have no effect.
func warnUnknownGroups(h *hub.Host, names []string, known map[string]bool, logger *slog.Logger) {
	if len(names) == 0 {
		return
	}
	all := maps.Clone(known)
	for _, e := range h.Catalog().All() {
		all[e.Group] = true
	}
	var unknown []string
	for _, name := range names {
		if !all[name] {
			unknown = append(unknown, name)
		}
	}
	if len(unknown) > 0 {
		logger.Warn("--groups names no group: ignored", "unknown", strings.Join(unknown, ","), "groups", strings.Join(slices.Sorted(maps.Keys(all)), ","))
	}
}

func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	return strings.Join(q, ", ")
}

// loadUpstreams reads CFG/mcp.json and every --mcp-config file. A problem
// is one warning naming the file and the key; the other servers load.
func loadUpstreams(o *options, logger *slog.Logger) *upstream.Config {
	files := []upstream.File{{Path: filepath.Join(o.cfg, "mcp.json")}}
	for _, f := range o.mcpConfigs {
		files = append(files, upstream.File{Path: f, Required: true})
	}
	cfg, problems := upstream.Load(files)
	for _, err := range problems {
		logger.Warn("MCP server config", "error", err)
	}
	for _, w := range cfg.Warnings() {
		logger.Warn("MCP server config", "warning", w)
	}
	return cfg
}

// loopback reports whether addr (host:port) listens only on this machine.
func loopback(addr string) bool {
	h, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// mountAgent mounts the ask tool over an OpenAI-compatible backend; its
// turns mcp_connect the host's lazy upstream servers.
func mountAgent(h *hub.Host, o *options, logger *slog.Logger) error {
	_, err := ask.Mount(ask.Config{
		Host: h,
		// Every request to the model leaves through the gate.
		Backend: h.Gate().Backend(agent.NewOpenAI(agent.OpenAIConfig{
			BaseURL: o.modelURL, APIKey: os.Getenv(o.modelKeyEnv), KeyEnv: o.modelKeyEnv, Model: o.model, Logger: logger,
		})),
		Model:         o.model,
		MaxSteps:      o.maxSteps,
		ContextBudget: o.contextBudget,
		MaxRetries:    maxRetries(o.maxRetries),
		Logger:        logger,
	})
	return err
}

// maxRetries is --max-retries as ask.Config takes it: the flag's 0 is
// none, where the config's 0 is the default.
func maxRetries(n int) int {
	if n <= 0 {
		return agent.NoRetries
	}
	return n
}

// newEmbedder is the embeddings client of --embed-model and --embed-url;
// nil without them.
func newEmbedder(o *options) (*embed.Client, error) {
	if o.embedModel == "" {
		return nil, nil
	}
	c, err := embed.New(embed.Config{URL: o.embedURL, Model: o.embedModel, APIKey: os.Getenv(o.embedKeyEnv), KeyEnv: o.embedKeyEnv})
	if err != nil {
		return nil, fmt.Errorf("--embed-url: %w", err)
	}
	return c, nil
}

// describeBundled describes a bundled group in-process, exactly as its
// plugin process will: the host serves its tools while the process starts.
func describeBundled(name string, h sdk.Host) (*sdk.Description, error) {
	newGroup, ok := bundled[name]
	if !ok {
		return nil, fmt.Errorf("no bundled group %q", name)
	}
	return newGroup().Describe(context.Background(), h)
}

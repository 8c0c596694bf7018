package host

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ramabana/ramabana-mcp/host/internal/agent"
	"github.com/ramabana/ramabana-mcp/host/internal/ask"
	"github.com/ramabana/ramabana-mcp/host/internal/embedding"
	"github.com/ramabana/ramabana-mcp/host/internal/gate"
	"github.com/ramabana/ramabana-mcp/host/internal/hub"
	"github.com/ramabana/ramabana-mcp/host/internal/mcpserver"
	"github.com/ramabana/ramabana-mcp/host/internal/pluginstore"
	"github.com/ramabana/ramabana-mcp/host/internal/supervise"
	"github.com/ramabana/ramabana-mcp/host/internal/telemetry"
	"github.com/ramabana/ramabana-mcp/host/internal/transport"
	"github.com/ramabana/ramabana-mcp/host/internal/upstream"
	"github.com/ramabana/ramabana-mcp/host/internal/vault"
	"github.com/ramabana/ramabana-mcp/internal/cliflag"
	"github.com/ramabana/ramabana-mcp/internal/launch"
	"github.com/ramabana/ramabana-mcp/sdk"
)

// Run serves MCP as cfg says until ctx ends, then stops: it cancels the
// calls in flight, closes the session, stops the plugins and the upstream
// servers, and flushes the telemetry. A Config that does not check (Check)
// is a cliflag.UsageError naming the flag.
func Run(ctx context.Context, cfg Config) error {
	if err := cfg.Check(); err != nil {
		return usageErr(err)
	}
	o := &cfg
	stdinIsTerminal := cliflag.IsTerminal(os.Stdin)
	fmt.Fprint(os.Stderr, stdioHint(o.Transport, stdinIsTerminal))
	var vlt *vault.Vault
	var err error
	if o.Vault {
		vlt, err = vault.Open(ctx, filepath.Join(o.ConfigDir, vault.DBName), vault.KeyPath(o.ConfigDir), vault.Scope(o.Roots))
		if err != nil {
			return err
		}
		defer vlt.Close()
	}
	// The one outbound gate: the MCP server, the ask agent's model and the
	// log all send through it.
	outbound := gate.New(o.piiMode, o.PIINames, vlt)
	var logHandler slog.Handler = slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: o.LogLevel})
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
	tel, err := telemetry.Setup(ctx, telemetry.Options{OTLP: o.OTel, Prometheus: o.Metrics, ServiceVersion: o.Version, Logger: logger})
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
	pluginDirs := append(slices.Clone(o.PluginDirs), supervise.DefaultPluginDirs(o.ConfigDir)...)
	h, err := hub.New(hub.Config{
		Roots:        o.Roots,
		Write:        o.Write,
		ReadOutside:  o.ReadOutside,
		Web:          o.Web,
		NoSandbox:    o.NoSandbox,
		Groups:       o.Groups,
		PluginDirs:   pluginDirs,
		Bundled:      hub.Bundled{Self: self, Groups: bundled, Declares: declares},
		ConfigDir:    o.ConfigDir,
		StartTimeout: o.StartTimeout,
		PluginIdle:   o.PluginIdle,
		PluginEnv:    o.PluginEnv,
		Version:      o.Version,
		Logger:       logger,
		Verify:       pluginstore.VerifyInstalled,
		Gate:         outbound,
		Agent:        o.Model != "",
		NotMounted:   notMounted(o),
		Transport:    o.Transport,
		Upstream:     upstreams,
		UpstreamOptions: upstream.ConnectOptions{
			Name: "ramabana-mcp", Logger: logger, Stderr: upstreamStderr, ConnectTimeout: o.UpstreamConnectTimeout,
			Pins: upstream.ConfigPins(o.ConfigDir), Tokens: upstream.ConfigTokens(o.ConfigDir),
		},
		Embed:     embedder,
		Telemetry: tel.Instruments,
	})
	if _, bad := errors.AsType[*hub.GroupsError](err); bad {
		return usageErr(err)
	}
	if err != nil {
		return err
	}
	// Runs after Close (defers run last first): the plugins are stopped.
	defer launch.RemoveSocketDir()
	defer h.Close()
	// A signal cancels the calls in flight first: the session waits for
	// them before it closes, and Close then stops the plugins.
	defer context.AfterFunc(ctx, h.CancelCalls)()
	if o.Model != "" && o.Delegate {
		if err := mountAgent(h, o, logger); err != nil {
			return err
		}
	}
	// initialize is answered at once: plugins and upstream servers start
	// behind it, and a client's first tools/list waits for them up to
	// --upstream-wait.
	readyBy := time.Now().Add(o.UpstreamWait)
	newServer := func() *mcp.Server {
		return mcpserver.New(h, mcpserver.Options{Version: o.Version, Logger: logger, ReadyBy: readyBy, Surface: o.Tools, Stateless: o.Stateless, Telemetry: tel.Instruments, ClientRoots: o.clientRoots})
	}
	watchCtx, stopWatch := context.WithCancel(ctx)
	started := make(chan struct{})
	go func() {
		defer close(started)
		if err := h.Start(watchCtx); err != nil {
			return
		}
		logger.Info("serving", "roots", h.Roots(), "tools", len(h.Mounted()), "transport", o.Transport, "write", o.Write)
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
	if o.Transport == "stdio" {
		t := &transport.StdioTransport{}
		if stdinIsTerminal {
			t.Terminal = os.Stderr
		}
		return transport.ServeStdio(ctx, newServer(), t)
	}
	return transport.ServeHTTP(ctx, newServer, transport.HTTPOptions{
		Addr: o.Addr, Token: o.Token, AllowOrigins: o.AllowOrigins, Stateless: o.Stateless, Pprof: o.Pprof, Metrics: tel.Metrics,
		Readiness: func() (bool, any) {
			hl := h.Health()
			return hl.Ready, hl
		},
		Ready: func(addr net.Addr) {
			base := "http://" + addr.String()
			if o.Stateless {
				logger.Info("listening", "mcp", base+"/mcp", "stateless", true, "token", o.Token != "")
				return
			}
			logger.Info("listening", "mcp", base+"/mcp", "sse", base+"/sse", "token", o.Token != "")
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

// loadUpstreams reads CFG/mcp.json and every --mcp-config file. A problem
// is one warning naming the file and the key; the other servers load.
func loadUpstreams(o *Config, logger *slog.Logger) *upstream.Config {
	files := []upstream.File{{Path: filepath.Join(o.ConfigDir, "mcp.json")}}
	for _, f := range o.MCPConfigs {
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

// mountAgent mounts the ask tool over an OpenAI-compatible backend; its
// turns mcp_connect the host's lazy upstream servers.
func mountAgent(h *hub.Host, o *Config, logger *slog.Logger) error {
	_, err := ask.Mount(ask.Config{
		Host: h,
		// Every request to the model leaves through the gate.
		Backend: h.Gate().Backend(agent.NewOpenAI(agent.OpenAIConfig{
			BaseURL: o.ModelURL, APIKey: os.Getenv(o.ModelKeyEnv), KeyEnv: o.ModelKeyEnv, Model: o.Model, Logger: logger,
		})),
		Model:         o.Model,
		MaxSteps:      o.MaxSteps,
		ContextBudget: o.ContextBudget,
		MaxRetries:    maxRetries(o.MaxRetries),
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
func newEmbedder(o *Config) (*embedding.Client, error) {
	if o.EmbedModel == "" {
		return nil, nil
	}
	c, err := embedding.New(embedding.Config{URL: o.EmbedURL, Model: o.EmbedModel, APIKey: os.Getenv(o.EmbedKeyEnv), KeyEnv: o.EmbedKeyEnv})
	if err != nil {
		return nil, fmt.Errorf("--embed-url: %w", err)
	}
	return c, nil
}

// DescribeBundled describes a bundled group in-process, exactly as its
// plugin process will.
func DescribeBundled(name string, h sdk.Host) (*sdk.Description, error) {
	return hub.Bundled{Groups: bundled}.Describe(name, h)
}

// notMounted says why the host's own tools that this configuration leaves
// out are absent (hub.Config.NotMounted).
func notMounted(o *Config) map[string]string {
	switch {
	case o.Model == "":
		return map[string]string{"ask": "the ask agent needs a model: start the server with --model NAME (an OpenAI-compatible one; Ollama by default)"}
	case !o.Delegate:
		return map[string]string{"ask": "the ask agent is not mounted: this server runs with --delegate=false; start it without that"}
	}
	return nil
}

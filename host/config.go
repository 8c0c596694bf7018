package host

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/ramabana/ramabana-mcp/host/internal/agent"
	"github.com/ramabana/ramabana-mcp/host/internal/mcpserver"
	"github.com/ramabana/ramabana-mcp/host/internal/pii"
	"github.com/ramabana/ramabana-mcp/host/internal/upstream"
	"github.com/ramabana/ramabana-mcp/internal/cliflag"
)

// Config is everything the server is started with. cmd/ramabana-mcp fills
// it from the command line (one flag a field, named in each comment);
// Check validates it and fills in the defaults that depend on the rest.
// The zero value of a field is its flag's default unless its comment says
// otherwise: use Defaults for a Config with every default.
type Config struct {
	// Roots are the folders to serve (--root). None means the current
	// one, until a client over stdio lists its roots: then those (without
	// --vault, whose store is scoped to the folders it opened for).
	Roots []string
	// Write mounts the write tools for the client too (--write).
	Write bool
	// ReadOutside lets read tools take paths outside the roots
	// (--read-outside); writes stay inside.
	ReadOutside bool
	// Web serves the tools that reach the network (--web; default true).
	Web bool
	// NoSandbox runs shell commands without the Landlock sandbox
	// (--sandbox off).
	NoSandbox bool
	// Groups opt groups in ("exhash") or out ("-shell") (--groups).
	Groups []string
	// PluginDirs are searched for ramabana-plugin-<group> binaries
	// (--plugins), before $RAMABANA_PLUGIN_PATH and ConfigDir/plugins.
	PluginDirs []string
	// PluginEnv names host environment variables passed to plugins beyond
	// the built-in allow-list (--plugin-env).
	PluginEnv []string
	// StartTimeout bounds a plugin's start and description
	// (--start-timeout; default 10s).
	StartTimeout time.Duration
	// PluginIdle is how long a plugin process with no call in flight is
	// kept before it exits; the next call starts it again (--plugin-idle;
	// default 5m; 0 keeps it).
	PluginIdle time.Duration

	// Transport is stdio, http (streamable HTTP at /mcp and SSE at /sse)
	// or sse (--transport; default stdio).
	Transport string
	// Addr is the HTTP listener's address (--addr; default 127.0.0.1:8765).
	Addr string
	// Token is the bearer token HTTP requires (--token; default
	// $RAMABANA_TOKEN). A listener other machines can reach needs one.
	Token string
	// AllowOrigins are browser origins allowed besides the server's own
	// (--allow-origin).
	AllowOrigins []string
	// Stateless serves /mcp without sessions (--stateless).
	Stateless bool
	// Pprof serves Go's profiles at /debug/pprof/ (--pprof).
	Pprof bool

	// ConfigDir holds skills, plugins, stores and mcp.json (--cfg; default
	// ~/.config/ramabana).
	ConfigDir string
	// LogLevel is the least level logged to stderr (--log-level; default
	// info).
	LogLevel slog.Level

	// PII filters what the server sends: "off" (or ""), "redact" or
	// "refuse" (--pii).
	PII string
	// PIINames adds personal names to what PII filters (--pii-ner).
	PIINames bool
	// Vault keeps the values PII finds and shows placeholders (--vault).
	Vault bool

	// MCPConfigs are upstream MCP server config files read after
	// ConfigDir/mcp.json (--mcp-config).
	MCPConfigs []string
	// UpstreamConnectTimeout bounds an upstream server's start
	// (--upstream-connect-timeout; default upstream.DefaultConnectTimeout).
	UpstreamConnectTimeout time.Duration
	// UpstreamWait bounds how long a client's first tools/list waits for
	// plugins and upstream servers (--upstream-wait; default 5s).
	UpstreamWait time.Duration
	// Tools is what tools/list holds: "all" (or "") or "search"
	// (capability mode) (--tools).
	Tools string
	// EmbedModel, EmbedURL and EmbedKeyEnv make search_capabilities'
	// ranking hybrid (--embed-model, --embed-url, --embed-key-env; the key
	// variable's default RAMABANA_EMBED_KEY).
	EmbedModel, EmbedURL, EmbedKeyEnv string

	// Model mounts the ask agent (--model); ModelURL is its
	// OpenAI-compatible API (--model-url; default Ollama's) and ModelKeyEnv
	// the variable holding its key (--model-key-env; default
	// RAMABANA_MODEL_KEY).
	Model, ModelURL, ModelKeyEnv string
	// Delegate mounts ask when there is a model (--delegate; default true).
	Delegate bool
	// MaxSteps, MaxRetries and ContextBudget bound an ask turn
	// (--max-steps, --max-retries, --context-budget; 0 the agent's
	// defaults, but MaxRetries' 0 is none and its default
	// agent.DefaultMaxRetries).
	MaxSteps, MaxRetries, ContextBudget int

	// OTel exports traces and metrics over OTLP (--otel); Metrics serves
	// Prometheus metrics at /metrics (--metrics).
	OTel, Metrics bool

	// Version is the server's version, sent to clients and plugins.
	Version string

	// piiMode is PII, parsed by Check.
	piiMode pii.Mode

	// clientRoots: no --root was given, over stdio, without --vault, so
	// the client's roots are served once it lists them (set by Check).
	clientRoots bool
}

// Defaults returns a Config with every flag's default.
func Defaults() Config {
	return Config{
		Web:                    true,
		StartTimeout:           10 * time.Second,
		PluginIdle:             5 * time.Minute,
		Transport:              "stdio",
		Addr:                   "127.0.0.1:8765",
		LogLevel:               slog.LevelInfo,
		PII:                    "off",
		UpstreamConnectTimeout: upstream.DefaultConnectTimeout,
		UpstreamWait:           5 * time.Second,
		Tools:                  mcpserver.SurfaceAll,
		EmbedKeyEnv:            "RAMABANA_EMBED_KEY",
		ModelURL:               "http://127.0.0.1:11434/v1",
		ModelKeyEnv:            "RAMABANA_MODEL_KEY",
		Delegate:               true,
		MaxRetries:             agent.DefaultMaxRetries,
	}
}

// Check checks what one flag alone cannot (values that need parsing, flags
// that need each other) and fills in the defaults that depend on others:
// the roots, the token, the config dir. Its errors name the flags.
func (c *Config) Check() error {
	switch c.Transport {
	case "", "stdio":
		c.Transport = "stdio"
	case "http", "sse":
	case "streamable-http":
		c.Transport = "http"
	default:
		return fmt.Errorf("--transport %q: use stdio, http or sse", c.Transport)
	}
	switch c.Tools {
	case "":
		c.Tools = mcpserver.SurfaceAll
	case mcpserver.SurfaceAll, mcpserver.SurfaceSearch:
	default:
		return fmt.Errorf("--tools %q: use all or search", c.Tools)
	}
	if c.PII == "" {
		c.PII = "off"
	}
	mode, err := pii.ParseMode(c.PII)
	if err != nil {
		return fmt.Errorf("--pii: %w", err)
	}
	c.piiMode = mode
	if c.Stateless && c.Transport != "http" {
		return fmt.Errorf("--stateless needs --transport http: it is streamable HTTP's stateless mode; stdio is one client's own process, and SSE keeps each session's stream in one process")
	}
	if c.Pprof && c.Transport == "stdio" {
		return errors.New("--pprof needs --transport http or sse: the profiles are served on the HTTP listener")
	}
	if _, _, err := net.SplitHostPort(c.Addr); err != nil {
		return fmt.Errorf("--addr %q: want HOST:PORT, such as 127.0.0.1:8765", c.Addr)
	}
	for _, origin := range c.AllowOrigins {
		if err := http.NewCrossOriginProtection().AddTrustedOrigin(origin); err != nil {
			return fmt.Errorf("--allow-origin %q: want scheme://host[:port], such as http://localhost:3000", origin)
		}
	}
	if len(c.Roots) == 0 {
		c.Roots = []string{"."}
		c.clientRoots = c.Transport == "stdio" && !c.Vault
	}
	if c.Token == "" {
		c.Token = os.Getenv("RAMABANA_TOKEN")
	}
	if c.Transport != "stdio" && c.Token == "" && !loopback(c.Addr) {
		return fmt.Errorf("--addr %s is reachable from other machines: set a bearer token with $RAMABANA_TOKEN or --token, or listen on 127.0.0.1", c.Addr)
	}
	if c.Metrics && c.Transport == "stdio" {
		return errors.New("--metrics serves /metrics on the HTTP listener: add --transport http, or export over OTLP with --otel")
	}
	if c.PIINames && mode == pii.ModeOff {
		return errors.New("--pii-ner needs --pii redact or --pii refuse: it adds personal names to what --pii filters")
	}
	if c.Vault && mode == pii.ModeOff {
		return errors.New("--vault needs --pii redact or --pii refuse: it keeps what --pii finds and shows placeholders for it")
	}
	switch {
	case c.EmbedModel != "" && c.EmbedURL == "":
		return errors.New("--embed-model needs --embed-url, the OpenAI-compatible server that embeds with it (http://127.0.0.1:11434/v1 for Ollama)")
	case c.EmbedModel == "" && c.EmbedURL != "":
		return errors.New("--embed-url needs --embed-model, the embeddings model to ask it for")
	}
	dir, err := cliflag.ConfigDir(c.ConfigDir)
	if err != nil {
		return err
	}
	c.ConfigDir = dir
	return nil
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

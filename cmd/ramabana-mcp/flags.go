package main

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/ramabana/ramabana-mcp/host"
	"github.com/ramabana/ramabana-mcp/internal/cliflag"
)

// flags is the command line: host.Config's fields, and --version.
type flags struct {
	cfg     host.Config
	version bool
}

// newFlagSet defines the server's flags on f, each setting its field of
// host.Config (whose comments say what each does). It prints nothing:
// main prints the usage and the errors.
func newFlagSet(f *flags) *flag.FlagSet {
	c := &f.cfg
	*c = host.Defaults()
	fs := flag.NewFlagSet("ramabana-mcp", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	list := func(p *[]string, name, usage string) { fs.Var((*cliflag.List)(p), name, usage) }
	list(&c.Roots, "root", "folders to serve, comma-separated or repeated (default: the current folder)")
	list(&c.PluginDirs, "plugins", "plugin dirs searched for ramabana-plugin-<group> binaries, before $RAMABANA_PLUGIN_PATH and CFG/plugins")
	list(&c.Groups, "groups", "opt groups in (exhash) or out (-shell), comma-separated")
	list(&c.PluginEnv, "plugin-env", "host environment variables to pass to plugins beyond the built-in allow-list")
	fs.BoolVar(&c.Write, "write", c.Write, "mount the write tools too (default: read-only)")
	fs.BoolVar(&c.ReadOutside, "read-outside", c.ReadOutside, "let read tools take paths outside the served folders; writes stay inside")
	fs.BoolVar(&c.Web, "web", c.Web, "serve tools that reach the network")
	fs.Func("sandbox", "on or off: run shell commands in a Landlock sandbox (writes only inside the served folders and a private temp dir) where the kernel allows (default on)", func(s string) error {
		switch s {
		case "on", "true":
			c.NoSandbox = false
		case "off", "false":
			c.NoSandbox = true
		default:
			return fmt.Errorf("use on or off")
		}
		return nil
	})
	fs.StringVar(&c.Transport, "transport", c.Transport, "stdio, http (streamable HTTP at /mcp, SSE at /sse; probes at /healthz and /readyz) or sse")
	fs.StringVar(&c.Addr, "addr", c.Addr, "listen address for http and sse")
	list(&c.AllowOrigins, "allow-origin", "browser origins (scheme://host[:port]) allowed to reach http and sse besides the server's own, comma-separated or repeated; other cross-origin requests get 403")
	fs.BoolVar(&c.Stateless, "stateless", c.Stateless, "with --transport http, serve /mcp statelessly (no session; each request answered on its own), so that replicas can sit behind any load balancer; "+
		"mcp_connect and lazy upstream servers, resources/subscribe, resuming streams and /sse are then not served (docs: HTTP and deployment)")
	fs.BoolVar(&c.Pprof, "pprof", c.Pprof, "with --transport http or sse, serve Go's profiles (net/http/pprof) at /debug/pprof/, behind the token")
	fs.StringVar(&c.Token, "token", c.Token, "bearer token required by http and sse (default: $RAMABANA_TOKEN)")
	fs.StringVar(&c.ConfigDir, "cfg", c.ConfigDir, "config dir, for skills, plugins and stores (default: ~/.config/ramabana)")
	fs.Func("log-level", "debug, info, warn or error; logs go to stderr (default info)", func(s string) error {
		if err := c.LogLevel.UnmarshalText([]byte(s)); err != nil {
			return errors.New("use debug, info, warn or error")
		}
		return nil
	})
	cliflag.DurationVar(fs, &c.StartTimeout, "start-timeout", c.StartTimeout, "how long a plugin may take to start and describe itself")
	cliflag.DurationVar(fs, &c.PluginIdle, "plugin-idle", c.PluginIdle, "how long a plugin process with no call is kept before it exits (the next call starts it again); 0 keeps it")
	fs.StringVar(&c.Tools, "tools", c.Tools, "all (every tool, search_capabilities among them) or search (capability mode: only search_capabilities, invoke_tool and ask)")
	list(&c.MCPConfigs, "mcp-config", "upstream MCP server config files (mcpServers or VS Code servers JSON), read after CFG/mcp.json, comma-separated or repeated")
	cliflag.DurationVar(fs, &c.UpstreamConnectTimeout, "upstream-connect-timeout", c.UpstreamConnectTimeout, "how long an upstream MCP server may take to start, answer initialize and list its tools")
	cliflag.DurationVar(fs, &c.UpstreamWait, "upstream-wait", c.UpstreamWait, "how long a client's first tools/list waits for plugins and upstream MCP servers still starting; later tools arrive with tools/list_changed")
	fs.BoolVar(&f.version, "version", false, "print the version and exit")
	fs.BoolVar(&c.OTel, "otel", c.OTel, "export traces and metrics over OTLP, to where the standard OTEL_EXPORTER_OTLP_* variables say (default http/protobuf to localhost:4318); on without the flag when OTEL_EXPORTER_OTLP_ENDPOINT is set")
	fs.BoolVar(&c.Metrics, "metrics", c.Metrics, "serve Prometheus metrics at /metrics on the HTTP listener (behind the token)")
	fs.StringVar(&c.Model, "model", c.Model, "model for the ask agent (an OpenAI-compatible chat model); omit to serve tools only")
	fs.StringVar(&c.ModelURL, "model-url", c.ModelURL, "OpenAI-compatible API base URL for --model; the default is Ollama's")
	fs.StringVar(&c.ModelKeyEnv, "model-key-env", c.ModelKeyEnv, "environment variable holding the API key for --model-url, if it needs one")
	fs.BoolVar(&c.Delegate, "delegate", c.Delegate, "with --model, mount the ask tool")
	fs.StringVar(&c.EmbedModel, "embed-model", c.EmbedModel, "embeddings model that makes search_capabilities' ranking hybrid (BM25 fused with vector similarity), served at --embed-url; omit for BM25 alone")
	fs.StringVar(&c.EmbedURL, "embed-url", c.EmbedURL, "OpenAI-compatible API base URL for --embed-model, read as --model-url is (http://127.0.0.1:11434/v1 for Ollama; requests go to its /embeddings, or to the URL itself when it ends in /embeddings)")
	fs.StringVar(&c.EmbedKeyEnv, "embed-key-env", c.EmbedKeyEnv, "environment variable holding the API key for --embed-url, if it needs one")
	cliflag.CountVar(fs, &c.MaxSteps, "max-steps", c.MaxSteps, "model calls one ask turn may make (default 20)")
	cliflag.CountVar(fs, &c.MaxRetries, "max-retries", c.MaxRetries, "further attempts an ask turn makes after an evaluation tool judges its answer not valid, each with the feedback; 0 for none")
	cliflag.CountVar(fs, &c.ContextBudget, "context-budget", c.ContextBudget, "characters of conversation (about 4 a token) above which an ask turn compacts its history (default 200000)")
	fs.StringVar(&c.PII, "pii", c.PII, "off, redact or refuse: filter e-mail addresses, phone numbers, card numbers and secrets out of everything the server sends (addresses at example.com and other reserved documentation domains are kept)")
	fs.BoolVar(&c.Vault, "vault", c.Vault, "with --pii redact or refuse, show the model stable placeholders (⟦email:3⟧) instead of [REDACTED:kind], keep the values in an encrypted vault (CFG/vault.db; its key in CFG/vault.key or $RAMABANA_VAULT_KEY_FILE), and turn placeholders in write tools' arguments back into the values")
	fs.BoolVar(&c.PIINames, "pii-ner", c.PIINames, "with --pii redact or refuse, filter personal names too: titled names (Dr. Jane Smith, Sig.ra Bianchi) and listed first names with a surname")
	return fs
}

// parseFlags parses the server's command line. An error is a
// cliflag.UsageError, or flag.ErrHelp for -h and --help; what the flags
// mean together, host.Config.Check checks (host.Run calls it).
func parseFlags(args []string) (*flags, error) {
	f := &flags{}
	fs := newFlagSet(f)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, err
		}
		return nil, cliflag.Usage(err, help)
	}
	if fs.NArg() > 0 {
		return nil, cliflag.Usage(fmt.Errorf("unexpected argument %q; the subcommands are help and plugin", fs.Arg(0)), help)
	}
	return f, nil
}

// help is the command that prints the server's usage.
const help = "ramabana-mcp --help"

package sdk

import (
	"io"
	"log/slog"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"
	plugin "github.com/ramabana/ramabana-mcp/internal/goplugin"
	"google.golang.org/grpc"

	"github.com/ramabana/ramabana-mcp/internal/pluginrpc"
	"github.com/ramabana/ramabana-mcp/internal/pollpipe"
	"github.com/ramabana/ramabana-mcp/internal/sandbox"
)

// ServeOpt configures Serve.
type ServeOpt func(*serveConfig)

type serveConfig struct {
	watchHost bool
	allCPUs   bool
}

// WithAllCPUs keeps the plugin's Go runtime on every CPU, for a plugin
// whose tools spread work over goroutines (a search over many files).
// Without it Serve runs the plugin on one (see Serve).
func WithAllCPUs() ServeOpt {
	return func(c *serveConfig) { c.allCPUs = true }
}

// WithoutHostWatch keeps the plugin running when its parent goes away; for
// plugins run under a supervisor other than the ramabana host.
func WithoutHostWatch() ServeOpt {
	return func(c *serveConfig) { c.watchHost = false }
}

// Serve serves g as a ramabana plugin and returns only when the host ends
// the plugin. It must be the main goroutine's last call.
//
// The plugin's stdout carries the handshake; after it, go-plugin redirects
// os.Stdout and os.Stderr into its stdio stream, so Serve points slog at the
// original stderr first, where the host captures it line by line.
//
// The plugin exits when the host goes away: when its stdin is a pipe (the
// host's lifeline) and reaches EOF, or when it is re-parented.
//
// Every RPC must carry the token the host passed in the environment, when
// it passed one.
//
// The plugin runs Go code on one CPU (GOMAXPROCS 1) unless it is served
// WithAllCPUs or GOMAXPROCS is set to a count in its environment (the host
// passes the user's on): a call is one goroutine's work, and with one CPU the runtime
// hands it from the gRPC reader to the handler and back without waking
// other threads, which on a busy machine cost more than the call (measured
// in bench/, "The plugin hop").
//
// First of all the plugin makes itself non-dumpable (sandbox.NonDumpable),
// so that a program of the same user, such as a shell command, cannot read
// its memory or /proc/<pid>/environ.
func Serve(g Group, opts ...ServeOpt) {
	dumpErr := sandbox.NonDumpable()
	token := os.Getenv(pluginrpc.TokenEnv)
	_ = os.Unsetenv(pluginrpc.TokenEnv)
	cfg := serveConfig{watchHost: true}
	for _, o := range opts {
		o(&cfg)
	}
	if n, err := strconv.Atoi(os.Getenv("GOMAXPROCS")); !cfg.allCPUs && (err != nil || n < 1) {
		runtime.GOMAXPROCS(1) // not set, or set to what the runtime ignores
	}
	stderr := os.Stderr
	slog.SetDefault(slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: logLevelFromEnv()})))
	if dumpErr != nil {
		slog.Warn("plugin stays dumpable: commands of the same user can read its memory", "error", dumpErr)
	}
	if cfg.watchHost {
		go watchHost(os.Stdin, os.Getppid())
	}
	go exitOnSignal()
	plugin.Serve(&plugin.ServeConfig{
		HandshakeConfig:  pluginrpc.Handshake(),
		VersionedPlugins: pluginrpc.PluginSets(&service{impl: g}),
		GRPCServer: func(opts []grpc.ServerOption) *grpc.Server {
			if token != "" {
				opts = append(opts, pluginrpc.RequireToken(token)...)
			}
			return pluginrpc.NewServer(opts...)
		},
		Logger: hclog.New(&hclog.LoggerOptions{
			Name:   "plugin",
			Level:  hclog.Warn,
			Output: stderr,
		}),
	})
}

func logLevelFromEnv() slog.Level {
	var l slog.Level
	if err := l.UnmarshalText([]byte(os.Getenv("RAMABANA_LOG_LEVEL"))); err != nil {
		return slog.LevelInfo
	}
	return l
}

// watchHost exits the process when the host is gone. A stdin pipe is the
// host's lifeline: the host never writes to it, so EOF means its write end
// closed, which the kernel does when the host dies however it dies. A
// /dev/null or terminal stdin says nothing, so the parent pid is polled
// too: a re-parented plugin has lost its host.
func watchHost(stdin *os.File, ppid int) {
	if fi, err := stdin.Stat(); err == nil && fi.Mode()&os.ModeNamedPipe != 0 {
		go func() {
			_, _ = io.Copy(io.Discard, pollpipe.Open(stdin))
			slog.Debug("host closed the lifeline; exiting")
			Exit(0)
		}()
	}
	for range time.Tick(500 * time.Millisecond) {
		if os.Getppid() != ppid {
			slog.Debug("host went away; exiting")
			Exit(0)
		}
	}
}

// exitOnSignal exits cleanly on SIGTERM or SIGHUP: the host's parent-death
// signal and a closing terminal. (go-plugin itself ignores SIGINT.)
func exitOnSignal() {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGTERM, syscall.SIGHUP)
	sig := <-ch
	slog.Debug("exiting on signal", "signal", sig.String())
	Exit(0)
}

var (
	exitMu    sync.Mutex
	exitHooks []func()
)

// AtExit registers fn to run when the plugin exits because its host went
// away or it was signalled: for work the plugin started outside its own
// process group, such as a shell command's, which would otherwise outlive
// it. Hooks run once, in reverse order, and must be quick.
func AtExit(fn func()) {
	exitMu.Lock()
	defer exitMu.Unlock()
	exitHooks = append(exitHooks, fn)
}

// Exit runs the AtExit hooks and exits with code.
func Exit(code int) {
	exitMu.Lock()
	hooks := exitHooks
	exitHooks = nil
	for i := len(hooks) - 1; i >= 0; i-- {
		hooks[i]()
	}
	os.Exit(code)
}

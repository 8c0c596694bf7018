// Package launch starts a plugin process, hand-shakes with it and describes
// it: the one launcher, used by the host's supervision and by the `plugin
// list` and `plugin install` subcommands alike, so a plugin meets the same
// process, environment and checks wherever it is started.
//
// A launched process leads its own process group, gets a lifeline pipe as
// stdin and a parent-death signal, sees only the allow-listed environment
// (Environ) plus go-plugin's handshake variables and a fresh call token,
// and has its stderr captured line by line (the last lines go into the
// error that explains a failed start). Its description must pass
// sdk.Description.Validate.
package launch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	plugin "github.com/ramabana/ramabana-mcp/internal/goplugin"
	"github.com/ramabana/ramabana-mcp/internal/goplugin/runner"

	pluginv1 "github.com/ramabana/ramabana-mcp/internal/gen/ramabana/plugin/v1"
	"github.com/ramabana/ramabana-mcp/internal/pluginclient"
	"github.com/ramabana/ramabana-mcp/internal/pluginrpc"
	"github.com/ramabana/ramabana-mcp/internal/textcut"
	"github.com/ramabana/ramabana-mcp/sdk"
)

// Command is the program to launch: a plugin binary, or the ramabana-mcp
// binary with `plugin serve <group>` for a bundled group.
type Command struct {
	// Name names the plugin in errors and logs.
	Name string
	Path string
	Args []string
	// Bundled says Path is the host's own binary, which Options.Verify
	// does not check.
	Bundled bool
}

// Options are what every launch of a plugin shares.
type Options struct {
	// Env is the plugin's environment, KEY=VALUE, before go-plugin's
	// handshake variables and the call token are added: Environ's result.
	Env []string
	// StartTimeout bounds the handshake, and then Describe; zero means
	// DefaultStartTimeout.
	StartTimeout time.Duration
	// Logger receives the plugin's stderr lines, what it prints to stdout
	// after the handshake, and go-plugin's own log. Nil discards them; the
	// error of a failed start carries the last stderr lines either way.
	Logger *slog.Logger
	// Verify, when set, is run on a binary that is not Bundled before it is
	// started; an error refuses it.
	Verify func(path string) error
	// Cut shortens a line of the plugin's output to at most n bytes, for
	// the log and the error of a failed start; nil cuts at a character's
	// end. The server passes pii.Prefix: the filter of its log and status,
	// which sees only the cut line, must not be shown half a value.
	Cut func(line string, n int) string

	// oneShot (Describe) keeps the socket out of this process's shared
	// socket folder, which only the server removes at exit.
	oneShot bool
}

// Process is a launched, described plugin process. Its methods are safe
// for concurrent use.
type Process struct {
	client   *plugin.Client
	runner   *procRunner
	group    sdk.Group
	protocol int
	started  time.Time
}

// Group is the plugin's tool group, over its gRPC connection.
func (p *Process) Group() sdk.Group { return p.group }

// Protocol is the app protocol version negotiated in the handshake.
func (p *Process) Protocol() int { return p.protocol }

// Started is when the process was described and ready.
func (p *Process) Started() time.Time { return p.started }

// Pid is the process's pid.
func (p *Process) Pid() int { return p.runner.Pid() }

// Exited reports whether the process has exited, by the kernel's word or
// go-plugin's.
func (p *Process) Exited() bool { return p.runner.Ended() || p.client.Exited() }

// Done is closed once the process has exited and been reaped: a crash,
// or the end of Stop.
func (p *Process) Done() <-chan struct{} { return p.runner.ended }

// ExitedWithin reports whether the process has exited, waiting up to d.
func (p *Process) ExitedWithin(d time.Duration) bool {
	deadline := time.Now().Add(d)
	for !p.Exited() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
	return true
}

// Addr is the address the plugin serves on, from its handshake: for a
// check that dials it without the launcher's token.
func (p *Process) Addr() net.Addr {
	if rc := p.client.ReattachConfig(); rc != nil {
		return rc.Addr
	}
	return nil
}

// CloseLifeline closes the plugin's stdin, the host's lifeline, as the
// host does when it stops the plugin, and leaves the process alone: a
// plugin that follows the contract exits by itself. Stop still ends it.
func (p *Process) CloseLifeline() { p.runner.closeLifeline() }

// Ping asks the plugin's grpc.health.v1 service whether it serves, as
// go-plugin's host does.
func (p *Process) Ping() error {
	rpc, err := p.client.Client()
	if err != nil {
		return err
	}
	return rpc.Ping()
}

// Shutdown asks the plugin to exit through go-plugin's
// GRPCController.Shutdown, as the host does after a start that failed
// once the handshake was done, and closes the connection. The process is
// left alone: Stop still ends it.
func (p *Process) Shutdown() error {
	rpc, err := p.client.Client()
	if err != nil {
		return err
	}
	return rpc.Close()
}

// Stop ends the process: first the lifeline, which a well-behaved plugin
// answers by exiting, then SIGKILL to its process group, then go-plugin's
// own cleanup, which is quick once the process is gone. It never blocks on
// an unresponsive plugin (go-plugin's graceful Kill would).
func (p *Process) Stop() {
	p.runner.closeLifeline()
	if !p.ExitedWithin(time.Second) {
		_ = p.runner.Kill(context.Background())
		p.ExitedWithin(2 * time.Second)
	}
	p.client.Kill()
}

// DefaultStartTimeout is the start timeout of Options that set none.
const DefaultStartTimeout = 10 * time.Second

var socketDirWarning sync.Once

// Start launches cmd, completes the handshake, describes the plugin with
// host and validates the description: a description that fails
// sdk.Description.Validate (ValidateUncompiled for a bundled group) refuses
// the plugin; a tool that fails
// ToolSpec.ValidateTask is left out of the returned description, with a
// warning in the log. On any failure the process is killed
// and the error names the plugin and ends with its last stderr lines. The
// launch is bound to ctx only through Describe; the handshake is bounded by
// opts.StartTimeout.
func Start(ctx context.Context, cmd Command, host sdk.Host, opts Options) (*Process, *sdk.Description, error) {
	if opts.Verify != nil && !cmd.Bundled {
		if err := opts.Verify(cmd.Path); err != nil {
			return nil, nil, fmt.Errorf("refused plugin %q: %w", cmd.Name, err)
		}
	}
	if opts.StartTimeout <= 0 {
		opts.StartTimeout = DefaultStartTimeout
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	token, err := pluginrpc.NewToken()
	if err != nil {
		return nil, nil, err
	}
	sockets := socketsFor(opts, logger)
	cut := opts.Cut
	if cut == nil {
		cut = textcut.Prefix[string]
	}
	tail := &lineTail{max: 8, cut: cut}
	var proc *procRunner
	outWriter := &lineLogger{logger: logger, plugin: cmd.Name, msg: "plugin output", cut: cut}
	errWriter := &lineLogger{logger: logger, plugin: cmd.Name, msg: "plugin output", cut: cut}
	client := plugin.NewClient(&plugin.ClientConfig{
		HandshakeConfig:  pluginrpc.Handshake(),
		VersionedPlugins: pluginrpc.PluginSets(nil),
		AllowedProtocols: []plugin.Protocol{plugin.ProtocolGRPC},
		SkipHostEnv:      true,
		UnixSocketConfig: sockets,
		StartTimeout:     opts.StartTimeout,
		SyncStdout:       outWriter,
		SyncStderr:       errWriter,
		GRPCDialOptions:  append(pluginrpc.DialOptions(), pluginrpc.TokenDialOption(token)),
		Logger: hclog.New(&hclog.LoggerOptions{
			Name: "go-plugin", Output: &lineLogger{logger: logger, plugin: cmd.Name, msg: "go-plugin", cut: cut}, Level: hclog.Info,
		}),
		RunnerFunc: func(_ hclog.Logger, spec *exec.Cmd, _ string) (runner.Runner, error) {
			c := exec.Command(cmd.Path, cmd.Args...)
			c.Env = append(append(append([]string{}, opts.Env...), spec.Env...), pluginrpc.TokenEnv+"="+token)
			proc = newProcRunner(c, cmd.Name, logger, tail)
			return proc, nil
		},
	})
	fail := func(err error) (*Process, *sdk.Description, error) {
		client.Kill()
		if t := tail.String(); t != "" && !strings.Contains(err.Error(), t) {
			err = fmt.Errorf("%w (stderr: %s)", err, t)
		}
		return nil, nil, err
	}
	rpc, err := client.Client()
	if err != nil {
		return fail(fmt.Errorf("start plugin %q: %w", cmd.Name, handshakeErr(err)))
	}
	raw, err := rpc.Dispense(pluginrpc.PluginName)
	if err != nil {
		return fail(fmt.Errorf("start plugin %q: %w", cmd.Name, err))
	}
	stub, ok := raw.(pluginv1.ToolGroupServiceClient)
	if !ok {
		return fail(fmt.Errorf("start plugin %q: dispensed %T, not a tool group", cmd.Name, raw))
	}
	group := pluginclient.New(stub)
	dctx, cancel := context.WithTimeout(ctx, opts.StartTimeout)
	defer cancel()
	desc, err := group.Describe(dctx, host)
	if err != nil {
		return fail(fmt.Errorf("describe plugin %q: %w", cmd.Name, err))
	}
	// A bundled group's schemas are the server's own, which its tests
	// compile; they are compiled at each tool's first call (the catalog),
	// not all of them at every launch.
	validate := desc.Validate
	if cmd.Bundled {
		validate = desc.ValidateUncompiled
	}
	if err := validate(); err != nil {
		return fail(fmt.Errorf("plugin %q: %w", cmd.Name, err))
	}
	desc, refused := desc.DropMisdeclared()
	for _, err := range refused {
		logger.Warn("tool refused; the plugin's other tools are served", "plugin", cmd.Name, "error", err)
	}
	p := &Process{client: client, runner: proc, group: group, protocol: client.NegotiatedVersion(), started: time.Now()}
	return p, desc, nil
}

// Describe launches cmd, describes it and stops it: what `plugin list` and
// `plugin install` need of a binary.
func Describe(ctx context.Context, cmd Command, host sdk.Host, opts Options) (*sdk.Description, int, error) {
	opts.oneShot = true
	p, desc, err := Start(ctx, cmd, host, opts)
	if err != nil {
		return nil, 0, err
	}
	p.Stop()
	return desc, p.Protocol(), nil
}

// socketsFor puts a served plugin's socket in this process's socket folder;
// a one-shot launch's, or any when that folder cannot be made (warned
// once), goes to go-plugin's own folder, removed when the plugin stops.
func socketsFor(opts Options, logger *slog.Logger) *plugin.UnixSocketConfig {
	if opts.oneShot {
		return nil
	}
	dir, err := socketDir()
	if err != nil {
		socketDirWarning.Do(func() {
			logger.Warn("plugin sockets go to go-plugin's own folders in $TMPDIR, which a killed server leaves behind", "error", err)
		})
		return nil
	}
	if dir == "" {
		return nil
	}
	return &plugin.UnixSocketConfig{TempDir: dir}
}

// handshakeErr shortens go-plugin's multi-line start errors to one line,
// and names the commonest cases plainly: a plugin that closed its stdout
// (most often by exiting) without writing the handshake line, or wrote
// something else first.
func handshakeErr(err error) error {
	msg, _, _ := strings.Cut(err.Error(), "\n")
	if rest, ok := strings.CutPrefix(msg, "Unrecognized remote plugin message:"); ok {
		if rest = strings.TrimSpace(rest); rest == "" {
			return errors.New("no handshake: the plugin ended its output without one")
		}
		return fmt.Errorf("no handshake: the plugin's first line was %q", rest)
	}
	if msg == "plugin exited before we could connect" {
		return errors.New("no handshake: the plugin exited before one")
	}
	return errors.New(msg)
}

// lineLogger logs lines at debug level: what a plugin writes to its
// redirected stdout or stderr after the handshake (go-plugin's stdio
// stream), and go-plugin's own log, whose failures the launcher reports
// itself. It logs whole lines: go-plugin hands the stream on in chunks of
// its own size, and a value the log's filter is to hide must reach it in
// one piece. A line longer than maxLoggedLine is logged in parts, cut
// by cut (Options.Cut). One stream a lineLogger.
type lineLogger struct {
	logger *slog.Logger
	plugin string
	msg    string
	cut    func(string, int) string

	mu      sync.Mutex
	pending []byte // the start of a line not yet ended
}

// maxLoggedLine bounds a line lineLogger holds before it logs it.
const maxLoggedLine = 64 << 10

func (l *lineLogger) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.pending = append(l.pending, p...)
	for {
		i := bytes.IndexByte(l.pending, '\n')
		if i < 0 {
			break
		}
		l.log(string(l.pending[:i]))
		l.pending = l.pending[i+1:]
	}
	for len(l.pending) > maxLoggedLine {
		part := l.cut(string(l.pending), maxLoggedLine)
		if part == "" {
			part = string(l.pending[:maxLoggedLine]) // one finding longer than the bound
		}
		l.log(part)
		l.pending = l.pending[len(part):]
	}
	if len(l.pending) == 0 {
		l.pending = nil // let a long line's buffer go
	}
	return len(p), nil
}

func (l *lineLogger) log(line string) {
	if line = strings.TrimRight(line, "\r"); line != "" {
		l.logger.Debug(l.msg, "plugin", l.plugin, "line", line)
	}
}

var _ io.Writer = (*lineLogger)(nil)

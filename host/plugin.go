package host

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"github.com/hashicorp/go-plugin/runner"

	"github.com/ramabana/ramabana-mcp/sdk"
)

// ErrPluginDied is wrapped by the error of a call whose plugin exited
// while it ran.
var ErrPluginDied = errors.New("plugin exited during the call")

// launchConfig is what every launch of a plugin shares.
type launchConfig struct {
	host         sdk.Host
	env          []string // the allow-listed host environment
	startTimeout time.Duration
	logger       *slog.Logger
	verify       func(path string) error // nil: every binary may run
}

// Plugin is one plugin process under supervision: launched, described,
// relaunched on the next call after it dies, and stopped with its whole
// process group. It is safe for concurrent use.
type Plugin struct {
	src         Source
	cfg         launchConfig
	fingerprint fingerprint // of the binary when the plugin was made

	mu       sync.Mutex
	live     *liveProc
	desc     *sdk.Description
	restarts int
	lastErr  error
	retryAt  time.Time     // no relaunch before this, after a failed launch
	backoff  time.Duration // the next wait after a failed launch
	stopped  bool
}

type liveProc struct {
	client *plugin.Client
	group  sdk.Group
	runner *procRunner
}

func newPlugin(src Source, cfg launchConfig) *Plugin {
	return &Plugin{src: src, cfg: cfg, fingerprint: fingerprintOf(src)}
}

// Name is the plugin's name.
func (p *Plugin) Name() string { return p.src.Name }

// Source says where the plugin comes from.
func (p *Plugin) Source() Source { return p.src }

// Description is the plugin's last description, nil before a good launch.
func (p *Plugin) Description() *sdk.Description {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.desc
}

// start launches the plugin and describes it. It is called once at host
// start; later launches happen in ensure.
func (p *Plugin) start(ctx context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	_, err := p.launchLocked(ctx)
	return err
}

func (p *Plugin) launchLocked(ctx context.Context) (*liveProc, error) {
	lp, desc, err := launch(ctx, p.src, p.cfg)
	if err != nil {
		p.lastErr = err
		if p.backoff == 0 {
			p.backoff = 250 * time.Millisecond
		}
		p.retryAt = time.Now().Add(p.backoff)
		p.backoff = min(2*p.backoff, 30*time.Second)
		return nil, err
	}
	if p.desc != nil && !sameTools(p.desc, desc) {
		p.cfg.logger.Warn("plugin changed its tools after a restart; the catalog keeps the first description", "plugin", p.src.Name)
	}
	if p.desc == nil {
		p.desc = desc
	}
	p.live, p.backoff, p.retryAt = lp, 0, time.Time{}
	return lp, nil
}

// ensure returns the live process, relaunching a dead one.
func (p *Plugin) ensure(ctx context.Context) (*liveProc, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stopped {
		return nil, fmt.Errorf("plugin %q is stopped", p.src.Name)
	}
	if p.live != nil && !p.live.client.Exited() {
		return p.live, nil
	}
	if p.live != nil {
		p.live.client.Kill()
		p.live = nil
	}
	if wait := time.Until(p.retryAt); wait > 0 {
		return nil, fmt.Errorf("plugin %q failed to start (%v); next try in %s", p.src.Name, p.lastErr, wait.Round(time.Millisecond))
	}
	p.restarts++
	p.cfg.logger.Info("restarting plugin", "plugin", p.src.Name, "restarts", p.restarts)
	return p.launchLocked(ctx)
}

// Call runs a tool in the plugin. When the plugin dies during the call, the
// error wraps ErrPluginDied and names the plugin; the next call relaunches
// it.
func (p *Plugin) Call(ctx context.Context, call *sdk.Call, events sdk.Events) (*sdk.Result, error) {
	lp, err := p.ensure(ctx)
	if err != nil {
		return nil, err
	}
	res, err := lp.group.Call(ctx, call, events)
	if err != nil && ctx.Err() == nil && (errors.Is(err, sdk.ErrUnavailable) || lp.client.Exited()) {
		p.markDead(lp, err)
		return nil, fmt.Errorf("%w: plugin %q, tool %s: %v; it restarts on the next call", ErrPluginDied, p.src.Name, call.Tool, err)
	}
	return res, err
}

func (p *Plugin) markDead(lp *liveProc, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.lastErr = err
	if p.live == lp {
		lp.client.Kill()
		p.live = nil
	}
}

// Stop kills the plugin process and its process group; later calls fail.
func (p *Plugin) Stop() {
	p.mu.Lock()
	lp := p.live
	p.live, p.stopped = nil, true
	p.mu.Unlock()
	if lp != nil {
		lp.client.Kill()
	}
}

// Health is a plugin's state for status and logs.
type Health struct {
	Running  bool
	Pid      int
	Restarts int
	LastErr  string
}

// Health reports the plugin's state.
func (p *Plugin) Health() Health {
	p.mu.Lock()
	defer p.mu.Unlock()
	h := Health{Restarts: p.restarts}
	if p.lastErr != nil {
		h.LastErr = p.lastErr.Error()
	}
	if p.live != nil && !p.live.client.Exited() {
		h.Running, h.Pid = true, p.live.runner.Pid()
	}
	return h
}

// Pid is the live plugin process's pid, or 0.
func (p *Plugin) Pid() int { return p.Health().Pid }

// launch starts the plugin process, completes the handshake and describes
// it. On any failure the process is killed.
func launch(ctx context.Context, src Source, cfg launchConfig) (*liveProc, *sdk.Description, error) {
	if cfg.verify != nil && !src.Bundled {
		if err := cfg.verify(src.Path); err != nil {
			return nil, nil, fmt.Errorf("refused plugin %q: %w", src.Name, err)
		}
	}
	tail := newLineTail(8)
	var proc *procRunner
	logWriter := &lineLogger{logger: cfg.logger, plugin: src.Name, msg: "plugin output"}
	client := plugin.NewClient(&plugin.ClientConfig{
		HandshakeConfig:  sdk.Handshake,
		VersionedPlugins: sdk.PluginSets(nil),
		AllowedProtocols: []plugin.Protocol{plugin.ProtocolGRPC},
		SkipHostEnv:      true,
		StartTimeout:     cfg.startTimeout,
		SyncStdout:       logWriter,
		SyncStderr:       logWriter,
		GRPCDialOptions:  sdk.DialOptions(),
		Logger: hclog.New(&hclog.LoggerOptions{
			Name: "go-plugin", Output: &lineLogger{logger: cfg.logger, plugin: src.Name, msg: "go-plugin"}, Level: hclog.Info,
		}),
		RunnerFunc: func(_ hclog.Logger, spec *exec.Cmd, _ string) (runner.Runner, error) {
			cmd := exec.Command(src.Path, src.Args...)
			cmd.Env = append(append([]string{}, cfg.env...), spec.Env...)
			proc = newProcRunner(cmd, src.Name, cfg.logger, tail)
			return proc, nil
		},
	})
	fail := func(err error) (*liveProc, *sdk.Description, error) {
		client.Kill()
		if t := tail.String(); t != "" && !strings.Contains(err.Error(), t) {
			err = fmt.Errorf("%w (stderr: %s)", err, t)
		}
		return nil, nil, err
	}
	rpc, err := client.Client()
	if err != nil {
		return fail(fmt.Errorf("start plugin %q: %w", src.Name, cleanStartErr(err)))
	}
	raw, err := rpc.Dispense(sdk.PluginName)
	if err != nil {
		return fail(fmt.Errorf("start plugin %q: %w", src.Name, err))
	}
	group, ok := raw.(sdk.Group)
	if !ok {
		return fail(fmt.Errorf("start plugin %q: dispensed %T, not a tool group", src.Name, raw))
	}
	dctx, cancel := context.WithTimeout(ctx, cfg.startTimeout)
	defer cancel()
	desc, err := group.Describe(dctx, cfg.host)
	if err != nil {
		return fail(fmt.Errorf("describe plugin %q: %w", src.Name, err))
	}
	if err := checkDescription(desc); err != nil {
		return fail(fmt.Errorf("plugin %q: %w", src.Name, err))
	}
	return &liveProc{client: client, group: group, runner: proc}, desc, nil
}

// cleanStartErr shortens go-plugin's multi-line start errors to one line,
// and names the commonest case plainly: a plugin that closed its stdout (most
// often by exiting) without writing the handshake line.
func cleanStartErr(err error) error {
	msg := err.Error()
	if i := strings.Index(msg, "\n"); i >= 0 {
		msg = msg[:i]
	}
	if strings.TrimSpace(msg) == "Unrecognized remote plugin message:" {
		msg = "no handshake: the plugin ended its output without one"
	} else if rest, ok := strings.CutPrefix(msg, "Unrecognized remote plugin message: "); ok {
		msg = fmt.Sprintf("no handshake: the plugin's first line was %q", rest)
	}
	return errors.New(msg)
}

func checkDescription(d *sdk.Description) error {
	if len(d.Groups) == 0 {
		return errors.New("describes no groups")
	}
	for _, g := range d.Groups {
		if !pluginNameRE.MatchString(g.Name) {
			return fmt.Errorf("group name %q: must be lower-case letters, digits and '-'", g.Name)
		}
	}
	return nil
}

func sameTools(a, b *sdk.Description) bool {
	names := func(d *sdk.Description) string {
		var s []string
		for _, g := range d.Groups {
			for _, t := range g.Tools {
				s = append(s, g.Name+"/"+t.Name)
			}
		}
		return strings.Join(s, ",")
	}
	return names(a) == names(b)
}

// lineLogger logs lines at debug level: what a plugin writes to its
// redirected stdout and stderr after the handshake (go-plugin's stdio
// stream), and go-plugin's own log, whose failures the host reports itself.
type lineLogger struct {
	logger *slog.Logger
	plugin string
	msg    string
}

func (l *lineLogger) Write(p []byte) (int, error) {
	for _, line := range strings.Split(strings.TrimRight(string(p), "\n"), "\n") {
		if line != "" {
			l.logger.Debug(l.msg, "plugin", l.plugin, "line", line)
		}
	}
	return len(p), nil
}

var _ io.Writer = (*lineLogger)(nil)

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

	// mu guards the fields below and is never held across a launch, a
	// call or a kill: those can take seconds.
	mu           sync.Mutex
	live         *liveProc
	launching    chan struct{} // closed when the launch under way ends
	desc         *sdk.Description
	restarts     int
	lastErr      error
	retryAt      time.Time // no relaunch before this
	quickCrashes int       // consecutive deaths soon after a launch
	launched     bool      // a launch has succeeded: later ones are restarts
	stopped      bool
}

// A plugin that dies within crashWindow of its launch counts as crashing;
// from the second such death in a row, relaunches back off.
const crashWindow = 10 * time.Second

type liveProc struct {
	client  *plugin.Client
	group   sdk.Group
	runner  *procRunner
	started time.Time
}

// stop ends the process: first the lifeline, which a well-behaved plugin
// answers by exiting, then SIGKILL to its process group, then go-plugin's
// own cleanup, which is quick once the process is gone. It never blocks on
// an unresponsive plugin (go-plugin's graceful Kill would).
func (lp *liveProc) stop() {
	lp.runner.closeLifeline()
	if !lp.exitedWithin(time.Second) {
		_ = lp.runner.Kill(context.Background())
		lp.exitedWithin(2 * time.Second)
	}
	lp.client.Kill()
}

// exited reports whether the process has exited, by the kernel's word or
// go-plugin's.
func (lp *liveProc) exited() bool {
	return lp.runner.Ended() || lp.client.Exited()
}

// exitedWithin reports whether the process has exited, waiting up to d.
func (lp *liveProc) exitedWithin(d time.Duration) bool {
	deadline := time.Now().Add(d)
	for !lp.exited() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
	return true
}

func newPlugin(src Source, cfg launchConfig) *Plugin {
	return &Plugin{src: src, cfg: cfg, fingerprint: fingerprintOf(src)}
}

// Name is the plugin's name.
func (p *Plugin) Name() string { return p.src.Name }

// Source says where the plugin comes from.
func (p *Plugin) Source() Source { return p.src }

// Description is the plugin's first good description, nil before one.
func (p *Plugin) Description() *sdk.Description {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.desc
}

// start launches the plugin and describes it, at host start.
func (p *Plugin) start(ctx context.Context) error {
	_, err := p.ensure(ctx)
	return err
}

// ensure returns the live process, launching it when there is none. One
// launch runs at a time; concurrent callers wait for it or for their own
// context. The launch itself is not bound to the caller's context (other
// callers depend on it), only to the start timeout and to Stop.
func (p *Plugin) ensure(ctx context.Context) (*liveProc, error) {
	for {
		p.mu.Lock()
		switch {
		case p.stopped:
			p.mu.Unlock()
			return nil, fmt.Errorf("plugin %q is stopped", p.src.Name)
		case p.live != nil && !p.live.exited():
			lp := p.live
			p.mu.Unlock()
			return lp, nil
		case p.launching != nil:
			wait := p.launching
			p.mu.Unlock()
			select {
			case <-wait:
				continue
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		dead := p.live
		if dead != nil {
			p.noteDeathLocked(dead)
			p.live = nil
		}
		if wait := time.Until(p.retryAt); wait > 0 {
			err := fmt.Errorf("plugin %q keeps failing (%v); next try in %s", p.src.Name, p.lastErr, wait.Round(time.Millisecond))
			p.mu.Unlock()
			if dead != nil {
				dead.stop()
			}
			return nil, err
		}
		if p.launched {
			p.restarts++
			p.cfg.logger.Info("restarting plugin", "plugin", p.src.Name, "restarts", p.restarts)
		}
		done := make(chan struct{})
		p.launching = done
		p.mu.Unlock()
		if dead != nil {
			dead.stop()
		}

		lp, desc, err := launch(context.WithoutCancel(ctx), p.src, p.cfg)

		p.mu.Lock()
		p.launching = nil
		close(done)
		switch {
		case err != nil:
			p.lastErr = err
			p.quickCrashes++
			p.retryAt = time.Now().Add(backoff(p.quickCrashes))
		case p.stopped:
			err = fmt.Errorf("plugin %q is stopped", p.src.Name)
		default:
			if p.desc != nil && !sameTools(p.desc, desc) {
				p.cfg.logger.Warn("plugin describes other tools than before (a restart, or a process unlike the binary's in-process description); the catalog keeps the first", "plugin", p.src.Name)
			}
			if p.desc == nil {
				p.desc = desc
			}
			p.live, p.launched = lp, true
		}
		p.mu.Unlock()
		if err != nil && lp != nil {
			lp.stop()
		}
		return lp, err
	}
}

// noteDeathLocked counts a death for the crash-loop backoff: the first
// death after a launch restarts at once, repeated quick ones wait.
func (p *Plugin) noteDeathLocked(lp *liveProc) {
	if p.lastErr == nil {
		p.lastErr = fmt.Errorf("the process exited %s after its launch", time.Since(lp.started).Round(time.Millisecond))
	}
	if time.Since(lp.started) < crashWindow {
		p.quickCrashes++
	} else {
		p.quickCrashes = 0
	}
	if p.quickCrashes >= 2 {
		p.retryAt = time.Now().Add(backoff(p.quickCrashes))
	}
}

// backoff is 250 ms doubling from the second failure, capped at 30 s.
func backoff(failures int) time.Duration {
	if failures < 2 {
		return 0
	}
	return min(250*time.Millisecond<<min(failures-2, 8), 30*time.Second)
}

// Call runs a tool in the plugin. When the plugin process dies during the
// call, the error wraps ErrPluginDied and names the plugin; the next call
// relaunches it. A call that never reached the plugin (the stream to a
// process found dead could not be opened: sdk.ErrNotDelivered) relaunches
// it and is made again, once: one that may have reached it never is, so a
// write never runs twice. Other errors (a failing handler, a plugin that
// reports UNAVAILABLE while it runs on) pass through and the process is
// kept. Log lines name the call by call.ID.
func (p *Plugin) Call(ctx context.Context, call *sdk.Call, events sdk.Events) (*sdk.Result, error) {
	for retried := false; ; retried = true {
		lp, err := p.ensure(ctx)
		if err != nil {
			return nil, err
		}
		res, err := lp.group.Call(ctx, call, events)
		if err == nil || ctx.Err() != nil || !lp.exitedWithin(exitGrace(err)) {
			return res, err
		}
		p.mu.Lock()
		p.lastErr = err
		p.mu.Unlock()
		if errors.Is(err, sdk.ErrNotDelivered) && !retried {
			p.cfg.logger.Info("plugin was gone before the call reached it; relaunching it for the call", "plugin", p.src.Name, "tool", call.Tool, "call_id", call.ID, "error", err)
			continue
		}
		p.cfg.logger.Warn("plugin exited during a call", "plugin", p.src.Name, "tool", call.Tool, "call_id", call.ID, "error", err)
		return nil, fmt.Errorf("%w: plugin %q exited while running %s; it restarts on the next call", ErrPluginDied, p.src.Name, call.Tool)
	}
}

// exitGrace is how long to wait for the process to be seen exiting after a
// failed call: a broken connection usually means the process is going.
func exitGrace(err error) time.Duration {
	if errors.Is(err, sdk.ErrUnavailable) || errors.Is(err, sdk.ErrNoResult) || errors.Is(err, sdk.ErrNotDelivered) {
		return time.Second
	}
	return 0
}

func (p *Plugin) isStopped() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stopped
}

// Stop kills the plugin process and its process group; later calls fail.
func (p *Plugin) Stop() {
	p.mu.Lock()
	lp := p.live
	p.live, p.stopped = nil, true
	p.mu.Unlock()
	if lp != nil {
		lp.stop()
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
	if p.live != nil && !p.live.exited() {
		h.Running, h.Pid = true, p.live.runner.Pid()
	}
	return h
}

// Pid is the live plugin process's pid, or 0.
func (p *Plugin) Pid() int { return p.Health().Pid }

var socketDirWarning sync.Once

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
	var sockets *plugin.UnixSocketConfig
	if dir, err := socketDir(); err != nil {
		socketDirWarning.Do(func() {
			cfg.logger.Warn("plugin sockets go to go-plugin's own folders in $TMPDIR, which a killed server leaves behind", "error", err)
		})
	} else if dir != "" {
		sockets = &plugin.UnixSocketConfig{TempDir: dir}
	}
	logWriter := &lineLogger{logger: cfg.logger, plugin: src.Name, msg: "plugin output"}
	token, err := sdk.NewCallToken()
	if err != nil {
		return nil, nil, err
	}
	client := plugin.NewClient(&plugin.ClientConfig{
		HandshakeConfig:  sdk.Handshake,
		VersionedPlugins: sdk.PluginSets(nil),
		AllowedProtocols: []plugin.Protocol{plugin.ProtocolGRPC},
		SkipHostEnv:      true,
		UnixSocketConfig: sockets,
		StartTimeout:     cfg.startTimeout,
		SyncStdout:       logWriter,
		SyncStderr:       logWriter,
		GRPCDialOptions:  append(sdk.DialOptions(), sdk.CallTokenOption(token)),
		Logger: hclog.New(&hclog.LoggerOptions{
			Name: "go-plugin", Output: &lineLogger{logger: cfg.logger, plugin: src.Name, msg: "go-plugin"}, Level: hclog.Info,
		}),
		RunnerFunc: func(_ hclog.Logger, spec *exec.Cmd, _ string) (runner.Runner, error) {
			cmd := exec.Command(src.Path, src.Args...)
			cmd.Env = append(append(append([]string{}, cfg.env...), spec.Env...), sdk.CallTokenEnv+"="+token)
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
	return &liveProc{client: client, group: group, runner: proc, started: time.Now()}, desc, nil
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

// Package supervise finds plugin binaries (bundled groups, plugin dirs)
// and runs each one's process while it is wanted: launched through
// internal/launch at its first call (or at host start when its description
// is not known yet), described, relaunched on the next call after it dies
// (with a crash-loop back-off) or after it exited for being idle, and
// stopped with its whole process group. Descriptions keeps what plugins
// described, so that an unchanged binary is listed without being started.
package supervise

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/ramabana/ramabana-mcp/internal/launch"
	"github.com/ramabana/ramabana-mcp/internal/pluginclient"
	"github.com/ramabana/ramabana-mcp/sdk"
)

// ErrPluginDied is wrapped by the error of a call whose plugin exited
// while it ran.
var ErrPluginDied = errors.New("plugin exited during the call")

// Config is what every launch of a plugin shares.
type Config struct {
	// Host is the context every launch describes the plugin with.
	Host sdk.Host
	// Launch are the launcher's options.
	Launch launch.Options
	// Logger gets restarts and deaths.
	Logger *slog.Logger
	// Idle, when positive, is how long a process with no call in flight
	// is kept: then it exits, and the next call starts another (not
	// counted as a restart). 0 keeps it until it dies or Stop.
	Idle time.Duration
	// Described, when set, is given each launched process's own
	// description (with its misdeclared tools left out), after the launch,
	// with no lock held: to keep it in Descriptions, and, when changed
	// says it differs from the description the plugin's tools were listed
	// from (Presume, or an earlier process's), to list them anew.
	Described func(p *Plugin, d *sdk.Description, changed bool)
	// LaunchFailed, when set, is given a launch's failure, with no lock
	// held: a description kept for a binary that no longer starts is to be
	// forgotten, so that the next start launches it and reports it.
	LaunchFailed func(p *Plugin, err error)
	// OnChange, when set, is called after the plugin's Health may have
	// changed: a launch began or ended, the process exited, Stop. It runs
	// on the goroutine of the change, with no lock held, and must not
	// block.
	OnChange func()
}

// Plugin is one plugin process under supervision: launched, described,
// relaunched on the next call after it dies, and stopped with its whole
// process group. It is safe for concurrent use.
type Plugin struct {
	src         Source
	cfg         Config
	fingerprint Fingerprint // of the binary when the plugin was made

	// mu guards the fields below and is never held across a launch, a
	// call or a kill: those can take seconds.
	mu           sync.Mutex
	live         *launch.Process
	launching    chan struct{} // closed when the launch under way ends
	desc         *sdk.Description
	restarts     int
	lastErr      error
	retryAt      time.Time // no relaunch before this
	quickCrashes int       // consecutive deaths soon after a launch
	launched     bool      // a launch has succeeded: later ones are restarts
	retired      bool      // the last process exited for being idle: the next launch is no restart
	stopped      bool
	inflight     int         // calls under way
	idleTimer    *time.Timer // retires the live process; nil while calls run or none is live
}

// A plugin that dies within crashWindow of its launch counts as crashing;
// from the second such death in a row, relaunches back off.
const crashWindow = 10 * time.Second

// New makes the supervisor of the plugin at src; nothing runs until Start or
// the first Call.
func New(src Source, cfg Config) *Plugin {
	return &Plugin{src: src, cfg: cfg, fingerprint: FingerprintOf(src)}
}

// Fingerprint identifies the binary as it was when the plugin was made.
func (p *Plugin) Fingerprint() Fingerprint { return p.fingerprint }

// Name is the plugin's name.
func (p *Plugin) Name() string { return p.src.Name }

// Source says where the plugin comes from.
func (p *Plugin) Source() Source { return p.src }

// Description is the description the plugin's tools are listed from: the
// presumed one (Presume) until a process describes itself otherwise, then
// the latest process's; nil before any.
func (p *Plugin) Description() *sdk.Description {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.desc
}

// Presume sets the description the catalog is built from before the
// process has described itself: a bundled group's, described in-process by
// the host binary, or one kept in Descriptions from an earlier launch of
// the same binary. The process's own description, when it comes, takes
// its place if it differs (Config.Described is told, and a call admitted
// on the presumed one is refused if its tool changed: CallListed).
func (p *Plugin) Presume(d *sdk.Description) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.desc = d
}

// Start launches the plugin and describes it, at host start when its
// description is not known otherwise. With Config.Idle, the process exits
// once that long has passed without a call.
func (p *Plugin) Start(ctx context.Context) error {
	_, err := p.ensure(ctx)
	return err
}

// ensure returns the live process, launching it when there is none. One
// launch runs at a time; concurrent callers wait for it or for their own
// context. The launch itself is not bound to the caller's context (other
// callers depend on it), only to the start timeout and to Stop.
func (p *Plugin) ensure(ctx context.Context) (*launch.Process, error) {
	for {
		p.mu.Lock()
		switch {
		case p.stopped:
			p.mu.Unlock()
			return nil, fmt.Errorf("plugin %q is stopped", p.src.Name)
		case p.live != nil && !p.live.Exited():
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
				dead.Stop()
			}
			return nil, err
		}
		switch {
		case p.retired:
			p.cfg.Logger.Debug("starting plugin again after it was idle", "plugin", p.src.Name)
		case p.launched:
			p.restarts++
			p.cfg.Logger.Info("restarting plugin", "plugin", p.src.Name, "restarts", p.restarts)
		}
		p.retired = false
		done := make(chan struct{})
		p.launching = done
		p.mu.Unlock()
		p.changed()
		if dead != nil {
			dead.Stop()
		}

		lp, desc, err := launch.Start(context.WithoutCancel(ctx), p.src.command(), p.cfg.Host, p.cfg.Launch)
		changed := false
		launchErr := err

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
			switch {
			case p.desc == nil:
				p.desc = desc
			case SameDescription(p.desc, desc):
				// The same: the catalog's entries keep the description
				// they were made from (CallListed compares pointers first).
			default:
				p.cfg.Logger.Warn("plugin describes itself otherwise than the description its tools were listed from; they follow the process's own", "plugin", p.src.Name)
				p.desc, changed = desc, true
			}
			p.live, p.launched, p.retired = lp, true, false
			p.armIdleLocked()
		}
		p.mu.Unlock()
		if err != nil && lp != nil {
			lp.Stop()
		}
		if err == nil && p.cfg.Described != nil {
			p.cfg.Described(p, desc, changed)
		}
		if launchErr != nil && p.cfg.LaunchFailed != nil {
			p.cfg.LaunchFailed(p, launchErr)
		}
		if err == nil && p.cfg.OnChange != nil {
			go func() {
				<-lp.Done()
				p.changed()
			}()
		}
		p.changed()
		return lp, err
	}
}

// noteDeathLocked counts a death for the crash-loop backoff: the first
// death after a launch restarts at once, repeated quick ones wait.
func (p *Plugin) noteDeathLocked(lp *launch.Process) {
	if p.lastErr == nil {
		p.lastErr = fmt.Errorf("the process exited %s after its launch", time.Since(lp.Started()).Round(time.Millisecond))
	}
	if time.Since(lp.Started()) < crashWindow {
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
// process found dead could not be opened: pluginclient.ErrNotDelivered) relaunches
// it and is made again, once: one that may have reached it never is, so a
// write never runs twice. Other errors (a failing handler, a plugin that
// reports UNAVAILABLE while it runs on) pass through and the process is
// kept. Log lines name the call by call.ID.
func (p *Plugin) Call(ctx context.Context, call *sdk.Call, events sdk.Events) (*sdk.Result, error) {
	return p.CallListed(ctx, nil, call, events)
}

// CallListed is Call for a call the host admitted on the description
// admitted (the one its catalog entry was made from; nil: the plugin's
// description when the call begins). If the process that takes the call
// describes the tool otherwise in what decides whether and how it may be
// called, the call is refused before it reaches the process.
func (p *Plugin) CallListed(ctx context.Context, admitted *sdk.Description, call *sdk.Call, events sdk.Events) (*sdk.Result, error) {
	p.begin()
	defer p.end()
	for retried := false; ; retried = true {
		listed := admitted
		if listed == nil {
			listed = p.Description()
		}
		lp, err := p.ensure(ctx)
		if err != nil {
			if ctx.Err() == nil {
				p.cfg.Logger.Warn("plugin could not start for a call", "plugin", p.src.Name, "tool", call.Tool, "call_id", call.ID, "error", err)
			}
			return nil, err
		}
		if now := p.Description(); now != listed && !sameTool(listed, now, call.Tool) {
			// The call was let through on what the tool was listed as.
			return nil, fmt.Errorf("plugin %q describes %s otherwise than when the tools were listed; the tool list is updated: list the tools and call again", p.src.Name, call.Tool)
		}
		res, err := lp.Group().Call(ctx, call, events)
		if err == nil || ctx.Err() != nil || !lp.ExitedWithin(exitGrace(err)) {
			return res, err
		}
		p.mu.Lock()
		p.lastErr = err
		p.mu.Unlock()
		p.changed()
		if errors.Is(err, pluginclient.ErrNotDelivered) && !retried {
			p.cfg.Logger.Info("plugin was gone before the call reached it; relaunching it for the call", "plugin", p.src.Name, "tool", call.Tool, "call_id", call.ID, "error", err)
			continue
		}
		p.cfg.Logger.Warn("plugin exited during a call", "plugin", p.src.Name, "tool", call.Tool, "call_id", call.ID, "error", err)
		return nil, fmt.Errorf("%w: plugin %q exited while running %s; it restarts on the next call", ErrPluginDied, p.src.Name, call.Tool)
	}
}

// begin counts a call under way: the live process is not retired for
// being idle while it runs.
func (p *Plugin) begin() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.inflight++
	if p.idleTimer != nil {
		p.idleTimer.Stop()
		p.idleTimer = nil
	}
}

// end counts a call done; the last one arms the idle timer.
func (p *Plugin) end() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.inflight--
	p.armIdleLocked()
}

// armIdleLocked starts the wait after which the live process, with no call
// in flight, is retired (Config.Idle).
func (p *Plugin) armIdleLocked() {
	if p.cfg.Idle <= 0 || p.inflight > 0 || p.stopped || p.live == nil {
		return
	}
	if p.idleTimer != nil {
		p.idleTimer.Stop()
	}
	lp := p.live
	p.idleTimer = time.AfterFunc(p.cfg.Idle, func() { p.retire(lp) })
}

// retire stops lp for being idle, unless a call began, it died, or another
// process took its place since the timer was armed. It is not a death: the
// next call starts another process and counts no restart.
func (p *Plugin) retire(lp *launch.Process) {
	p.mu.Lock()
	if p.live != lp || p.inflight > 0 || p.stopped || lp.Exited() {
		p.mu.Unlock()
		return
	}
	p.live, p.retired, p.idleTimer = nil, true, nil
	p.mu.Unlock()
	p.cfg.Logger.Debug("plugin idle; its process exits until the next call", "plugin", p.src.Name, "idle", p.cfg.Idle)
	lp.Stop()
	p.changed()
}

// exitGrace is how long to wait for the process to be seen exiting after a
// failed call: a broken connection usually means the process is going.
func exitGrace(err error) time.Duration {
	if errors.Is(err, pluginclient.ErrUnavailable) || errors.Is(err, pluginclient.ErrNoResult) || errors.Is(err, pluginclient.ErrNotDelivered) {
		return time.Second
	}
	return 0
}

// Stopped reports whether Stop was called.
func (p *Plugin) Stopped() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stopped
}

// Stop kills the plugin process and its process group; later calls fail.
func (p *Plugin) Stop() {
	p.mu.Lock()
	lp := p.live
	p.live, p.stopped = nil, true
	if p.idleTimer != nil {
		p.idleTimer.Stop()
		p.idleTimer = nil
	}
	p.mu.Unlock()
	if lp != nil {
		lp.Stop()
	}
	p.changed()
}

// changed tells Config.OnChange that the plugin's Health may have changed.
func (p *Plugin) changed() {
	if p.cfg.OnChange != nil {
		p.cfg.OnChange()
	}
}

// Health is a plugin's state for status and logs.
type Health struct {
	// State is one of the State* values.
	State    string
	Running  bool
	Pid      int
	Restarts int
	LastErr  string
}

// A plugin's states.
const (
	StateIdle     = "idle"     // no process: one starts at the next call (none yet, or it exited for being idle)
	StateStarting = "starting" // a process is being launched
	StateRunning  = "running"
	StateExited   = "exited"  // its process ended; the next call starts another
	StateFailing  = "failing" // it keeps crashing: no relaunch before a back-off ends
	StateStopped  = "stopped"
)

// Health reports the plugin's state.
func (p *Plugin) Health() Health {
	p.mu.Lock()
	defer p.mu.Unlock()
	h := Health{Restarts: p.restarts}
	if p.lastErr != nil {
		h.LastErr = p.lastErr.Error()
	}
	switch {
	case p.stopped:
		h.State = StateStopped
	case p.live != nil && !p.live.Exited():
		h.State, h.Running, h.Pid = StateRunning, true, p.live.Pid()
	case p.launching != nil:
		h.State = StateStarting
	case time.Now().Before(p.retryAt):
		h.State = StateFailing
	case p.retired, !p.launched && p.lastErr == nil:
		h.State = StateIdle
	default:
		h.State = StateExited
	}
	return h
}

// Pid is the live plugin process's pid, or 0.
func (p *Plugin) Pid() int { return p.Health().Pid }

// SameDescription reports whether a and b describe the same plugin: equal
// as JSON, schemas compared as JSON values (not byte for byte: spacing and
// the order of keys aside), each tool's task read as its effective task (a
// description in-process leaves it empty where the wire gives
// "completion").
func SameDescription(a, b *sdk.Description) bool {
	ja, erra := json.Marshal(canonical(a))
	jb, errb := json.Marshal(canonical(b))
	return erra == nil && errb == nil && bytes.Equal(ja, jb)
}

// canonical is d with every tool canonical (canonicalTool).
func canonical(d *sdk.Description) *sdk.Description {
	if d == nil {
		return nil
	}
	c := *d
	c.Groups = make([]sdk.GroupSpec, len(d.Groups))
	for i, g := range d.Groups {
		g.Tools = append([]sdk.ToolSpec(nil), g.Tools...)
		for j, t := range g.Tools {
			g.Tools[j] = canonicalTool(t)
		}
		c.Groups[i] = g
	}
	return &c
}

// canonicalTool is t with its task made explicit and its schemas written
// as encoding/json writes their values.
func canonicalTool(t sdk.ToolSpec) sdk.ToolSpec {
	t.Task = t.EffectiveTask()
	t.InputSchema, t.OutputSchema = jsonValue(t.InputSchema), jsonValue(t.OutputSchema)
	return t
}

// jsonValue is raw written as encoding/json writes its value (keys sorted,
// no spacing); raw itself when it is not JSON.
func jsonValue(raw json.RawMessage) json.RawMessage {
	var v any
	if len(raw) == 0 || json.Unmarshal(raw, &v) != nil {
		return raw
	}
	out, err := json.Marshal(v)
	if err != nil {
		return raw
	}
	return out
}

// sameTool reports whether a and b describe the tool called name alike in
// what decides whether and how it is called: its group and the group's
// mode, its kind, annotations, task and input schema (not its title and
// description: words that change do not refuse a call); a tool in neither
// is alike.
func sameTool(a, b *sdk.Description, name string) bool {
	find := func(d *sdk.Description) []byte {
		for _, g := range d.Groups {
			for _, t := range g.Tools {
				if t.Name == name {
					t = canonicalTool(t)
					t.Title, t.Description = "", ""
					raw, _ := json.Marshal(struct {
						Group sdk.GroupSpec
						Tool  sdk.ToolSpec
					}{sdk.GroupSpec{Name: g.Name, Mode: g.Mode, LocalData: g.LocalData, ReplacedBy: g.ReplacedBy}, t})
					return raw
				}
			}
		}
		return nil
	}
	if a == nil || b == nil {
		return a == b
	}
	return bytes.Equal(find(a), find(b))
}

package hub

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"

	"github.com/ramabana/ramabana-mcp/host/internal/activity"
	"github.com/ramabana/ramabana-mcp/host/internal/catalog"
	"github.com/ramabana/ramabana-mcp/host/internal/gate"
	"github.com/ramabana/ramabana-mcp/host/internal/pii"
	"github.com/ramabana/ramabana-mcp/host/internal/telemetry"
	"github.com/ramabana/ramabana-mcp/sdk"
)

// ErrStopping is the cause of the cancellation of every call in flight
// when the host stops (CancelCalls).
var ErrStopping = errors.New("the server is stopping")

// CancelCalls cancels every call in flight and every later one, with
// ErrStopping as the cause: the plugins see their calls' contexts end and
// stop the work (a shell command is killed). The server calls it on
// SIGTERM, SIGINT or SIGHUP, before it closes the session (which waits for
// the calls) and stops the plugins. Safe to call more than once.
func (h *Host) CancelCalls() { h.cancelCalls(ErrStopping) }

// callContext binds a call's context to the host's life: it ends when ctx
// does or when CancelCalls is called. done releases it.
func (h *Host) callContext(ctx context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	stop := context.AfterFunc(h.calls, func() { cancel(context.Cause(h.calls)) })
	if h.calls.Err() != nil {
		// AfterFunc runs its function in a goroutine of its own: a call
		// made after CancelCalls must not start before that goroutine runs.
		cancel(context.Cause(h.calls))
	}
	return ctx, func() { stop(); cancel(nil) }
}

// newCallID is a call's id: unique per call (80 random bits), short enough
// to read in a log line. It names the call in the host's log, the activity
// feed and the plugin (sdk.Call.ID).
func newCallID() string { return rand.Text()[:16] }

// outcome names how a call ended, for its log line.
func outcome(res *sdk.Result, err error) string {
	switch {
	case errors.Is(err, context.Canceled):
		return "cancelled"
	case err != nil:
		return "failed: " + err.Error()
	case res == nil:
		return "no result"
	case res.IsError:
		return "tool error"
	default:
		return "ok"
	}
}

// AgentCall runs one of AgentTools through the same path as Call: schema
// validation, the activity feed (as ctx's caller), the PII filter.
func (h *Host) AgentCall(ctx context.Context, name string, args json.RawMessage, events sdk.Events) (*sdk.Result, error) {
	h.swapping.RLock()
	tools := h.AgentTools()
	h.swapping.RUnlock()
	for _, e := range tools {
		if e.Spec.Name == name {
			return h.call(ctx, e, args, events)
		}
	}
	return nil, h.UnknownTool(name, true)
}

// AddGroup serves an in-process group through the catalog, like a plugin:
// its calls take the same path. The MCP server's tools follow.
func (h *Host) AddGroup(name string, g sdk.Group) error {
	d, err := g.Describe(context.Background(), h.launchConfig().Host)
	if err != nil {
		return fmt.Errorf("describe %s: %w", name, err)
	}
	if err := h.catalog.Add(name, catalog.InProcess, d, g); err != nil {
		return err
	}
	h.toolsChanged()
	return nil
}

// Call runs a mounted tool: it validates the arguments against the tool's
// schema, then calls its source. A bad argument is a tool error result
// (the model can correct it); an unmounted tool is an *sdk.UnknownToolError
// saying why (UnknownTool); a plugin that dies mid-call is an error
// wrapping supervise.ErrPluginDied.
//
// What a call returns is the data as it is: it leaves the server through
// the outbound gate (Config.Gate), which filters it for --pii. The call
// path takes the gate's one decision that needs the tool, withholding a
// result under --pii refuse (gate.Gate.Withhold), and under --vault first
// turns the placeholders in a call's arguments back into values where that
// is safe (revealPlaceholders).
func (h *Host) Call(ctx context.Context, name string, args json.RawMessage, events sdk.Events) (*sdk.Result, error) {
	h.swapping.RLock() // a roots change under way ends first: its tools are all back
	e, ok := h.catalog.Get(name)
	h.swapping.RUnlock()
	if !ok || !h.callable(e, false) {
		return nil, h.UnknownTool(name, false)
	}
	return h.call(ctx, e, args, events)
}

// call is the one call path behind Call and AgentCall. The activity feed
// and the log get the arguments as the model wrote them (its placeholders
// turned back into values, as everything inside the server is) and the
// result as the model gets it but for the gate's filtering.
//
// With telemetry, the call is a span (the hop to its plugin or upstream
// server, whose context goes with the call) and a measurement of the tool
// metrics.
func (h *Host) call(ctx context.Context, e *catalog.Entry, args json.RawMessage, events sdk.Events) (res *sdk.Result, err error) {
	name := e.Spec.Name
	ctx, done := h.callContext(ctx)
	defer done()
	id := newCallID()
	if h.cfg.Telemetry != nil {
		var measure *telemetry.CallRecord
		ctx, measure = h.cfg.Telemetry.StartCall(ctx, h.telemetryCall(ctx, e, id))
		defer func() { measure.End(res != nil && res.IsError, err) }()
	}
	events = &callEvents{next: events, ctx: ctx, logger: h.logger, tool: name, id: id}
	rec := h.logOf(ctx).StartCall(id, name, e.Group, callerOf(ctx), h.cfg.Gate.InwardJSON(args))
	if h.cfg.Gate.Vault() != nil {
		revealed, err := h.revealPlaceholders(e, args)
		if err != nil {
			res := toolError("%v", err)
			rec.Finish(res, nil)
			h.logger.Debug("call", "call_id", id, "tool", name, "group", e.Group, "outcome", "arguments refused: placeholders")
			return res, nil
		}
		args = revealed
	}
	if e.From != catalog.InProcess && !e.KeepsDataLocal() {
		// Values inside the server (an ask turn's task) leave for this
		// tool as the vault's placeholders, as they would for a model.
		args = h.cfg.Gate.OutwardJSON(args)
	}
	args = e.DropNullOptionals(args)
	if err := e.Validate(args); err != nil {
		res := toolError("%v", err)
		rec.Finish(res, nil)
		h.logger.Debug("call", "call_id", id, "tool", name, "group", e.Group, "outcome", "invalid arguments")
		return res, nil
	}
	res, err = e.Call(ctx, &sdk.Call{Tool: name, Arguments: sdk.Arguments(args), ID: id}, events)
	if withheld := h.cfg.Gate.Withhold(name, withholdable(e), res); withheld != nil {
		res = withheld
	}
	if e.Upstream != nil && err != nil && ctx.Err() == nil {
		// The upstream server failed to answer: a JSON-RPC or transport
		// error, or its timeout.
		rec.FinishEvent(activity.EventUpstreamError, res, err)
		h.logger.Warn("upstream_error", "call_id", id, "tool", name, "mcp_server", e.Upstream.Server, "error", err)
		return nil, fmt.Errorf("%s (MCP server %q): %w", name, e.Upstream.Server, err)
	}
	rec.Finish(res, err)
	h.logger.Debug("call", "call_id", id, "tool", name, "group", e.Group, "outcome", outcome(res, err))
	if err != nil {
		return nil, fmt.Errorf("%s (group %q): %w", name, e.Group, err)
	}
	return res, nil
}

// withholdable says whether --pii refuse withholds the tool's result when
// it holds a finding: a read tool's, and anything an upstream server
// answers (most upstream tools are write tools only for want of a hint).
// A local write or act tool has already done its work, so its result
// (which quotes what it changed) is redacted, not withheld.
func withholdable(e *catalog.Entry) bool {
	return e.Spec.Kind == sdk.KindRead || e.Upstream != nil
}

// revealPlaceholders returns a call's arguments with the vault's
// placeholders turned back into values, for a tool that keeps data on this
// machine (catalog.Entry.KeepsDataLocal: a bundled group's read or write
// tool that says so of itself), and for the host's own tools, whose
// answers leave through the gate again (ask hands the task to its agent,
// whose model is shown the same placeholders). Any other tool (an act
// tool, which could send a value elsewhere: a command line can reach the
// network, a URL or a prompt leaves the machine; a third party's plugin or
// an upstream server, whatever it says of itself) given a placeholder, or
// a placeholder the vault never gave out, is an error to show the model.
func (h *Host) revealPlaceholders(e *catalog.Entry, args json.RawMessage) (json.RawMessage, error) {
	v := h.cfg.Gate.Vault()
	switch {
	case e.From == catalog.InProcess:
		return v.RevealKnownJSON(args)
	case e.KeepsDataLocal():
		return v.RevealJSON(args)
	}
	if refs := pii.FindPlaceholders(string(args)); len(refs) > 0 {
		return nil, fmt.Errorf("%s does not take vault placeholders such as %s:%d: it could send the values off this machine. Only %s turn placeholders back into values", e.Spec.Name, refs[0].Kind, refs[0].N, h.localDataGroups())
	}
	return args, nil
}

// localDataGroups names, for a message, the groups whose tools turn
// placeholders back into values.
func (h *Host) localDataGroups() string {
	var names []string
	for _, e := range h.catalog.All() {
		if e.KeepsDataLocal() && !slices.Contains(names, e.Group) {
			names = append(names, e.Group)
		}
	}
	slices.Sort(names)
	switch len(names) {
	case 0:
		return "the server's own file tools"
	case 1:
		return "the " + names[0] + " tools"
	}
	return "the " + strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1] + " tools (their read and write tools)"
}

// Gate is the outbound gate (nil: none).
func (h *Host) Gate() *gate.Gate { return h.cfg.Gate }

// callEvents is what a call's source reports to. Its progress goes on to
// the caller's events (an MCP client's that asked for it; an ask turn has
// none), and its log lines to the server's log, naming the call by the id
// the call path gave it: the one place a call's id is made and used.
type callEvents struct {
	next     sdk.Events // nil: nobody wants the progress
	ctx      context.Context
	logger   *slog.Logger
	tool, id string
}

var slogLevels = map[sdk.LogLevel]slog.Level{
	sdk.LevelDebug: slog.LevelDebug, sdk.LevelInfo: slog.LevelInfo, sdk.LevelWarning: slog.LevelWarn, sdk.LevelError: slog.LevelError,
}

func (e *callEvents) Progress(progress, total float64, message string) {
	if e.next != nil {
		e.next.Progress(progress, total, message)
	}
}

func (e *callEvents) Log(level sdk.LogLevel, message string) {
	e.logger.Log(e.ctx, slogLevels[level], message, "tool", e.tool, "call_id", e.id)
}

// WantsProgress says whether anybody wants the call's progress: an
// upstream server is asked for it only then (progressTo).
func (e *callEvents) WantsProgress() bool {
	if e.next == nil {
		return false
	}
	w, ok := e.next.(interface{ WantsProgress() bool })
	return !ok || w.WantsProgress()
}

// toolError is a result the host answers for a plugin, with a failure the
// client's model can act on: IsError, and the message as its one text block.
func toolError(format string, args ...any) *sdk.Result {
	return &sdk.Result{IsError: true, Content: []sdk.Content{{Text: fmt.Sprintf(format, args...)}}}
}

package host

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/ramabana/ramabana-mcp/activity"
	"github.com/ramabana/ramabana-mcp/catalog"
	"github.com/ramabana/ramabana-mcp/pii"
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
	for _, e := range h.AgentTools() {
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
	if err := h.catalog.Add(name, d, g); err != nil {
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
func (h *Host) Call(ctx context.Context, name string, args json.RawMessage, events sdk.Events) (*sdk.Result, error) {
	e, ok := h.catalog.Get(name)
	if !ok || !h.callable(e, false) {
		return nil, h.UnknownTool(name, false)
	}
	return h.call(ctx, e, args, events)
}

// call is the one call path behind Call and AgentCall.
func (h *Host) call(ctx context.Context, e *catalog.Entry, args json.RawMessage, events sdk.Events) (*sdk.Result, error) {
	name := e.Spec.Name
	ctx, done := h.callContext(ctx)
	defer done()
	id := newCallID()
	if ce, ok := events.(interface{ SetCallID(string) }); ok {
		ce.SetCallID(id) // its log lines name the call
	}
	rec := h.activity.StartCall(id, name, e.Group, callerOf(ctx), args)
	if err := e.Validate(args); err != nil {
		res := toolError("%v", err)
		rec.Finish(res, nil)
		h.logger.Debug("call", "call_id", id, "tool", name, "group", e.Group, "outcome", "invalid arguments")
		return res, nil
	}
	res, err := e.Call(ctx, &sdk.Call{Tool: name, Arguments: sdk.Arguments(args), ID: id}, events)
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
	if e.Spec.Kind == sdk.KindRead || e.Upstream != nil {
		// Read tools' results, and everything an upstream server answers:
		// most upstream tools are write tools only for want of a hint.
		res = pii.Filter{Mode: h.cfg.PII, Names: h.cfg.PIINames}.Result(name, res)
	}
	return res, nil
}

// toolError is a result the host answers for a plugin, with a failure the
// client's model can act on: IsError, and the message as its one text block.
func toolError(format string, args ...any) *sdk.Result {
	return &sdk.Result{IsError: true, Content: []sdk.Content{{Text: fmt.Sprintf(format, args...)}}}
}

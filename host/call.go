package host

import (
	"context"
	"crypto/rand"
	"errors"

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

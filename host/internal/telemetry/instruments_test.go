package telemetry_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"go.opentelemetry.io/otel/codes"

	"github.com/ramabana/ramabana-mcp/host/internal/telemetry"
	"github.com/ramabana/ramabana-mcp/host/internal/telemetry/spans"
)

// TestRequestJoinsTheClientsTrace: a traceparent in a call's _meta (the
// MCP semantic conventions' carrier) makes the request span its child.
func TestRequestJoinsTheClientsTrace(t *testing.T) {
	t.Parallel()
	rec := &spans.Recorder{}
	ins := telemetry.NewInstruments(spans.NewProvider(spans.DefaultConfig(), rec), nil)
	const traceID, spanID = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	_, req := ins.StartRequest(context.Background(), "tools/call", "echo", map[string]any{"traceparent": fmt.Sprintf("00-%s-%s-01", traceID, spanID)})
	req.End(nil, false)
	s := rec.Ended()[0]
	if s.SpanContext.TraceID().String() != traceID || s.Parent.SpanID().String() != spanID || !s.Parent.IsRemote() {
		t.Errorf("request span in trace %s under %v; want trace %s under the client's span %s", s.SpanContext.TraceID(), s.Parent, traceID, spanID)
	}
}

// TestErrorStatusSaysOnlyTheType: a failure's text may quote arguments or
// results; the span's status names its type alone.
func TestErrorStatusSaysOnlyTheType(t *testing.T) {
	t.Parallel()
	for name, c := range map[string]struct {
		toolError bool
		err       error
		code      codes.Code
		status    string
	}{
		"ok":         {code: codes.Unset},
		"tool error": {toolError: true, code: codes.Error, status: telemetry.ErrorTool},
		"failure":    {err: errors.New("cannot read /home/jane/secret.txt"), code: codes.Error, status: telemetry.ErrorFailed},
		"cancelled":  {err: fmt.Errorf("echo: %w", context.Canceled), code: codes.Unset},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			rec := &spans.Recorder{}
			ins := telemetry.NewInstruments(spans.NewProvider(spans.DefaultConfig(), rec), nil)
			_, call := ins.StartCall(context.Background(), telemetry.Call{Tool: "echo", Group: "echo", Plugin: "echo", Caller: "client", ID: "c1"})
			call.End(c.toolError, c.err)
			s := rec.Ended()[0]
			if s.Status.Code != c.code || s.Status.Description != c.status {
				t.Errorf("status %v, want %v %q", s.Status, c.code, c.status)
			}
		})
	}
}

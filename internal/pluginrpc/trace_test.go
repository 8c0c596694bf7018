package pluginrpc_test

import (
	"context"
	"testing"

	"go.opentelemetry.io/otel/trace"
	"google.golang.org/grpc/metadata"

	"github.com/ramabana/ramabana-mcp/internal/pluginrpc"
)

// TestTraceContextCrossesTheMetadata: what the host injects, the plugin
// extracts as the remote parent; without a span nothing is sent.
func TestTraceContextCrossesTheMetadata(t *testing.T) {
	t.Parallel()
	sc := trace.NewSpanContext(trace.SpanContextConfig{
		TraceID:    trace.TraceID{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16},
		SpanID:     trace.SpanID{1, 2, 3, 4, 5, 6, 7, 8},
		TraceFlags: trace.FlagsSampled,
	})
	out := pluginrpc.InjectTrace(trace.ContextWithSpanContext(context.Background(), sc))
	md, _ := metadata.FromOutgoingContext(out)
	if got := md.Get("traceparent"); len(got) != 1 || got[0] != "00-0102030405060708090a0b0c0d0e0f10-0102030405060708-01" {
		t.Fatalf("traceparent sent: %q", got)
	}
	got := trace.SpanContextFromContext(pluginrpc.ExtractTrace(metadata.NewIncomingContext(context.Background(), md)))
	if !got.IsRemote() || got.TraceID() != sc.TraceID() || got.SpanID() != sc.SpanID() || !got.IsSampled() {
		t.Errorf("extracted %+v, want %+v as a remote parent", got, sc)
	}

	ctx := context.Background()
	if pluginrpc.InjectTrace(ctx) != ctx {
		t.Error("a context without a span got metadata")
	}
	if pluginrpc.ExtractTrace(ctx) != ctx {
		t.Error("a call without metadata got a trace context")
	}
}

package upstream

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/trace"
)

// TestCallCarriesTheTraceContext: a call made within a span (the host's
// span of the call, with telemetry on) reaches the upstream server with
// that span as W3C traceparent in its _meta, next to the progress token;
// without a span the _meta holds no trace context.
func TestCallCarriesTheTraceContext(t *testing.T) {
	t.Parallel()
	srv := mcp.NewServer(&mcp.Implementation{Name: "meta", Version: "0"}, nil)
	srv.AddTool(&mcp.Tool{Name: "meta", Description: "Returns the request's _meta.", InputSchema: map[string]any{"type": "object"}},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			b, err := json.Marshal(req.Params.Meta)
			if err != nil {
				return nil, err
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}}, nil
		})
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	t.Cleanup(ts.Close)
	c := connect(t, Server{ID: "traced", Type: TypeHTTP, URL: ts.URL}, ConnectOptions{})

	meta := func(ctx context.Context, progress ProgressFunc) map[string]any {
		t.Helper()
		res, err := c.Call(ctx, "meta", nil, progress)
		if err != nil || res.IsError {
			t.Fatalf("meta = %+v, %v", res, err)
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(res.Content[0].Text), &m); err != nil {
			t.Fatalf("meta answered %q: %v", res.Content[0].Text, err)
		}
		return m
	}
	span := trace.NewSpanContext(trace.SpanContextConfig{
		TraceID:    trace.TraceID{0x4b, 0xf9, 0x2f, 0x35, 0x77, 0xb3, 0x4d, 0xa6, 0xa3, 0xce, 0x92, 0x9d, 0x0e, 0x0e, 0x47, 0x36},
		SpanID:     trace.SpanID{0x00, 0xf0, 0x67, 0xaa, 0x0b, 0xa9, 0x02, 0xb7},
		TraceFlags: trace.FlagsSampled,
	})
	got := meta(trace.ContextWithSpanContext(t.Context(), span), func(float64, float64, string) {})
	if want := "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"; got["traceparent"] != want {
		t.Errorf("_meta.traceparent = %v, want %s (the _meta: %v)", got["traceparent"], want, got)
	}
	if got["progressToken"] == nil {
		t.Errorf("the progress token is gone from the _meta: %v", got)
	}
	if got := meta(t.Context(), nil); got["traceparent"] != nil {
		t.Errorf("without a span, _meta.traceparent = %v", got["traceparent"])
	}
}

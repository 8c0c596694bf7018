package pluginrpc

import (
	"context"

	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/grpc/metadata"
)

// traceContext is how a call's trace context travels to the plugin: W3C
// traceparent (and tracestate) in the call's gRPC metadata. A plugin in
// another language reads the same keys.
var traceContext = propagation.TraceContext{}

// InjectTrace adds ctx's span context, when it has one, to the metadata
// of the gRPC calls made with the returned context. Without a span (no
// telemetry) it returns ctx as it is.
func InjectTrace(ctx context.Context) context.Context {
	if !trace.SpanContextFromContext(ctx).IsValid() {
		return ctx
	}
	c := propagation.MapCarrier{}
	traceContext.Inject(ctx, c)
	kv := make([]string, 0, 2*len(c))
	for k, v := range c {
		kv = append(kv, k, v)
	}
	return metadata.AppendToOutgoingContext(ctx, kv...)
}

// ExtractTrace returns ctx carrying, as its remote parent, the span context
// the host put in the incoming call's metadata; ctx as it is when there is
// none.
func ExtractTrace(ctx context.Context) context.Context {
	md, ok := metadata.FromIncomingContext(ctx)
	if !ok || len(md.Get("traceparent")) == 0 {
		return ctx
	}
	return traceContext.Extract(ctx, mdCarrier(md))
}

// mdCarrier reads gRPC metadata as a propagation.TextMapCarrier.
type mdCarrier metadata.MD

func (m mdCarrier) Get(key string) string {
	if v := metadata.MD(m).Get(key); len(v) > 0 {
		return v[0]
	}
	return ""
}

func (m mdCarrier) Set(key, value string) { metadata.MD(m).Set(key, value) }

func (m mdCarrier) Keys() []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	return keys
}

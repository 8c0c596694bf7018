package telemetry

import (
	"context"
	"errors"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/ramabana/ramabana-mcp/host/internal/telemetry/metrics"
)

// scope is the instrumentation scope of every span and metric.
const scope = "github.com/ramabana/ramabana-mcp"

// Attribute keys. The MCP and gen_ai ones are OpenTelemetry's semantic
// conventions for MCP; the ramabana ones are this server's.
const (
	keyMethod    = attribute.Key("mcp.method.name")
	keyOperation = attribute.Key("gen_ai.operation.name")
	keyToolName  = attribute.Key("gen_ai.tool.name")
	keyErrorType = attribute.Key("error.type")
	keyTool      = attribute.Key("tool")
	keyGroup     = attribute.Key("group")
	keyCaller    = attribute.Key("caller")
	keyPlugin    = attribute.Key("plugin")
	keyUpstream  = attribute.Key("upstream")
	keyCallID    = attribute.Key("ramabana.call.id")
	keyHop       = attribute.Key("ramabana.hop")
)

// Error types of the error.type attribute.
const (
	ErrorTool   = "tool_error" // a result with isError: the model can act on it
	ErrorFailed = "failed"     // no result: the plugin died, the upstream server failed, a timeout
)

// durationBuckets are the latency histogram's bounds in seconds: from a
// trivial plugin call (well under a millisecond) to a long shell command.
var durationBuckets = []float64{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300}

// Instruments are the host's spans and metrics. A nil *Instruments records
// nothing: every method is safe on it and returns at once. It is safe for
// concurrent use.
type Instruments struct {
	tracer  trace.Tracer
	metrics *metrics.Registry

	toolCalls, toolErrors         *metrics.Counter
	toolDuration                  *metrics.Histogram
	upstreamCalls, upstreamErrors *metrics.Counter
	pluginUp, upstreamUp          *metrics.Observable
	pluginRestarts                *metrics.Observable
}

// NewInstruments makes the instruments over tp's tracer (nil: no spans)
// and in reg (nil: no metrics). Tests pass a spans.Recorder's provider and
// a registry they collect; Setup its exporters'.
func NewInstruments(tp trace.TracerProvider, reg *metrics.Registry) *Instruments {
	if tp == nil {
		tp = noop.NewTracerProvider()
	}
	return &Instruments{
		tracer:  tp.Tracer(scope),
		metrics: reg,

		toolCalls:      reg.Counter("ramabana.tool.calls", "{call}", "Tool calls, by tool, group and caller."),
		toolErrors:     reg.Counter("ramabana.tool.errors", "{call}", "Tool calls that ended in a tool error or a failure."),
		toolDuration:   reg.Histogram("ramabana.tool.duration", "s", "How long tool calls take, in the host.", durationBuckets),
		upstreamCalls:  reg.Counter("ramabana.upstream.calls", "{call}", "Tool calls sent to upstream MCP servers."),
		upstreamErrors: reg.Counter("ramabana.upstream.errors", "{call}", "Upstream tool calls that ended in a tool error or a failure."),
		pluginUp:       reg.ObservableGauge("ramabana.plugin.up", "1", "1 when the plugin's process is running, else 0."),
		pluginRestarts: reg.ObservableCounter("ramabana.plugin.restarts", "{restart}", "Relaunches of the plugin after its process died."),
		upstreamUp:     reg.ObservableGauge("ramabana.upstream.up", "1", "1 when the upstream MCP server is connected, else 0."),
	}
}

// A Request is the span of one MCP request.
type Request struct {
	span trace.Span
}

// StartRequest starts the span of an MCP request: its method, and for
// tools/call the tool's name. meta is the request's _meta: a traceparent
// there (as the MCP semantic conventions carry it) makes the span a child
// of the client's.
func (i *Instruments) StartRequest(ctx context.Context, method, tool string, meta map[string]any) (context.Context, *Request) {
	if i == nil {
		return ctx, nil
	}
	if _, ok := meta["traceparent"]; ok {
		ctx = propagation.TraceContext{}.Extract(ctx, metaCarrier(meta))
	}
	name := method
	attrs := []attribute.KeyValue{keyMethod.String(method)}
	if tool != "" {
		name += " " + tool
		attrs = append(attrs, keyOperation.String("execute_tool"), keyToolName.String(tool))
	}
	ctx, span := i.tracer.Start(ctx, name, trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(attrs...))
	return ctx, &Request{span: span}
}

// End ends the request's span: err is a protocol error, toolError a
// tools/call result with isError.
func (r *Request) End(err error, toolError bool) {
	if r == nil {
		return
	}
	endSpan(r.span, errorType(toolError, err))
}

// Call names a tool call for its span and metrics.
type Call struct {
	Tool, Group string
	// Plugin is the plugin process that serves the tool; Upstream the
	// upstream server's id. Both empty: an in-process tool.
	Plugin, Upstream string
	// Caller is who called: client, agent or server.
	Caller string
	// ID is the host's call id.
	ID string
}

// A CallRecord is a tool call being measured.
type CallRecord struct {
	i     *Instruments
	call  Call
	span  trace.Span
	start time.Time
}

// StartCall starts a tool call's span, a child of ctx's (the MCP request's,
// or the ask tool's call for the agent's calls), and its clock. The span is
// the hop to the plugin or upstream server: its context goes to the plugin
// with the call.
func (i *Instruments) StartCall(ctx context.Context, c Call) (context.Context, *CallRecord) {
	if i == nil {
		return ctx, nil
	}
	kind, hop := trace.SpanKindInternal, "in-process"
	attrs := []attribute.KeyValue{
		keyOperation.String("execute_tool"), keyToolName.String(c.Tool),
		keyGroup.String(c.Group), keyCaller.String(c.Caller), keyCallID.String(c.ID),
	}
	switch {
	case c.Upstream != "":
		kind, hop = trace.SpanKindClient, "upstream"
		attrs = append(attrs, keyUpstream.String(c.Upstream))
	case c.Plugin != "":
		kind, hop = trace.SpanKindClient, "plugin"
		attrs = append(attrs, keyPlugin.String(c.Plugin))
	}
	attrs = append(attrs, keyHop.String(hop))
	ctx, span := i.tracer.Start(ctx, "execute_tool "+c.Tool, trace.WithSpanKind(kind), trace.WithAttributes(attrs...))
	return ctx, &CallRecord{i: i, call: c, span: span, start: time.Now()}
}

// End ends the call's span and records its metrics: toolError is a result
// with isError, err a failure.
func (r *CallRecord) End(toolError bool, err error) {
	if r == nil {
		return
	}
	elapsed := time.Since(r.start).Seconds()
	et := errorType(toolError, err)
	endSpan(r.span, et)
	tool, group, caller := keyTool.String(r.call.Tool), keyGroup.String(r.call.Group), keyCaller.String(r.call.Caller)
	r.i.toolCalls.Add(1, tool, group, caller)
	// In the span's context, a duration can be kept as an exemplar naming
	// the call's trace.
	r.i.toolDuration.Record(trace.ContextWithSpan(context.Background(), r.span), elapsed, tool, group, caller)
	if et != "" {
		r.i.toolErrors.Add(1, tool, group, caller, keyErrorType.String(et))
	}
	if r.call.Upstream != "" {
		r.i.upstreamCalls.Add(1, keyUpstream.String(r.call.Upstream))
		if et != "" {
			r.i.upstreamErrors.Add(1, keyUpstream.String(r.call.Upstream), keyErrorType.String(et))
		}
	}
}

// errorType classifies how a call or request ended: "" for a success or a
// cancellation.
func errorType(toolError bool, err error) string {
	switch {
	case errors.Is(err, context.Canceled):
		return ""
	case err != nil:
		return ErrorFailed
	case toolError:
		return ErrorTool
	}
	return ""
}

// endSpan ends span with an error status when et names one. The status
// says only the error's type: an error's text may quote arguments or
// results.
func endSpan(span trace.Span, et string) {
	if et != "" {
		span.SetAttributes(keyErrorType.String(et))
		span.SetStatus(codes.Error, et)
	}
	span.End()
}

// PluginState is what the plugin gauges observe of one plugin.
type PluginState struct {
	Name     string
	Running  bool
	Restarts int
}

// UpstreamState is what the upstream gauge observes of one eager upstream
// server.
type UpstreamState struct {
	ID    string
	Ready bool
}

// Observe has the plugin and upstream gauges read the states when metrics
// are collected (an export, a scrape); either function may be nil. stop
// unregisters them.
func (i *Instruments) Observe(plugins func() []PluginState, upstreams func() []UpstreamState) (stop func()) {
	if i == nil {
		return func() {}
	}
	return i.metrics.Observe(func(o *metrics.Observer) {
		if plugins != nil {
			for _, p := range plugins() {
				o.Observe(i.pluginUp, boolInt(p.Running), keyPlugin.String(p.Name))
				o.Observe(i.pluginRestarts, int64(p.Restarts), keyPlugin.String(p.Name))
			}
		}
		if upstreams != nil {
			for _, u := range upstreams() {
				o.Observe(i.upstreamUp, boolInt(u.Ready), keyUpstream.String(u.ID))
			}
		}
	})
}

func boolInt(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// metaCarrier reads a trace context from an MCP request's _meta.
type metaCarrier map[string]any

func (m metaCarrier) Get(key string) string {
	s, _ := m[key].(string)
	return s
}

func (m metaCarrier) Set(key, value string) { m[key] = value }

func (m metaCarrier) Keys() []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	return keys
}

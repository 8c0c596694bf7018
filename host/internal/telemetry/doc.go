// Package telemetry sets up the host's OpenTelemetry signals and holds its
// instruments: the spans and metrics of MCP requests, tool calls, plugins
// and upstream servers.
//
// Contract:
//
//   - Off unless asked: Setup with no exporter asked for (no --otel, no
//     --metrics, no OTEL_EXPORTER_OTLP_*ENDPOINT in the environment) returns
//     a Telemetry whose Instruments are nil. A nil *Instruments records
//     nothing, starts no goroutine and costs its callers a nil check.
//   - Traces go out over OTLP only; metrics over OTLP, and with Prometheus
//     on an http.Handler (Telemetry.Metrics) that the HTTP listener serves
//     at /metrics, in the text format this package writes itself
//     (prometheus.go, process.go). Spans are recorded by package spans
//     (behind the OpenTelemetry trace API), metrics by package metrics,
//     and both exported by package otlp: no OpenTelemetry SDK is linked.
//     Setup reads the standard variables once (OTEL_EXPORTER_OTLP_*, the
//     sampler, batch, span limit and metric export ones, the resource's):
//     a value it cannot use is Setup's error.
//   - The resource: service.name (ramabana-mcp, or OTEL_SERVICE_NAME),
//     service.version, telemetry.sdk.name (ramabana-mcp), .language (go)
//     and .version, and what OTEL_RESOURCE_ATTRIBUTES adds or overrides.
//   - Spans and metric attributes name methods, tools, groups, plugins,
//     upstream server ids and outcomes. They never hold a tool's arguments
//     or results, nor an error's text (which may quote either): these may
//     carry personal data that --pii keeps from leaving.
//   - The trace context reaches plugins in the gRPC metadata of each call
//     (W3C traceparent; internal/pluginrpc), so a Go plugin's own spans
//     join the host's trace. Package sdk reads it with the OpenTelemetry
//     API alone: plugins link no SDK or exporter.
//
// The instruments, by name (Prometheus spells them with _ for ., and adds
// _total to counters and _seconds to durations):
//
//	ramabana.tool.calls        counter    tool, group, caller
//	ramabana.tool.errors       counter    tool, group, caller, error.type (tool_error or failed)
//	ramabana.tool.duration     histogram  tool, group, caller (seconds)
//	ramabana.upstream.calls    counter    upstream
//	ramabana.upstream.errors   counter    upstream, error.type
//	ramabana.upstream.up       gauge      upstream (1 connected, 0 not)
//	ramabana.plugin.up         gauge      plugin (1 running, 0 not)
//	ramabana.plugin.restarts   counter    plugin
//
// A cancelled call counts as a call, not as an error.
package telemetry

// Package spans records the host's spans behind the OpenTelemetry trace
// API and hands them, in batches, to an exporter. It stands in for the
// OpenTelemetry SDK's tracer provider, which with its metric half and the
// semantic-convention packages they bring took a twelfth of the server's
// cold build, for the few things the host asks of it.
//
// Contract:
//
//   - A Provider is a trace.TracerProvider. Its spans are children of the
//     span in the context they start from, a remote one (a traceparent a
//     client or the gRPC metadata carried) included, and keep its trace
//     state; without one (or with trace.WithNewRoot) they start a trace.
//     Trace and span ids are random and never zero.
//   - The Sampler decides at a span's start whether it is recorded; a span
//     not sampled still has a valid span context (so the trace goes on to
//     plugins with its sampled flag off) but records nothing. ConfigFromEnv
//     reads OTEL_TRACES_SAMPLER (always_on, always_off, traceidratio,
//     parentbased_always_on, the default, parentbased_always_off,
//     parentbased_traceidratio) and OTEL_TRACES_SAMPLER_ARG (the ratio, 1
//     by default), with the OpenTelemetry SDK's decisions: a ratio keeps a
//     trace when the last 8 bytes of its id, shifted right by one, are
//     below ratio×2⁶³.
//   - Limits (OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT or OTEL_ATTRIBUTE_COUNT_LIMIT,
//     128 by default; OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT or
//     OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT, in characters, none by default;
//     OTEL_SPAN_EVENT_COUNT_LIMIT, OTEL_SPAN_LINK_COUNT_LIMIT and
//     OTEL_{EVENT,LINK}_ATTRIBUTE_COUNT_LIMIT, 128; a negative limit is
//     none) bound what a span keeps; what they leave out is counted as
//     dropped: attributes beyond the limit, the oldest events and links.
//     A key set twice keeps its last value.
//   - A Batcher queues ended spans (OTEL_BSP_MAX_QUEUE_SIZE, 2048) and
//     exports them in batches of up to OTEL_BSP_MAX_EXPORT_BATCH_SIZE (512)
//     at least every OTEL_BSP_SCHEDULE_DELAY (5000 ms), each export bounded
//     by OTEL_BSP_EXPORT_TIMEOUT (30000 ms). A span ended when the queue is
//     full is dropped, and the drops are reported with the next export.
//     Shutdown exports what is queued, then shuts the exporter down; spans
//     ended after it are not recorded.
//   - A variable set to a value it cannot use is ConfigFromEnv's error,
//     naming the variable: not a silent default.
package spans

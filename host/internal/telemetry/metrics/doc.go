// Package metrics holds the host's metric instruments and aggregates what
// they measure for the readers that export it (Prometheus' scrape, OTLP's
// periodic export). It stands in for the OpenTelemetry metric SDK, whose
// generic aggregation the host paid for in its build and start for four
// counters, a histogram and three observed values.
//
// Contract:
//
//   - A Registry is made with its readers (NewRegistry), each with its
//     temporality per instrument kind and its histogram aggregation; every
//     instrument aggregates for each reader apart, so Prometheus' cumulative
//     view and an OTLP collector's delta one both hold.
//   - Counters and histograms are measured as they are called; observed
//     gauges and counters by the callbacks registered with Observe, run once
//     per collection. A counter's or histogram's series is one set of
//     attributes; past 2,000 series per instrument and reader (the
//     OpenTelemetry SDK's default limit), measurements of a new set go to
//     the series {otel.metric.overflow=true}, so a hostile number of tools
//     cannot grow memory without bound.
//   - Cumulative series start when first measured and keep adding; delta
//     ones report what came since the reader's last collection and start
//     there, and a series with nothing new is not reported. An observed
//     counter of delta temporality reports the change since the last
//     observation.
//   - Histograms are explicit-bucket (the instrument's bounds) or, for a
//     reader that asks, base-2 exponential (at most 160 buckets a side,
//     scale 20 at most), each with count, sum, min and max.
//   - Exemplars, on histograms only: with the filter trace_based (the
//     default, OTEL_METRICS_EXEMPLAR_FILTER) a measurement made in a sampled
//     span's context is kept as its bucket's exemplar (the last one wins,
//     one a bucket; one a point for an exponential histogram) with the
//     span's trace and span ids; always_on keeps every measurement's,
//     always_off none. A collection hands them on and clears them.
//   - Everything is safe for concurrent use.
package metrics

package metrics

import (
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
)

// Kind is what kind of instrument measured a metric.
type Kind int

// The instrument kinds.
const (
	KindCounter           Kind = iota + 1 // Counter: a monotonic sum
	KindHistogram                         // Histogram
	KindObservableCounter                 // an observed monotonic sum
	KindObservableGauge                   // an observed value
)

// Temporality is whether a sum or histogram counts from its series' start
// (cumulative) or from the last collection (delta).
type Temporality int

// The temporalities.
const (
	Cumulative Temporality = iota + 1
	Delta
)

// Scope is the instrumentation scope of a registry's metrics.
type Scope struct {
	Name, Version, SchemaURL string
}

// Collection is what one collection gathered for a reader.
type Collection struct {
	Scope   Scope
	Metrics []Metric // in the order the instruments were made; none without points
}

// Metric is one instrument's series. Exactly one of Points, Histograms and
// ExpHistograms is set, by Kind and the reader's histogram aggregation.
type Metric struct {
	Name, Description, Unit string
	Kind                    Kind
	Temporality             Temporality // of sums and histograms; 0 for gauges

	Points        []Point // counters and gauges
	Histograms    []HistogramPoint
	ExpHistograms []ExpHistogramPoint
}

// Point is a sum's or gauge's value for one set of attributes.
type Point struct {
	Attributes  attribute.Set
	Start, Time time.Time
	Value       int64
}

// HistogramPoint is an explicit-bucket histogram of one set of attributes:
// BucketCounts[i] counts the measurements in (Bounds[i-1], Bounds[i]], the
// last one those above every bound.
type HistogramPoint struct {
	Attributes    attribute.Set
	Start, Time   time.Time
	Count         uint64
	Sum, Min, Max float64
	Bounds        []float64
	BucketCounts  []uint64
	Exemplars     []Exemplar
}

// ExpHistogramPoint is a base-2 exponential histogram of one set of
// attributes.
type ExpHistogramPoint struct {
	Attributes         attribute.Set
	Start, Time        time.Time
	Count              uint64
	Sum, Min, Max      float64
	Scale              int32
	ZeroCount          uint64
	Positive, Negative ExpBuckets
	Exemplars          []Exemplar
}

// Exemplar is one measurement kept with a histogram's point, with the span
// it was made in (zero ids: none).
type Exemplar struct {
	Time    time.Time
	Value   float64
	TraceID trace.TraceID
	SpanID  trace.SpanID
}

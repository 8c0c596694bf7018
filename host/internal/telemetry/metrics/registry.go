package metrics

import (
	"context"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
)

// seriesLimit is how many series an instrument keeps per reader, the
// overflow series included: the OpenTelemetry SDK's default.
const seriesLimit = 2000

// overflow is the series measurements beyond seriesLimit go to.
var overflow = attribute.NewSet(attribute.Bool("otel.metric.overflow", true))

// The exponential histograms' size, as the OpenTelemetry SDK's defaults.
const (
	expSize  = 160
	expScale = 20
)

// ExemplarFilter says which histogram measurements are kept as exemplars.
type ExemplarFilter int

// The exemplar filters, as OTEL_METRICS_EXEMPLAR_FILTER names them.
const (
	TraceBased ExemplarFilter = iota // those made in a sampled span's context
	AlwaysOn                         // all
	AlwaysOff                        // none
)

// ReaderConfig says how one reader wants the metrics.
type ReaderConfig struct {
	// Temporality is the temporality of an instrument kind's sums and
	// histograms; nil makes them all cumulative.
	Temporality func(Kind) Temporality
	// Exponential makes histograms base-2 exponential ones.
	Exponential bool
}

// Registry holds instruments and aggregates their measurements for its
// readers. A nil *Registry makes nil instruments, which measure nothing.
type Registry struct {
	scope   Scope
	filter  ExemplarFilter
	readers []ReaderConfig

	mu          sync.Mutex
	instruments []*instrument
	callbacks   map[int]func(*Observer)
	nextID      int
	last        []time.Time // each reader's last collection, or the registry's start
}

// NewRegistry makes a registry of the given scope for its readers, which
// Collect knows by their index.
func NewRegistry(scope Scope, filter ExemplarFilter, readers ...ReaderConfig) *Registry {
	now := time.Now()
	r := &Registry{scope: scope, filter: filter, readers: readers, callbacks: map[int]func(*Observer){}}
	for range readers {
		r.last = append(r.last, now)
	}
	return r
}

// instrument is one instrument, with a stream of series per reader.
type instrument struct {
	name, unit, description string
	kind                    Kind
	bounds                  []float64 // explicit histograms'
	streams                 []*stream
}

type stream struct {
	temporality Temporality
	exponential bool

	mu       sync.Mutex
	series   map[attribute.Distinct]*series
	observed map[attribute.Distinct]observation // an observed instrument's series at the last collection
}

// observation is what an observed series was at a collection.
type observation struct {
	start time.Time
	value int64
}

// series is one set of attributes' aggregate.
type series struct {
	attrs attribute.Set
	start time.Time

	value         int64 // sums
	count         uint64
	sum, min, max float64
	buckets       []uint64      // explicit histograms
	exp           *expHistogram // exponential ones
	exemplars     []Exemplar    // a bucket's each (explicit), or one; zero Time: none
}

func (r *Registry) add(name, unit, description string, kind Kind, bounds []float64) *instrument {
	in := &instrument{name: name, unit: unit, description: description, kind: kind, bounds: slices.Clone(bounds)}
	for _, rc := range r.readers {
		t := Cumulative
		if rc.Temporality != nil && kind != KindObservableGauge {
			t = rc.Temporality(kind)
		}
		in.streams = append(in.streams, &stream{
			temporality: t, exponential: rc.Exponential && kind == KindHistogram,
			series: map[attribute.Distinct]*series{},
		})
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.instruments = append(r.instruments, in)
	return in
}

// seriesOf is attrs' series, made when first measured; past the limit the
// overflow series. s.mu is held.
func (s *stream) seriesOf(attrs attribute.Set, in *instrument, now time.Time) *series {
	k := attrs.Equivalent()
	if se, ok := s.series[k]; ok {
		return se
	}
	if len(s.series) >= seriesLimit-1 {
		attrs, k = overflow, overflow.Equivalent()
		if se, ok := s.series[k]; ok {
			return se
		}
	}
	se := &series{attrs: attrs, start: now, min: math.Inf(1), max: math.Inf(-1)}
	if in.kind == KindHistogram {
		if s.exponential {
			se.exp = newExpHistogram(expSize, expScale)
			se.exemplars = make([]Exemplar, 1)
		} else {
			se.buckets = make([]uint64, len(in.bounds)+1)
			se.exemplars = make([]Exemplar, len(in.bounds)+1)
		}
	}
	s.series[k] = se
	return se
}

// Counter is a monotonic sum of int64 measurements.
type Counter struct{ in *instrument }

// Counter makes a counter.
func (r *Registry) Counter(name, unit, description string) *Counter {
	if r == nil {
		return nil
	}
	return &Counter{r.add(name, unit, description, KindCounter, nil)}
}

// Add adds n (a negative n is ignored: a counter only grows) to the
// series of attrs.
func (c *Counter) Add(n int64, attrs ...attribute.KeyValue) {
	if c == nil || n < 0 {
		return
	}
	set, now := attribute.NewSet(attrs...), time.Now()
	for _, s := range c.in.streams {
		s.mu.Lock()
		s.seriesOf(set, c.in, now).value += n
		s.mu.Unlock()
	}
}

// Histogram is a distribution of float64 measurements.
type Histogram struct {
	in     *instrument
	filter ExemplarFilter
}

// Histogram makes a histogram; bounds are its explicit buckets' upper
// bounds, ascending.
func (r *Registry) Histogram(name, unit, description string, bounds []float64) *Histogram {
	if r == nil {
		return nil
	}
	return &Histogram{in: r.add(name, unit, description, KindHistogram, bounds), filter: r.filter}
}

// Record adds v to the series of attrs; ctx's span, when the filter
// takes it, goes with v as an exemplar. NaN and infinities are ignored.
func (h *Histogram) Record(ctx context.Context, v float64, attrs ...attribute.KeyValue) {
	if h == nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return
	}
	set, now := attribute.NewSet(attrs...), time.Now()
	sc := trace.SpanContextFromContext(ctx)
	keep := h.filter == AlwaysOn || h.filter == TraceBased && sc.IsSampled()
	for _, s := range h.in.streams {
		s.mu.Lock()
		se := s.seriesOf(set, h.in, now)
		se.count++
		se.sum += v
		se.min, se.max = min(se.min, v), max(se.max, v)
		i := 0
		if se.exp != nil {
			se.exp.record(v)
		} else {
			i = sort.SearchFloat64s(h.in.bounds, v) // the first bound ≥ v
			se.buckets[i]++
		}
		if keep {
			se.exemplars[i] = Exemplar{Time: now, Value: v, TraceID: sc.TraceID(), SpanID: sc.SpanID()}
		}
		s.mu.Unlock()
	}
}

// Observable is an observed counter or gauge, read by an Observe callback.
type Observable struct{ in *instrument }

// ObservableCounter makes an observed monotonic sum.
func (r *Registry) ObservableCounter(name, unit, description string) *Observable {
	if r == nil {
		return nil
	}
	return &Observable{r.add(name, unit, description, KindObservableCounter, nil)}
}

// ObservableGauge makes an observed value.
func (r *Registry) ObservableGauge(name, unit, description string) *Observable {
	if r == nil {
		return nil
	}
	return &Observable{r.add(name, unit, description, KindObservableGauge, nil)}
}

// Observer takes the values a callback observes in one collection.
type Observer struct {
	values map[*instrument]map[attribute.Distinct]Point
}

// Observe records v for o's series of attrs; the last value of a series
// in one collection wins.
func (ob *Observer) Observe(o *Observable, v int64, attrs ...attribute.KeyValue) {
	if o == nil {
		return
	}
	set := attribute.NewSet(attrs...)
	m := ob.values[o.in]
	if m == nil {
		m = map[attribute.Distinct]Point{}
		ob.values[o.in] = m
	}
	m[set.Equivalent()] = Point{Attributes: set, Value: v}
}

// Observe has f observe values at each collection, until unregister is
// called.
func (r *Registry) Observe(f func(*Observer)) (unregister func()) {
	if r == nil {
		return func() {}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	id := r.nextID
	r.nextID++
	r.callbacks[id] = f
	return func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		delete(r.callbacks, id)
	}
}

// Collect gathers reader's metrics: it runs the callbacks, and for a delta
// reader starts each sum and histogram afresh.
func (r *Registry) Collect(reader int) Collection {
	if r == nil {
		return Collection{}
	}
	now := time.Now()
	r.mu.Lock()
	instruments := slices.Clone(r.instruments)
	ids := make([]int, 0, len(r.callbacks))
	for id := range r.callbacks {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	callbacks := make([]func(*Observer), 0, len(ids))
	for _, id := range ids {
		callbacks = append(callbacks, r.callbacks[id])
	}
	last := r.last[reader]
	r.last[reader] = now
	r.mu.Unlock()

	ob := &Observer{values: map[*instrument]map[attribute.Distinct]Point{}}
	for _, f := range callbacks {
		f(ob)
	}
	c := Collection{Scope: r.scope}
	for _, in := range instruments {
		m := in.streams[reader].collect(in, ob.values[in], last, now)
		if len(m.Points)+len(m.Histograms)+len(m.ExpHistograms) > 0 {
			c.Metrics = append(c.Metrics, m)
		}
	}
	return c
}

// collect is the stream's metric at now; last is the reader's previous
// collection, observed what the callbacks observed of the instrument.
func (s *stream) collect(in *instrument, observed map[attribute.Distinct]Point, last, now time.Time) Metric {
	m := Metric{Name: in.name, Description: in.description, Unit: in.unit, Kind: in.kind}
	if in.kind != KindObservableGauge {
		m.Temporality = s.temporality
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	start := func(se *series) time.Time {
		if s.temporality == Delta {
			return last
		}
		return se.start
	}
	switch in.kind {
	case KindCounter:
		for _, se := range s.series {
			m.Points = append(m.Points, Point{Attributes: se.attrs, Start: start(se), Time: now, Value: se.value})
		}
	case KindHistogram:
		for _, se := range s.series {
			if se.exp != nil {
				p := ExpHistogramPoint{Attributes: se.attrs, Start: start(se), Time: now, Count: se.count, Sum: se.sum, Min: se.min, Max: se.max, Exemplars: takeExemplars(se.exemplars)}
				p.Scale, p.ZeroCount, p.Positive, p.Negative = se.exp.snapshot()
				m.ExpHistograms = append(m.ExpHistograms, p)
				continue
			}
			m.Histograms = append(m.Histograms, HistogramPoint{
				Attributes: se.attrs, Start: start(se), Time: now, Count: se.count, Sum: se.sum, Min: se.min, Max: se.max,
				Bounds: slices.Clone(in.bounds), BucketCounts: slices.Clone(se.buckets), Exemplars: takeExemplars(se.exemplars),
			})
		}
	case KindObservableGauge, KindObservableCounter:
		// A cumulative series starts when first observed (from the
		// collection before) and stays there while it is observed: a start
		// that moves reads as a reset. A series not observed in a
		// collection is forgotten, so one that comes back starts afresh (a
		// delta counter from zero, as the SDK has it), and the map holds
		// only what the callbacks observe now.
		seen := make(map[attribute.Distinct]observation, len(observed))
		for k, p := range observed {
			prev, ok := s.observed[k]
			if !ok {
				prev.start = last
			}
			seen[k] = observation{start: prev.start, value: p.Value}
			p.Start, p.Time = prev.start, now
			if s.temporality == Delta {
				p.Start = last
				if in.kind == KindObservableCounter {
					p.Value -= prev.value
				}
			}
			m.Points = append(m.Points, p)
		}
		s.observed = seen
	}
	if s.temporality == Delta {
		clear(s.series)
	}
	sortPoints(&m)
	return m
}

// takeExemplars gives the exemplars held and clears them.
func takeExemplars(es []Exemplar) []Exemplar {
	var out []Exemplar
	for i := range es {
		if !es[i].Time.IsZero() {
			out = append(out, es[i])
			es[i] = Exemplar{}
		}
	}
	return out
}

// sortPoints orders a metric's points by their attributes, so a
// collection reads the same whatever the maps' order.
func sortPoints(m *Metric) {
	sortByAttributes(m.Points, func(p *Point) *attribute.Set { return &p.Attributes })
	sortByAttributes(m.Histograms, func(p *HistogramPoint) *attribute.Set { return &p.Attributes })
	sortByAttributes(m.ExpHistograms, func(p *ExpHistogramPoint) *attribute.Set { return &p.Attributes })
}

// sortByAttributes sorts points by their attributes' encoding, each
// encoded once (a Set encodes itself anew at every call).
func sortByAttributes[P any](points []P, attrs func(*P) *attribute.Set) {
	type keyed struct {
		key   string
		point P
	}
	ks := make([]keyed, len(points))
	enc := attribute.DefaultEncoder()
	for i := range points {
		ks[i] = keyed{attrs(&points[i]).Encoded(enc), points[i]}
	}
	slices.SortFunc(ks, func(a, b keyed) int { return strings.Compare(a.key, b.key) })
	for i := range ks {
		points[i] = ks[i].point
	}
}

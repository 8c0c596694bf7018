package metrics_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/ramabana/ramabana-mcp/host/internal/telemetry/metrics"
)

func env(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

func byName(c metrics.Collection) map[string]metrics.Metric {
	m := map[string]metrics.Metric{}
	for _, x := range c.Metrics {
		m[x.Name] = x
	}
	return m
}

func deltaAll(metrics.Kind) metrics.Temporality { return metrics.Delta }

// TestTwoReaders: one registry feeds a cumulative reader and a delta one
// apart; the delta one reports what came since its last collection and
// leaves out a series with nothing new.
func TestTwoReaders(t *testing.T) {
	t.Parallel()
	reg := metrics.NewRegistry(metrics.Scope{Name: "s"}, metrics.AlwaysOff, metrics.ReaderConfig{}, metrics.ReaderConfig{Temporality: deltaAll})
	c := reg.Counter("calls", "{call}", "Calls.")
	h := reg.Histogram("duration", "s", "Durations.", []float64{1, 10})
	a, b := attribute.String("tool", "a"), attribute.String("tool", "b")
	c.Add(2, a)
	c.Add(1, b)
	c.Add(-5, a) // a counter only grows
	h.Record(context.Background(), 0.5, a)
	h.Record(context.Background(), 5, a)
	h.Record(context.Background(), 50, a)

	cum := byName(reg.Collect(0))
	del := byName(reg.Collect(1))
	for _, m := range []map[string]metrics.Metric{cum, del} {
		if got := points(m["calls"]); got != "tool=a:2 tool=b:1" {
			t.Errorf("calls %s, want tool=a:2 tool=b:1", got)
		}
		hp := m["duration"].Histograms
		if len(hp) != 1 || hp[0].Count != 3 || hp[0].Sum != 55.5 || hp[0].Min != 0.5 || hp[0].Max != 50 || !slices.Equal(hp[0].BucketCounts, []uint64{1, 1, 1}) {
			t.Errorf("duration %+v", hp)
		}
	}
	if cum["calls"].Temporality != metrics.Cumulative || del["calls"].Temporality != metrics.Delta {
		t.Errorf("temporalities %v and %v", cum["calls"].Temporality, del["calls"].Temporality)
	}
	c.Add(3, a)
	cum, del = byName(reg.Collect(0)), byName(reg.Collect(1))
	if got := points(cum["calls"]); got != "tool=a:5 tool=b:1" {
		t.Errorf("cumulative calls after 3 more: %s", got)
	}
	if got := points(del["calls"]); got != "tool=a:3" {
		t.Errorf("delta calls after 3 more: %s, want tool=a:3 alone", got)
	}
	if _, ok := del["duration"]; ok {
		t.Error("a delta histogram with nothing new is reported")
	}
	p := del["calls"].Points[0]
	if !p.Start.Before(p.Time) || p.Time.Sub(p.Start) > time.Hour {
		t.Errorf("delta point from %v to %v", p.Start, p.Time)
	}
}

func points(m metrics.Metric) string {
	var out []string
	for _, p := range m.Points {
		var kv []string
		for _, a := range p.Attributes.ToSlice() {
			kv = append(kv, string(a.Key)+"="+a.Value.String())
		}
		out = append(out, fmt.Sprintf("%s:%d", strings.Join(kv, ","), p.Value))
	}
	return strings.Join(out, " ")
}

// TestObserved: gauges and observed counters are read at each collection;
// a delta observed counter reports the change; an unregistered callback
// is called no more.
func TestObserved(t *testing.T) {
	t.Parallel()
	reg := metrics.NewRegistry(metrics.Scope{}, metrics.AlwaysOff, metrics.ReaderConfig{}, metrics.ReaderConfig{Temporality: deltaAll})
	up := reg.ObservableGauge("up", "1", "")
	restarts := reg.ObservableCounter("restarts", "{restart}", "")
	n := int64(1)
	stop := reg.Observe(func(o *metrics.Observer) {
		o.Observe(up, 1, attribute.String("plugin", "p"))
		if n >= 0 {
			o.Observe(restarts, n, attribute.String("plugin", "p"))
		}
	})
	reg.Collect(0)
	reg.Collect(1)
	n = 4
	cum, del := byName(reg.Collect(0)), byName(reg.Collect(1))
	if points(cum["restarts"]) != "plugin=p:4" || points(del["restarts"]) != "plugin=p:3" || points(del["up"]) != "plugin=p:1" {
		t.Errorf("restarts %s (cumulative) and %s (delta), up %s", points(cum["restarts"]), points(del["restarts"]), points(del["up"]))
	}
	// Collected again, the cumulative series keeps its start; the delta one
	// starts at the collection before.
	before := cum["restarts"].Points[0]
	again := byName(reg.Collect(0))["restarts"].Points[0]
	if !again.Start.Equal(before.Start) || again.Time.Before(before.Time) {
		t.Errorf("a cumulative observed counter's start moved from %v to %v", before.Start, again.Start)
	}
	if d := del["restarts"].Points[0]; !d.Start.After(before.Start) && !d.Start.Equal(before.Start) {
		t.Errorf("a delta point starts at %v, before the series did (%v)", d.Start, before.Start)
	}
	if del["up"].Temporality != 0 || del["up"].Kind != metrics.KindObservableGauge {
		t.Errorf("a gauge of temporality %v, kind %v", del["up"].Temporality, del["up"].Kind)
	}
	// A series left out of a collection is forgotten: when it comes back,
	// a delta counter counts from zero, not from its old value.
	n = -1 // not observed
	reg.Collect(1)
	n = 2
	if got := points(byName(reg.Collect(1))["restarts"]); got != "plugin=p:2" {
		t.Errorf("a delta observed counter back at 2 after an absence reports %s, want plugin=p:2", got)
	}
	stop()
	if c := reg.Collect(0); len(c.Metrics) != 0 {
		t.Errorf("after stop, collected %+v", c.Metrics)
	}
}

// TestSeriesLimit: past 2,000 series, new attribute sets go to the
// overflow series; the total is kept.
func TestSeriesLimit(t *testing.T) {
	t.Parallel()
	reg := metrics.NewRegistry(metrics.Scope{}, metrics.AlwaysOff, metrics.ReaderConfig{})
	c := reg.Counter("calls", "", "")
	const n = 5000
	for i := range n {
		c.Add(1, attribute.Int("i", i))
	}
	m := byName(reg.Collect(0))["calls"]
	if len(m.Points) != 2000 {
		t.Errorf("%d series, want 2000", len(m.Points))
	}
	var total, overflow int64
	for _, p := range m.Points {
		total += p.Value
		if v, ok := p.Attributes.Value("otel.metric.overflow"); ok && v.AsBool() {
			overflow = p.Value
		}
	}
	if total != n || overflow != n-1999 {
		t.Errorf("total %d (want %d), overflow %d (want %d)", total, n, overflow, n-1999)
	}
}

// TestExemplars: with trace_based, a measurement in a sampled span's
// context is its bucket's exemplar and one outside a span is not; a
// collection clears them; always_off keeps none.
func TestExemplars(t *testing.T) {
	t.Parallel()
	sc := trace.NewSpanContext(trace.SpanContextConfig{TraceID: trace.TraceID{1}, SpanID: trace.SpanID{2}, TraceFlags: trace.FlagsSampled})
	unsampled := trace.NewSpanContext(trace.SpanContextConfig{TraceID: trace.TraceID{3}, SpanID: trace.SpanID{4}})
	in := trace.ContextWithSpanContext(context.Background(), sc)
	for _, exp := range []bool{false, true} {
		for _, filter := range []metrics.ExemplarFilter{metrics.TraceBased, metrics.AlwaysOn, metrics.AlwaysOff} {
			reg := metrics.NewRegistry(metrics.Scope{}, filter, metrics.ReaderConfig{Exponential: exp})
			h := reg.Histogram("d", "s", "", []float64{1})
			h.Record(context.Background(), 0.5)
			h.Record(trace.ContextWithSpanContext(context.Background(), unsampled), 0.7)
			h.Record(in, 5)
			m := byName(reg.Collect(0))["d"]
			var es []metrics.Exemplar
			if exp {
				es = m.ExpHistograms[0].Exemplars
			} else {
				es = m.Histograms[0].Exemplars
			}
			var got []string
			for _, e := range es {
				got = append(got, fmt.Sprintf("%g@%s", e.Value, e.TraceID))
			}
			want := map[metrics.ExemplarFilter]string{
				metrics.TraceBased: "5@01000000000000000000000000000000",
				metrics.AlwaysOn:   "0.7@03000000000000000000000000000000 5@01000000000000000000000000000000",
				metrics.AlwaysOff:  "",
			}[filter]
			if exp && filter == metrics.AlwaysOn {
				want = "5@01000000000000000000000000000000" // one a point: the last
			}
			if strings.Join(got, " ") != want {
				t.Errorf("exponential %v, filter %v: exemplars %q, want %q", exp, filter, got, want)
			}
			if again := byName(reg.Collect(0))["d"]; len(again.Histograms) > 0 && len(again.Histograms[0].Exemplars) > 0 || len(again.ExpHistograms) > 0 && len(again.ExpHistograms[0].Exemplars) > 0 {
				t.Error("exemplars kept past their collection")
			}
		}
	}
}

// TestExponentialPoint: a reader asking for exponential histograms gets
// them, with count, sum, min and max.
func TestExponentialPoint(t *testing.T) {
	t.Parallel()
	reg := metrics.NewRegistry(metrics.Scope{}, metrics.AlwaysOff, metrics.ReaderConfig{Exponential: true})
	h := reg.Histogram("d", "s", "", []float64{1})
	for _, v := range []float64{0, 1, 2, 4} {
		h.Record(context.Background(), v)
	}
	m := byName(reg.Collect(0))["d"]
	if len(m.Histograms) != 0 || len(m.ExpHistograms) != 1 {
		t.Fatalf("%+v", m)
	}
	p := m.ExpHistograms[0]
	var n uint64
	for _, c := range p.Positive.Counts {
		n += c
	}
	if p.Count != 4 || p.ZeroCount != 1 || n != 3 || p.Sum != 7 || p.Min != 0 || p.Max != 4 || p.Scale > 20 {
		t.Errorf("%+v", p)
	}
}

func TestNilRegistry(t *testing.T) {
	t.Parallel()
	var reg *metrics.Registry
	reg.Counter("c", "", "").Add(1)
	reg.Histogram("h", "", "", nil).Record(context.Background(), 1)
	reg.Observe(func(o *metrics.Observer) { o.Observe(reg.ObservableGauge("g", "", ""), 1) })()
	if c := reg.Collect(0); len(c.Metrics) != 0 {
		t.Error("a nil registry collected something")
	}
}

func TestConfigFromEnv(t *testing.T) {
	t.Parallel()
	c, err := metrics.ConfigFromEnv(env(map[string]string{"OTEL_METRIC_EXPORT_INTERVAL": "1500", "OTEL_METRICS_EXEMPLAR_FILTER": "ALWAYS_ON"}), true)
	if err != nil || c.Interval != 1500*time.Millisecond || c.Timeout != 30*time.Second || c.Exemplars != metrics.AlwaysOn {
		t.Errorf("%+v %v", c, err)
	}
	// Without periodic exports (Prometheus alone) the interval is not read.
	if c, err := metrics.ConfigFromEnv(env(map[string]string{"OTEL_METRIC_EXPORT_INTERVAL": "1m"}), false); err != nil || c.Interval != time.Minute {
		t.Errorf("without periodic exports: %+v %v", c, err)
	}
	for k, v := range map[string]string{"OTEL_METRIC_EXPORT_INTERVAL": "1m", "OTEL_METRIC_EXPORT_TIMEOUT": "-1", "OTEL_METRICS_EXEMPLAR_FILTER": "sometimes"} {
		if _, err := metrics.ConfigFromEnv(env(map[string]string{k: v}), true); err == nil || !strings.Contains(err.Error(), k) {
			t.Errorf("%s=%s: %v", k, v, err)
		}
	}
}

// exporter keeps the last collection a Periodic sends.
type exporter struct {
	mu    sync.Mutex
	last  metrics.Collection
	first chan struct{} // closed at the first export
	shut  bool
}

func (e *exporter) Export(_ context.Context, c metrics.Collection) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.last.Metrics == nil {
		close(e.first)
	}
	e.last = c
	return nil
}

func (e *exporter) Shutdown(context.Context) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.shut = true
	return nil
}

// TestPeriodic: exports come at the interval, and Shutdown sends a last
// one and shuts the exporter down.
func TestPeriodic(t *testing.T) {
	t.Parallel()
	reg := metrics.NewRegistry(metrics.Scope{}, metrics.AlwaysOff, metrics.ReaderConfig{})
	c := reg.Counter("calls", "", "")
	c.Add(1)
	exp := &exporter{first: make(chan struct{})}
	p := metrics.NewPeriodic(reg, 0, exp, metrics.Config{Interval: time.Millisecond, Timeout: time.Minute}, func(err error) { t.Error(err) })
	<-exp.first // an export at the interval, however slow the machine
	c.Add(1)
	if err := p.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	exp.mu.Lock()
	defer exp.mu.Unlock()
	if got := points(byName(exp.last)["calls"]); got != ":2" || !exp.shut {
		t.Errorf("the last export held calls %q (want :2); exporter shut down: %v", got, exp.shut)
	}
}

// hungExporter's exports wait for their context to end.
type hungExporter struct {
	mu       sync.Mutex
	started  chan struct{}
	finished []error // each export's end
	shut     bool
}

func (e *hungExporter) Export(ctx context.Context, c metrics.Collection) error {
	e.mu.Lock()
	first := len(e.finished) == 0 && e.started != nil
	e.mu.Unlock()
	if first {
		close(e.started)
		e.mu.Lock()
		e.started = nil
		e.mu.Unlock()
		<-ctx.Done()
		e.mu.Lock()
		e.finished = append(e.finished, ctx.Err())
		e.mu.Unlock()
		return ctx.Err()
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.finished = append(e.finished, nil)
	return nil
}

func (e *hungExporter) Shutdown(context.Context) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.shut = true
	return nil
}

// TestShutdownDuringAnExport: Shutdown cancels a periodic export that
// hangs, still sends the last collection, and reports no error for the
// export it cancelled.
func TestShutdownDuringAnExport(t *testing.T) {
	t.Parallel()
	reg := metrics.NewRegistry(metrics.Scope{}, metrics.AlwaysOff, metrics.ReaderConfig{})
	reg.Counter("calls", "", "").Add(1)
	started := make(chan struct{})
	exp := &hungExporter{started: started}
	var mu sync.Mutex
	var errs []error
	p := metrics.NewPeriodic(reg, 0, exp, metrics.Config{Interval: time.Millisecond, Timeout: time.Hour}, func(err error) { mu.Lock(); errs = append(errs, err); mu.Unlock() })
	<-started
	if err := p.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	exp.mu.Lock()
	defer exp.mu.Unlock()
	if len(exp.finished) != 2 || exp.finished[0] == nil || exp.finished[1] != nil || !exp.shut {
		t.Errorf("exports ended with %v (want the hung one cancelled, then the last one sent), shut down %v", exp.finished, exp.shut)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(errs) != 0 {
		t.Errorf("errors reported: %v", errs)
	}
}

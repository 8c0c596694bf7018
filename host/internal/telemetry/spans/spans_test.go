package spans_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/ramabana/ramabana-mcp/host/internal/telemetry/spans"
)

func env(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

func remote(t *testing.T, sampled bool) context.Context {
	t.Helper()
	tid, _ := trace.TraceIDFromHex("4bf92f3577b34da6a3ce929d0e0e4736")
	sid, _ := trace.SpanIDFromHex("00f067aa0ba902b7")
	ts, err := trace.ParseTraceState("vendor=x")
	if err != nil {
		t.Fatal(err)
	}
	sc := trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: sid, TraceFlags: trace.TraceFlags(0).WithSampled(sampled), TraceState: ts, Remote: true})
	return trace.ContextWithRemoteSpanContext(context.Background(), sc)
}

// TestChildrenAndRoots: a span joins its parent's trace (a remote one's
// too) and keeps its trace state; a trace's first span has a new trace id.
func TestChildrenAndRoots(t *testing.T) {
	t.Parallel()
	rec := &spans.Recorder{}
	tr := spans.NewProvider(spans.DefaultConfig(), rec).Tracer("scope", trace.WithInstrumentationVersion("v1"))
	ctx, parent := tr.Start(remote(t, true), "parent", trace.WithSpanKind(trace.SpanKindServer))
	_, child := tr.Start(ctx, "child")
	_, root := tr.Start(ctx, "root", trace.WithNewRoot())
	child.End()
	parent.End()
	root.End()
	got := rec.Ended()
	if len(got) != 3 {
		t.Fatalf("%d spans ended, want 3", len(got))
	}
	c, p, r := got[0], got[1], got[2]
	if p.SpanContext.TraceID().String() != "4bf92f3577b34da6a3ce929d0e0e4736" || !p.Parent.IsRemote() || p.Parent.SpanID().String() != "00f067aa0ba902b7" {
		t.Errorf("parent span %v under %v: not the remote parent's child", p.SpanContext, p.Parent)
	}
	if p.SpanContext.TraceState().String() != "vendor=x" || p.Kind != trace.SpanKindServer || p.Scope != (spans.Scope{Name: "scope", Version: "v1"}) {
		t.Errorf("parent span: trace state %q, kind %v, scope %+v", p.SpanContext.TraceState(), p.Kind, p.Scope)
	}
	if c.Parent.SpanID() != p.SpanContext.SpanID() || c.SpanContext.TraceID() != p.SpanContext.TraceID() || c.Kind != trace.SpanKindInternal {
		t.Errorf("child %v under %v, kind %v; want under %v, internal", c.SpanContext, c.Parent, c.Kind, p.SpanContext)
	}
	if r.Parent.IsValid() || r.SpanContext.TraceID() == p.SpanContext.TraceID() || !r.SpanContext.IsSampled() {
		t.Errorf("new root %v under %v", r.SpanContext, r.Parent)
	}
	if !c.End.After(c.Start) && !c.End.Equal(c.Start) {
		t.Errorf("child ends %v before it starts %v", c.End, c.Start)
	}
}

// TestSamplers: each OTEL_TRACES_SAMPLER, with and without a parent. A
// span not sampled records nothing but carries its trace on.
func TestSamplers(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		sampler, arg                  string
		root, sampledParent, unParent bool
	}{
		{"", "", true, true, false},
		{"parentbased_always_on", "", true, true, false},
		{"parentbased_always_off", "", false, true, false},
		{"always_on", "", true, true, true},
		{"always_off", "", false, false, false},
		{"traceidratio", "0", false, false, false},
		{"traceidratio", "1", true, true, true},
		{"parentbased_traceidratio", "0", false, true, false},
	} {
		t.Run(c.sampler+"/"+c.arg, func(t *testing.T) {
			t.Parallel()
			cfg, err := spans.ConfigFromEnv(env(map[string]string{"OTEL_TRACES_SAMPLER": c.sampler, "OTEL_TRACES_SAMPLER_ARG": c.arg}))
			if err != nil {
				t.Fatal(err)
			}
			rec := &spans.Recorder{}
			tr := spans.NewProvider(cfg, rec).Tracer("s")
			for _, s := range []struct {
				ctx  context.Context
				want bool
			}{{context.Background(), c.root}, {remote(t, true), c.sampledParent}, {remote(t, false), c.unParent}} {
				before := len(rec.Ended())
				ctx, sp := tr.Start(s.ctx, "x")
				sp.SetAttributes(attribute.String("k", "v"))
				sp.End()
				recorded := len(rec.Ended()) > before
				if recorded != s.want || sp.SpanContext().IsSampled() != s.want || !sp.SpanContext().IsValid() {
					t.Errorf("parent %v: recorded %v, sampled flag %v, valid %v; want %v", trace.SpanContextFromContext(s.ctx), recorded, sp.SpanContext().IsSampled(), sp.SpanContext().IsValid(), s.want)
				}
				if p := trace.SpanContextFromContext(s.ctx); p.IsValid() && trace.SpanContextFromContext(ctx).TraceID() != p.TraceID() {
					t.Error("a span not sampled left its parent's trace")
				}
			}
		})
	}
}

// TestRatio: traceidratio keeps about the ratio of traces, by the SDK's
// rule (the id's last 8 bytes shifted right once, below ratio×2⁶³).
func TestRatio(t *testing.T) {
	t.Parallel()
	cfg, err := spans.ConfigFromEnv(env(map[string]string{"OTEL_TRACES_SAMPLER": "traceidratio", "OTEL_TRACES_SAMPLER_ARG": "0.25"}))
	if err != nil {
		t.Fatal(err)
	}
	tr := spans.NewProvider(cfg, &spans.Recorder{}).Tracer("s")
	kept := 0
	const n = 4000
	for range n {
		_, sp := tr.Start(context.Background(), "x")
		tid := sp.SpanContext().TraceID()
		var x uint64
		for _, b := range tid[8:] {
			x = x<<8 | uint64(b)
		}
		if want := x>>1 < uint64(0.25*(1<<63)); sp.SpanContext().IsSampled() != want {
			t.Fatalf("trace %s sampled %v, the SDK's rule says %v", tid, sp.SpanContext().IsSampled(), want)
		}
		if sp.SpanContext().IsSampled() {
			kept++
		}
	}
	if kept < n/8 || kept > n/2 { // 1000 expected; far outside is a broken rule, not chance
		t.Errorf("kept %d of %d traces at a ratio of 0.25", kept, n)
	}
}

func TestConfigErrors(t *testing.T) {
	t.Parallel()
	for k, v := range map[string]string{
		"OTEL_TRACES_SAMPLER":             "jaeger_remote",
		"OTEL_TRACES_SAMPLER_ARG":         "2",
		"OTEL_BSP_MAX_QUEUE_SIZE":         "0",
		"OTEL_BSP_SCHEDULE_DELAY":         "5s",
		"OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT": "many",
	} {
		vars := map[string]string{k: v}
		if k == "OTEL_TRACES_SAMPLER_ARG" {
			vars["OTEL_TRACES_SAMPLER"] = "traceidratio"
		}
		if _, err := spans.ConfigFromEnv(env(vars)); err == nil || !strings.Contains(err.Error(), k) {
			t.Errorf("%s=%s: err %v, want one naming the variable", k, v, err)
		}
	}
	if _, err := spans.ConfigFromEnv(env(map[string]string{"OTEL_TRACES_SAMPLER": "traceidratio", "OTEL_TRACES_SAMPLER_ARG": "NaN"})); err == nil {
		t.Error("a ratio of NaN taken")
	}
	if cfg, err := spans.ConfigFromEnv(env(map[string]string{"OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT": "-5"})); err != nil || cfg.Limits.Attributes >= 0 {
		t.Errorf("a negative limit: %+v %v; want no limit", cfg.Limits, err)
	}
	cfg, err := spans.ConfigFromEnv(env(map[string]string{"OTEL_BSP_SCHEDULE_DELAY": "250", "OTEL_BSP_MAX_QUEUE_SIZE": "10", "OTEL_ATTRIBUTE_COUNT_LIMIT": "3"}))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Batch.ScheduleDelay != 250*time.Millisecond || cfg.Batch.MaxQueueSize != 10 || cfg.Batch.MaxBatchSize != 10 || cfg.Limits.Attributes != 3 {
		t.Errorf("config %+v", cfg)
	}
}

// TestLimits: a key set again keeps its last value, keys beyond the limit
// are dropped and counted, long strings are cut at a rune.
func TestLimits(t *testing.T) {
	t.Parallel()
	cfg, err := spans.ConfigFromEnv(env(map[string]string{"OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT": "2", "OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT": "4", "OTEL_SPAN_EVENT_COUNT_LIMIT": "1"}))
	if err != nil {
		t.Fatal(err)
	}
	rec := &spans.Recorder{}
	_, sp := spans.NewProvider(cfg, rec).Tracer("s").Start(context.Background(), "x", trace.WithAttributes(attribute.String("a", "1")))
	sp.SetAttributes(attribute.String("b", "héllo"), attribute.String("a", "2"), attribute.Int("c", 3))
	sp.AddEvent("one")
	sp.AddEvent("two")
	sp.SetStatus(codes.Error, "failed")
	sp.SetStatus(codes.Unset, "")
	sp.End()
	sp.SetAttributes(attribute.String("late", "x"))
	sp.End()
	got := rec.Ended()
	if len(got) != 1 {
		t.Fatalf("%d spans, want 1 (End twice hands it on once)", len(got))
	}
	d := got[0]
	want := []attribute.KeyValue{attribute.String("a", "2"), attribute.String("b", "héll")} // four characters, five bytes
	if len(d.Attributes) != 2 || d.Attributes[0] != want[0] || d.Attributes[1] != want[1] || d.DroppedAttributes != 1 {
		t.Errorf("attributes %v (%d dropped), want %v (1 dropped)", d.Attributes, d.DroppedAttributes, want)
	}
	if len(d.Events) != 1 || d.Events[0].Name != "two" || d.DroppedEvents != 1 || d.Status != (spans.Status{Code: codes.Error, Description: "failed"}) {
		t.Errorf("events %v (%d dropped), status %v", d.Events, d.DroppedEvents, d.Status)
	}
}

// exporter records what the batcher sends, and can hold an export.
type exporter struct {
	mu       sync.Mutex
	batches  [][]string
	shutdown bool
	hold     chan struct{} // non-nil: exports wait for it
	err      error
}

func (e *exporter) ExportSpans(ctx context.Context, ss []*spans.Data) error {
	if e.hold != nil {
		select {
		case <-e.hold:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	var names []string
	for _, s := range ss {
		names = append(names, s.Name)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.batches = append(e.batches, names)
	return e.err
}

func (e *exporter) Shutdown(context.Context) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.shutdown = true
	return nil
}

// TestBatcher: spans go out in batches of the configured size; Shutdown
// sends what is left and shuts the exporter down; a span ended after it
// is not sent.
func TestBatcher(t *testing.T) {
	t.Parallel()
	exp := &exporter{}
	cfg := spans.DefaultConfig()
	cfg.Batch.MaxBatchSize = 2
	cfg.Batch.ScheduleDelay = time.Hour // only full batches and Shutdown send
	var errs []error
	b := spans.NewBatcher(exp, cfg.Batch, func(err error) { errs = append(errs, err) })
	p := spans.NewProvider(cfg, b)
	tr := p.Tracer("s")
	for _, name := range []string{"a", "b", "c"} {
		_, sp := tr.Start(context.Background(), name)
		sp.End()
	}
	if err := p.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	_, late := tr.Start(context.Background(), "late")
	late.End()
	if late.IsRecording() || late.SpanContext().IsSampled() {
		t.Error("a span started after Shutdown is recorded")
	}
	exp.mu.Lock()
	defer exp.mu.Unlock()
	if got := strings.Join(flatten(exp.batches), ","); got != "a,b,c" || len(exp.batches) != 2 || len(exp.batches[0]) != 2 || !exp.shutdown {
		t.Errorf("batches %v, exporter shut down %v; want [[a b] [c]], true", exp.batches, exp.shutdown)
	}
	if len(errs) != 0 {
		t.Errorf("errors: %v", errs)
	}
}

func flatten(bs [][]string) []string {
	var all []string
	for _, b := range bs {
		all = append(all, b...)
	}
	return all
}

// TestBatcherDropsWhenFull: with the exporter stuck, spans beyond the
// queue are dropped and the drops reported; the export's error too.
func TestBatcherDropsWhenFull(t *testing.T) {
	t.Parallel()
	exp := &exporter{hold: make(chan struct{}), err: errors.New("collector said no")}
	cfg := spans.BatchConfig{ScheduleDelay: time.Hour, ExportTimeout: time.Hour, MaxQueueSize: 2, MaxBatchSize: 1}
	var mu sync.Mutex
	var errs []string
	b := spans.NewBatcher(exp, cfg, func(err error) { mu.Lock(); errs = append(errs, err.Error()); mu.Unlock() })
	tr := spans.NewProvider(spans.DefaultConfig(), b).Tracer("s")
	// The first span is taken into an export that waits; two more fill
	// the queue; the rest are dropped. Which is which depends on when the
	// goroutine takes the first, so end spans until one is surely dropped.
	for i := range 10 {
		_, sp := tr.Start(context.Background(), string(rune('a'+i)))
		sp.End()
	}
	close(exp.hold)
	if err := b.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	all := strings.Join(errs, "\n")
	if !strings.Contains(all, "spans dropped") || !strings.Contains(all, "OTEL_BSP_MAX_QUEUE_SIZE") || !strings.Contains(all, "collector said no") {
		t.Errorf("errors reported:\n%s", all)
	}
	exp.mu.Lock()
	defer exp.mu.Unlock()
	if n := len(flatten(exp.batches)); n < 1 || n > 3 {
		t.Errorf("%d spans exported with a queue of 2 and one export under way", n)
	}
}

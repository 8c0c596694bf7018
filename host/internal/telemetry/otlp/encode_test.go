package otlp_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
	colmetricpb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	metricpb "go.opentelemetry.io/proto/otlp/metrics/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/testing/protocmp"

	"github.com/ramabana/ramabana-mcp/host/internal/telemetry/metrics"
	"github.com/ramabana/ramabana-mcp/host/internal/telemetry/otlp"
	"github.com/ramabana/ramabana-mcp/host/internal/telemetry/spans"
)

func str(s string) *commonpb.AnyValue {
	return &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: s}}
}
func integer(i int64) *commonpb.AnyValue {
	return &commonpb.AnyValue{Value: &commonpb.AnyValue_IntValue{IntValue: i}}
}
func boolean(b bool) *commonpb.AnyValue {
	return &commonpb.AnyValue{Value: &commonpb.AnyValue_BoolValue{BoolValue: b}}
}
func double(f float64) *commonpb.AnyValue {
	return &commonpb.AnyValue{Value: &commonpb.AnyValue_DoubleValue{DoubleValue: f}}
}
func array(vs ...*commonpb.AnyValue) *commonpb.AnyValue {
	return &commonpb.AnyValue{Value: &commonpb.AnyValue_ArrayValue{ArrayValue: &commonpb.ArrayValue{Values: vs}}}
}
func bytesValue(b []byte) *commonpb.AnyValue {
	return &commonpb.AnyValue{Value: &commonpb.AnyValue_BytesValue{BytesValue: b}}
}
func kvlist(kvs ...*commonpb.KeyValue) *commonpb.AnyValue {
	return &commonpb.AnyValue{Value: &commonpb.AnyValue_KvlistValue{KvlistValue: &commonpb.KeyValueList{Values: kvs}}}
}
func kv(k string, v *commonpb.AnyValue) *commonpb.KeyValue {
	return &commonpb.KeyValue{Key: k, Value: v}
}

func nanos(t time.Time) uint64 { return uint64(t.UnixNano()) }

// svc is the resource the tests' telemetry is of.
var svc = otlp.Resource{Attributes: attribute.NewSet(attribute.String("service.name", "svc"))}

// TestSpansAsTheGeneratedCodeReadsThem writes spans holding every kind of
// attribute value, an event, a link, an error status and a remote parent,
// in two scopes, and reads the request back with the OTLP project's
// generated types: each field must be where the protocol puts it.
func TestSpansAsTheGeneratedCodeReadsThem(t *testing.T) {
	t.Parallel()
	rec := &spans.Recorder{}
	tp := rec.Provider()
	tid := trace.TraceID{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}
	state, err := trace.ParseTraceState("vendor=v1")
	if err != nil {
		t.Fatal(err)
	}
	parent := trace.NewSpanContext(trace.SpanContextConfig{
		TraceID: tid, SpanID: trace.SpanID{1, 1, 1, 1, 1, 1, 1, 1}, TraceFlags: trace.FlagsSampled, Remote: true, TraceState: state,
	})
	linked := trace.NewSpanContext(trace.SpanContextConfig{
		TraceID: trace.TraceID{9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9}, SpanID: trace.SpanID{2, 2, 2, 2, 2, 2, 2, 2},
	})
	start := time.Unix(1700000000, 123)
	ctx := trace.ContextWithRemoteSpanContext(context.Background(), parent)
	_, span := tp.Tracer("scope-a", trace.WithInstrumentationVersion("v1"), trace.WithSchemaURL("https://schema/1")).Start(ctx, "tools/call view_file",
		trace.WithSpanKind(trace.SpanKindServer), trace.WithTimestamp(start),
		trace.WithLinks(trace.Link{SpanContext: linked, Attributes: []attribute.KeyValue{attribute.Int("n", 7)}}),
		trace.WithAttributes(
			attribute.String("s", "text"), attribute.Bool("b", true), attribute.Int64("i", -5),
			attribute.Float64("f", 2.5), attribute.StringSlice("ss", []string{"x", "y"}),
			attribute.Int64Slice("is", []int64{1, -2}), attribute.BoolSlice("bs", []bool{false}),
			attribute.Float64Slice("fs", []float64{0.5}),
			attribute.KeyValue{Key: "by", Value: attribute.ByteSliceValue([]byte{0, 1})},
			attribute.KeyValue{Key: "sl", Value: attribute.SliceValue(attribute.StringValue("a"), attribute.IntValue(1))},
			attribute.KeyValue{Key: "m", Value: attribute.MapValue(attribute.String("k", "v"))},
		))
	span.AddEvent("went", trace.WithTimestamp(start.Add(time.Millisecond)), trace.WithAttributes(attribute.String("e", "v")))
	span.SetStatus(codes.Error, "failed")
	span.End(trace.WithTimestamp(start.Add(time.Second)))
	_, plain := tp.Tracer("scope-b").Start(context.Background(), "plain", trace.WithTimestamp(start))
	plain.End(trace.WithTimestamp(start.Add(2 * time.Second)))

	ended := rec.Ended()
	if len(ended) != 2 {
		t.Fatalf("%d spans ended, want 2", len(ended))
	}
	var got coltracepb.ExportTraceServiceRequest
	res := otlp.Resource{Attributes: svc.Attributes, SchemaURL: "https://schema/r"}
	if err := proto.Unmarshal(otlp.TracesRequest(res, ended), &got); err != nil {
		t.Fatal(err)
	}
	sid := ended[0].SpanContext.SpanID()
	sid2, tid2 := ended[1].SpanContext.SpanID(), ended[1].SpanContext.TraceID()
	want := &coltracepb.ExportTraceServiceRequest{ResourceSpans: []*tracepb.ResourceSpans{{
		Resource:  &resourcepb.Resource{Attributes: []*commonpb.KeyValue{kv("service.name", str("svc"))}},
		SchemaUrl: "https://schema/r",
		ScopeSpans: []*tracepb.ScopeSpans{{
			Scope:     &commonpb.InstrumentationScope{Name: "scope-a", Version: "v1"},
			SchemaUrl: "https://schema/1",
			Spans: []*tracepb.Span{{
				TraceId: tid[:], SpanId: sid[:], ParentSpanId: []byte{1, 1, 1, 1, 1, 1, 1, 1}, TraceState: "vendor=v1",
				Flags: 0x01 | 0x100 | 0x200, Name: "tools/call view_file", Kind: tracepb.Span_SPAN_KIND_SERVER,
				StartTimeUnixNano: nanos(start), EndTimeUnixNano: nanos(start.Add(time.Second)),
				Attributes: []*commonpb.KeyValue{
					kv("s", str("text")), kv("b", boolean(true)), kv("i", integer(-5)), kv("f", double(2.5)),
					kv("ss", array(str("x"), str("y"))), kv("is", array(integer(1), integer(-2))),
					kv("bs", array(boolean(false))), kv("fs", array(double(0.5))), kv("by", bytesValue([]byte{0, 1})),
					kv("sl", array(str("a"), integer(1))), kv("m", kvlist(kv("k", str("v")))),
				},
				Events: []*tracepb.Span_Event{{TimeUnixNano: nanos(start.Add(time.Millisecond)), Name: "went", Attributes: []*commonpb.KeyValue{kv("e", str("v"))}}},
				Links: []*tracepb.Span_Link{{
					TraceId: []byte{9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9}, SpanId: []byte{2, 2, 2, 2, 2, 2, 2, 2},
					Attributes: []*commonpb.KeyValue{kv("n", integer(7))}, Flags: 0x100,
				}},
				Status: &tracepb.Status{Code: tracepb.Status_STATUS_CODE_ERROR, Message: "failed"},
			}},
		}, {
			Scope: &commonpb.InstrumentationScope{Name: "scope-b"},
			Spans: []*tracepb.Span{{
				TraceId: tid2[:], SpanId: sid2[:], Flags: 0x01 | 0x100, Name: "plain", Kind: tracepb.Span_SPAN_KIND_INTERNAL,
				StartTimeUnixNano: nanos(start), EndTimeUnixNano: nanos(start.Add(2 * time.Second)),
				Status: &tracepb.Status{},
			}},
		}},
	}}}
	if diff := cmp.Diff(want, &got, protocmp.Transform()); diff != "" {
		t.Errorf("request read back (-want +got):\n%s", diff)
	}
}

// TestHandMadeSpans: what the provider's default limits seldom make (the
// counts of what was dropped, an Ok status, a remote link with its trace
// state, a client span under a local parent) goes where the protocol puts
// it; spans of one scope go together, in the order the scopes first come;
// a nil span is skipped, and no span makes no request.
func TestHandMadeSpans(t *testing.T) {
	t.Parallel()
	at := time.Unix(1700000000, 0)
	state, err := trace.ParseTraceState("a=1,b=2")
	if err != nil {
		t.Fatal(err)
	}
	tid := trace.TraceID{7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7}
	local := trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: trace.SpanID{3, 3, 3, 3, 3, 3, 3, 3}, TraceFlags: trace.FlagsSampled})
	link := trace.NewSpanContext(trace.SpanContextConfig{
		TraceID: trace.TraceID{8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8}, SpanID: trace.SpanID{4, 4, 4, 4, 4, 4, 4, 4},
		TraceFlags: trace.FlagsSampled, TraceState: state, Remote: true,
	})
	scopeA, scopeB := spans.Scope{Name: "a", Version: "1"}, spans.Scope{Name: "b", SchemaURL: "https://schema/b"}
	span := func(name string, id byte, scope spans.Scope) *spans.Data {
		return &spans.Data{
			SpanContext: trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: trace.SpanID{id, id, id, id, id, id, id, id}}),
			Parent:      local, Name: name, Kind: trace.SpanKindClient, Start: at, End: at.Add(time.Millisecond), Scope: scope,
		}
	}
	first := span("first", 5, scopeA)
	first.Status = spans.Status{Code: codes.Ok}
	first.DroppedAttributes, first.DroppedEvents, first.DroppedLinks = 3, 4, 5
	first.Events = []spans.Event{{Name: "e", Time: at, DroppedAttributes: 6}}
	first.Links = []spans.Link{{SpanContext: link, DroppedAttributes: 2}}
	second, third := span("second", 6, scopeB), span("third", 7, scopeA)

	if b := otlp.TracesRequest(svc, nil); b != nil {
		t.Errorf("no spans: a request of %d bytes", len(b))
	}
	if b := otlp.TracesRequest(svc, []*spans.Data{nil}); b != nil {
		t.Errorf("a nil span: a request of %d bytes", len(b))
	}
	var got coltracepb.ExportTraceServiceRequest
	if err := proto.Unmarshal(otlp.TracesRequest(svc, []*spans.Data{first, nil, second, third}), &got); err != nil {
		t.Fatal(err)
	}
	wantSpan := func(d *spans.Data) *tracepb.Span {
		sid := d.SpanContext.SpanID()
		return &tracepb.Span{
			TraceId: tid[:], SpanId: sid[:], ParentSpanId: []byte{3, 3, 3, 3, 3, 3, 3, 3}, Flags: 0x100,
			Name: d.Name, Kind: tracepb.Span_SPAN_KIND_CLIENT, StartTimeUnixNano: nanos(at), EndTimeUnixNano: nanos(at.Add(time.Millisecond)),
			Status: &tracepb.Status{},
		}
	}
	w1 := wantSpan(first)
	w1.Status = &tracepb.Status{Code: tracepb.Status_STATUS_CODE_OK}
	w1.DroppedAttributesCount, w1.DroppedEventsCount, w1.DroppedLinksCount = 3, 4, 5
	w1.Events = []*tracepb.Span_Event{{Name: "e", TimeUnixNano: nanos(at), DroppedAttributesCount: 6}}
	w1.Links = []*tracepb.Span_Link{{
		TraceId: []byte{8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8}, SpanId: []byte{4, 4, 4, 4, 4, 4, 4, 4},
		TraceState: "a=1,b=2", DroppedAttributesCount: 2, Flags: 0x01 | 0x100 | 0x200,
	}}
	want := &coltracepb.ExportTraceServiceRequest{ResourceSpans: []*tracepb.ResourceSpans{{
		Resource: &resourcepb.Resource{Attributes: []*commonpb.KeyValue{kv("service.name", str("svc"))}},
		ScopeSpans: []*tracepb.ScopeSpans{
			{Scope: &commonpb.InstrumentationScope{Name: "a", Version: "1"}, Spans: []*tracepb.Span{w1, wantSpan(third)}},
			{Scope: &commonpb.InstrumentationScope{Name: "b"}, SchemaUrl: "https://schema/b", Spans: []*tracepb.Span{wantSpan(second)}},
		},
	}}}
	if diff := cmp.Diff(want, &got, protocmp.Transform()); diff != "" {
		t.Errorf("request read back (-want +got):\n%s", diff)
	}
}

// byName finds a collection's metric.
func byName(t *testing.T, c metrics.Collection, name string) metrics.Metric {
	t.Helper()
	for _, m := range c.Metrics {
		if m.Name == name {
			return m
		}
	}
	t.Fatalf("no metric %q collected", name)
	return metrics.Metric{}
}

// TestMetricsAsTheGeneratedCodeReadsThem collects every kind of metric the
// registry's instruments make (a counter, an observed counter and gauge,
// explicit and exponential histograms, the latter with exemplars of the
// span they were recorded in) and reads the request back with the
// generated types.
func TestMetricsAsTheGeneratedCodeReadsThem(t *testing.T) {
	t.Parallel()
	reg := metrics.NewRegistry(metrics.Scope{Name: "scope", Version: "v2", SchemaURL: "https://schema/s"}, metrics.TraceBased,
		metrics.ReaderConfig{}, metrics.ReaderConfig{Exponential: true})
	calls := reg.Counter("calls", "{call}", "Calls.")
	calls.Add(3, attribute.String("tool", "view_file"))
	dur := reg.Histogram("duration", "s", "How long.", []float64{0.1, 1})
	tid := trace.TraceID{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}
	sid := trace.SpanID{1, 2, 3, 4, 5, 6, 7, 8}
	inSpan := trace.ContextWithSpanContext(context.Background(),
		trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: sid, TraceFlags: trace.FlagsSampled}))
	dur.Record(context.Background(), -0.5)
	dur.Record(context.Background(), 0)
	dur.Record(inSpan, 4)
	cpu := reg.ObservableCounter("cpu", "s", "")
	up := reg.ObservableGauge("up", "", "")
	reg.Observe(func(o *metrics.Observer) {
		o.Observe(cpu, 7)
		o.Observe(up, 1, attribute.Bool("ready", true))
	})

	// Each reader's collection, read back; times are the collection's.
	read := func(c metrics.Collection) map[string]*metricpb.Metric {
		t.Helper()
		var got colmetricpb.ExportMetricsServiceRequest
		if err := proto.Unmarshal(otlp.MetricsRequest(svc, c), &got); err != nil {
			t.Fatal(err)
		}
		rm := got.GetResourceMetrics()
		if len(rm) != 1 || len(rm[0].GetScopeMetrics()) != 1 {
			t.Fatalf("want one resource and one scope: %v", rm)
		}
		wantRes := &resourcepb.Resource{Attributes: []*commonpb.KeyValue{kv("service.name", str("svc"))}}
		if diff := cmp.Diff(wantRes, rm[0].GetResource(), protocmp.Transform()); diff != "" {
			t.Errorf("resource (-want +got):\n%s", diff)
		}
		sm := rm[0].GetScopeMetrics()[0]
		if diff := cmp.Diff(&commonpb.InstrumentationScope{Name: "scope", Version: "v2"}, sm.GetScope(), protocmp.Transform()); diff != "" || sm.GetSchemaUrl() != "https://schema/s" {
			t.Errorf("scope (-want +got):\n%s, schema URL %q", diff, sm.GetSchemaUrl())
		}
		out := map[string]*metricpb.Metric{}
		for _, m := range sm.GetMetrics() {
			out[m.GetName()] = m
		}
		return out
	}
	cum := metricpb.AggregationTemporality_AGGREGATION_TEMPORALITY_CUMULATIVE
	point := func(c metrics.Collection, name string) metrics.Point { return byName(t, c, name).Points[0] }
	common := func(c metrics.Collection) map[string]*metricpb.Metric {
		callsP, cpuP, upP := point(c, "calls"), point(c, "cpu"), point(c, "up")
		return map[string]*metricpb.Metric{
			"calls": {Name: "calls", Unit: "{call}", Description: "Calls.", Data: &metricpb.Metric_Sum{Sum: &metricpb.Sum{
				AggregationTemporality: cum, IsMonotonic: true,
				DataPoints: []*metricpb.NumberDataPoint{{
					StartTimeUnixNano: nanos(callsP.Start), TimeUnixNano: nanos(callsP.Time),
					Value: &metricpb.NumberDataPoint_AsInt{AsInt: 3}, Attributes: []*commonpb.KeyValue{kv("tool", str("view_file"))},
				}},
			}}},
			"cpu": {Name: "cpu", Unit: "s", Data: &metricpb.Metric_Sum{Sum: &metricpb.Sum{
				AggregationTemporality: cum, IsMonotonic: true,
				DataPoints: []*metricpb.NumberDataPoint{{
					StartTimeUnixNano: nanos(cpuP.Start), TimeUnixNano: nanos(cpuP.Time), Value: &metricpb.NumberDataPoint_AsInt{AsInt: 7},
				}},
			}}},
			"up": {Name: "up", Data: &metricpb.Metric_Gauge{Gauge: &metricpb.Gauge{
				DataPoints: []*metricpb.NumberDataPoint{{
					StartTimeUnixNano: nanos(upP.Start), TimeUnixNano: nanos(upP.Time),
					Value: &metricpb.NumberDataPoint_AsInt{AsInt: 1}, Attributes: []*commonpb.KeyValue{kv("ready", boolean(true))},
				}},
			}}},
		}
	}
	sum, minimum, maximum := 3.5, -0.5, 4.0

	explicit := reg.Collect(0)
	h := byName(t, explicit, "duration").Histograms
	if len(h) != 1 || len(h[0].Exemplars) != 1 || h[0].Exemplars[0].Time.IsZero() {
		t.Fatalf("duration's points %+v: want one, with the exemplar of the span", h)
	}
	want := common(explicit)
	want["duration"] = &metricpb.Metric{Name: "duration", Unit: "s", Description: "How long.", Data: &metricpb.Metric_Histogram{Histogram: &metricpb.Histogram{
		AggregationTemporality: cum,
		DataPoints: []*metricpb.HistogramDataPoint{{
			StartTimeUnixNano: nanos(h[0].Start), TimeUnixNano: nanos(h[0].Time),
			Count: 3, Sum: &sum, Min: &minimum, Max: &maximum, ExplicitBounds: []float64{0.1, 1}, BucketCounts: []uint64{2, 0, 1},
			Exemplars: []*metricpb.Exemplar{{
				TimeUnixNano: nanos(h[0].Exemplars[0].Time), Value: &metricpb.Exemplar_AsDouble{AsDouble: 4}, SpanId: sid[:], TraceId: tid[:],
			}},
		}},
	}}}
	if diff := cmp.Diff(want, read(explicit), protocmp.Transform()); diff != "" {
		t.Errorf("explicit histograms' metrics read back (-want +got):\n%s", diff)
	}

	exponential := reg.Collect(1)
	e := byName(t, exponential, "duration").ExpHistograms
	if len(e) != 1 || len(e[0].Exemplars) != 1 {
		t.Fatalf("duration's points %+v: want one, with the exemplar of the span", e)
	}
	want = common(exponential)
	want["duration"] = &metricpb.Metric{Name: "duration", Unit: "s", Description: "How long.", Data: &metricpb.Metric_ExponentialHistogram{ExponentialHistogram: &metricpb.ExponentialHistogram{
		AggregationTemporality: cum,
		DataPoints: []*metricpb.ExponentialHistogramDataPoint{{
			StartTimeUnixNano: nanos(e[0].Start), TimeUnixNano: nanos(e[0].Time),
			Count: 3, Sum: &sum, Min: &minimum, Max: &maximum, Scale: 20, ZeroCount: 1,
			// 4 = 2² is the upper bound of bucket 2·2²⁰-1; 0.5 = 2⁻¹ that of -2²⁰-1.
			Positive: &metricpb.ExponentialHistogramDataPoint_Buckets{Offset: 2097151, BucketCounts: []uint64{1}},
			Negative: &metricpb.ExponentialHistogramDataPoint_Buckets{Offset: -1048577, BucketCounts: []uint64{1}},
			Exemplars: []*metricpb.Exemplar{{
				TimeUnixNano: nanos(e[0].Exemplars[0].Time), Value: &metricpb.Exemplar_AsDouble{AsDouble: 4}, SpanId: sid[:], TraceId: tid[:],
			}},
		}},
	}}}
	if diff := cmp.Diff(want, read(exponential), protocmp.Transform()); diff != "" {
		t.Errorf("exponential histograms' metrics read back (-want +got):\n%s", diff)
	}
}

// TestHandMadeMetrics: delta sums and histograms, a negative gauge,
// exemplars with and without a span, an exponential histogram of a
// negative scale and offset, a point that counted nothing (no min or
// max), and the schema URLs.
func TestHandMadeMetrics(t *testing.T) {
	t.Parallel()
	at, from := time.Unix(1700000000, 0), time.Unix(1699999940, 0)
	tid := trace.TraceID{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}
	sid := trace.SpanID{1, 2, 3, 4, 5, 6, 7, 8}
	tool := attribute.NewSet(attribute.String("tool", "t"))
	c := metrics.Collection{
		Scope: metrics.Scope{Name: "s", SchemaURL: "https://schema/s"},
		Metrics: []metrics.Metric{
			{Name: "calls", Kind: metrics.KindCounter, Temporality: metrics.Delta, Points: []metrics.Point{
				{Attributes: tool, Start: from, Time: at, Value: 2},
			}},
			{Name: "cpu", Kind: metrics.KindObservableCounter, Temporality: metrics.Delta, Points: []metrics.Point{
				{Start: from, Time: at, Value: 5},
			}},
			{Name: "temperature", Unit: "Cel", Description: "Outside.", Kind: metrics.KindObservableGauge, Points: []metrics.Point{
				{Start: from, Time: at, Value: -3},
			}},
			{Name: "hist", Kind: metrics.KindHistogram, Temporality: metrics.Delta, Histograms: []metrics.HistogramPoint{
				{Attributes: tool, Start: from, Time: at, Count: 2, Sum: 1.5, Min: 0.5, Max: 1, Bounds: []float64{1}, BucketCounts: []uint64{2, 0},
					Exemplars: []metrics.Exemplar{{Time: at, Value: 0.5, TraceID: tid, SpanID: sid}, {Time: at, Value: 1}}},
				{Start: from, Time: at, Bounds: []float64{1}, BucketCounts: []uint64{0, 0}},
			}},
			{Name: "exp", Kind: metrics.KindHistogram, Temporality: metrics.Delta, ExpHistograms: []metrics.ExpHistogramPoint{{
				Start: from, Time: at, Count: 4, Sum: 90, Min: -10, Max: 100, Scale: -1, ZeroCount: 0,
				Positive:  metrics.ExpBuckets{Offset: 1, Counts: []uint64{1, 0, 2}},
				Negative:  metrics.ExpBuckets{Offset: -2, Counts: []uint64{1}},
				Exemplars: []metrics.Exemplar{{Time: at, Value: 100, TraceID: tid, SpanID: sid}},
			}}},
		},
	}
	var got colmetricpb.ExportMetricsServiceRequest
	res := otlp.Resource{Attributes: svc.Attributes, SchemaURL: "https://schema/r"}
	if err := proto.Unmarshal(otlp.MetricsRequest(res, c), &got); err != nil {
		t.Fatal(err)
	}
	delta := metricpb.AggregationTemporality_AGGREGATION_TEMPORALITY_DELTA
	hsum, hmin, hmax, zero := 1.5, 0.5, 1.0, 0.0
	esum, emin, emax := 90.0, -10.0, 100.0
	want := &colmetricpb.ExportMetricsServiceRequest{ResourceMetrics: []*metricpb.ResourceMetrics{{
		Resource:  &resourcepb.Resource{Attributes: []*commonpb.KeyValue{kv("service.name", str("svc"))}},
		SchemaUrl: "https://schema/r",
		ScopeMetrics: []*metricpb.ScopeMetrics{{
			Scope: &commonpb.InstrumentationScope{Name: "s"}, SchemaUrl: "https://schema/s",
			Metrics: []*metricpb.Metric{
				{Name: "calls", Data: &metricpb.Metric_Sum{Sum: &metricpb.Sum{
					AggregationTemporality: delta, IsMonotonic: true,
					DataPoints: []*metricpb.NumberDataPoint{{
						StartTimeUnixNano: nanos(from), TimeUnixNano: nanos(at), Value: &metricpb.NumberDataPoint_AsInt{AsInt: 2},
						Attributes: []*commonpb.KeyValue{kv("tool", str("t"))},
					}},
				}}},
				{Name: "cpu", Data: &metricpb.Metric_Sum{Sum: &metricpb.Sum{
					AggregationTemporality: delta, IsMonotonic: true,
					DataPoints: []*metricpb.NumberDataPoint{{
						StartTimeUnixNano: nanos(from), TimeUnixNano: nanos(at), Value: &metricpb.NumberDataPoint_AsInt{AsInt: 5},
					}},
				}}},
				{Name: "temperature", Unit: "Cel", Description: "Outside.", Data: &metricpb.Metric_Gauge{Gauge: &metricpb.Gauge{
					DataPoints: []*metricpb.NumberDataPoint{{
						StartTimeUnixNano: nanos(from), TimeUnixNano: nanos(at), Value: &metricpb.NumberDataPoint_AsInt{AsInt: -3},
					}},
				}}},
				{Name: "hist", Data: &metricpb.Metric_Histogram{Histogram: &metricpb.Histogram{
					AggregationTemporality: delta,
					DataPoints: []*metricpb.HistogramDataPoint{{
						StartTimeUnixNano: nanos(from), TimeUnixNano: nanos(at), Count: 2, Sum: &hsum, Min: &hmin, Max: &hmax,
						ExplicitBounds: []float64{1}, BucketCounts: []uint64{2, 0}, Attributes: []*commonpb.KeyValue{kv("tool", str("t"))},
						Exemplars: []*metricpb.Exemplar{
							{TimeUnixNano: nanos(at), Value: &metricpb.Exemplar_AsDouble{AsDouble: 0.5}, SpanId: sid[:], TraceId: tid[:]},
							{TimeUnixNano: nanos(at), Value: &metricpb.Exemplar_AsDouble{AsDouble: 1}},
						},
					}, {
						StartTimeUnixNano: nanos(from), TimeUnixNano: nanos(at), Sum: &zero, ExplicitBounds: []float64{1}, BucketCounts: []uint64{0, 0},
					}},
				}}},
				{Name: "exp", Data: &metricpb.Metric_ExponentialHistogram{ExponentialHistogram: &metricpb.ExponentialHistogram{
					AggregationTemporality: delta,
					DataPoints: []*metricpb.ExponentialHistogramDataPoint{{
						StartTimeUnixNano: nanos(from), TimeUnixNano: nanos(at), Count: 4, Sum: &esum, Min: &emin, Max: &emax, Scale: -1,
						Positive:  &metricpb.ExponentialHistogramDataPoint_Buckets{Offset: 1, BucketCounts: []uint64{1, 0, 2}},
						Negative:  &metricpb.ExponentialHistogramDataPoint_Buckets{Offset: -2, BucketCounts: []uint64{1}},
						Exemplars: []*metricpb.Exemplar{{TimeUnixNano: nanos(at), Value: &metricpb.Exemplar_AsDouble{AsDouble: 100}, SpanId: sid[:], TraceId: tid[:]}},
					}},
				}}},
			},
		}},
	}}}
	if diff := cmp.Diff(want, &got, protocmp.Transform()); diff != "" {
		t.Errorf("request read back (-want +got):\n%s", diff)
	}
}

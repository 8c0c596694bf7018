package otlp_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	metricapi "go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	colmetricpb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	metricpb "go.opentelemetry.io/proto/otlp/metrics/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/testing/protocmp"

	"github.com/ramabana/ramabana-mcp/host/internal/telemetry/otlp"
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

// TestSpansAsTheGeneratedCodeReadsThem writes spans holding every kind of
// attribute value, an event, a link, an error status and a remote parent,
// in two scopes, and reads the request back with the OTLP project's
// generated types: each field must be where the protocol puts it.
func TestSpansAsTheGeneratedCodeReadsThem(t *testing.T) {
	t.Parallel()
	rec := tracetest.NewSpanRecorder()
	res := resource.NewSchemaless(attribute.String("service.name", "svc"))
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec), sdktrace.WithResource(res))
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
	_, span := tp.Tracer("scope-a", trace.WithInstrumentationVersion("v1"), trace.WithSchemaURL("https://schema/1"),
		trace.WithInstrumentationAttributes(attribute.String("sa", "x"))).Start(ctx, "tools/call view_file",
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

	spans := rec.Ended()
	var got coltracepb.ExportTraceServiceRequest
	if err := proto.Unmarshal(otlp.TracesRequest(spans), &got); err != nil {
		t.Fatal(err)
	}
	sid := spans[0].SpanContext().SpanID()
	sid2, tid2 := spans[1].SpanContext().SpanID(), spans[1].SpanContext().TraceID()
	want := &coltracepb.ExportTraceServiceRequest{ResourceSpans: []*tracepb.ResourceSpans{{
		Resource: &resourcepb.Resource{Attributes: []*commonpb.KeyValue{kv("service.name", str("svc"))}},
		ScopeSpans: []*tracepb.ScopeSpans{{
			Scope:     &commonpb.InstrumentationScope{Name: "scope-a", Version: "v1", Attributes: []*commonpb.KeyValue{kv("sa", str("x"))}},
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

// TestMetricsAsTheGeneratedCodeReadsThem collects every kind of metric the
// SDK's instruments make (integer and float sums, an up-down sum, a gauge,
// explicit and exponential histograms) and reads the request back with
// the generated types.
func TestMetricsAsTheGeneratedCodeReadsThem(t *testing.T) {
	t.Parallel()
	reader := sdkmetric.NewManualReader()
	res := resource.NewSchemaless(attribute.String("service.name", "svc"))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader), sdkmetric.WithResource(res),
		sdkmetric.WithView(sdkmetric.NewView(sdkmetric.Instrument{Name: "exp"},
			sdkmetric.Stream{Aggregation: sdkmetric.AggregationBase2ExponentialHistogram{MaxSize: 160, MaxScale: 20}})))
	m := mp.Meter("scope")
	ctx := context.Background()
	attrs := attribute.NewSet(attribute.String("tool", "view_file"))
	ic, _ := m.Int64Counter("calls", metricapi.WithUnit("{call}"), metricapi.WithDescription("Calls."))
	ic.Add(ctx, 3, metricapi.WithAttributeSet(attrs))
	fc, _ := m.Float64Counter("seconds")
	fc.Add(ctx, 1.5)
	ud, _ := m.Int64UpDownCounter("inflight")
	ud.Add(ctx, -2)
	g, _ := m.Int64Gauge("up")
	g.Record(ctx, 1)
	h, _ := m.Float64Histogram("duration", metricapi.WithExplicitBucketBoundaries(0.1, 1))
	h.Record(ctx, 0.05)
	h.Record(ctx, 2)
	e, _ := m.Float64Histogram("exp")
	e.Record(ctx, 4)
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(ctx, &rm); err != nil {
		t.Fatal(err)
	}
	var got colmetricpb.ExportMetricsServiceRequest
	body, left := otlp.MetricsRequest(&rm)
	if len(left) > 0 {
		t.Errorf("left out: %q", left)
	}
	if err := proto.Unmarshal(body, &got); err != nil {
		t.Fatal(err)
	}
	// Times come from the SDK: checked present, then left out of the
	// comparison.
	byName := map[string]*metricpb.Metric{}
	for _, m := range got.GetResourceMetrics()[0].GetScopeMetrics()[0].GetMetrics() {
		byName[m.GetName()] = m
	}
	if p := byName["calls"].GetSum().GetDataPoints(); len(p) != 1 || p[0].GetTimeUnixNano() == 0 || p[0].GetStartTimeUnixNano() == 0 {
		t.Fatalf("calls' points %v: want one, with its times", p)
	}
	cum := metricpb.AggregationTemporality_AGGREGATION_TEMPORALITY_CUMULATIVE
	sum, minimum, maximum := 2.05, 0.05, 2.0
	four := 4.0
	want := map[string]*metricpb.Metric{
		"calls": {Name: "calls", Unit: "{call}", Description: "Calls.", Data: &metricpb.Metric_Sum{Sum: &metricpb.Sum{
			AggregationTemporality: cum, IsMonotonic: true,
			DataPoints: []*metricpb.NumberDataPoint{{Value: &metricpb.NumberDataPoint_AsInt{AsInt: 3}, Attributes: []*commonpb.KeyValue{kv("tool", str("view_file"))}}},
		}}},
		"seconds": {Name: "seconds", Data: &metricpb.Metric_Sum{Sum: &metricpb.Sum{
			AggregationTemporality: cum, IsMonotonic: true,
			DataPoints: []*metricpb.NumberDataPoint{{Value: &metricpb.NumberDataPoint_AsDouble{AsDouble: 1.5}}},
		}}},
		"inflight": {Name: "inflight", Data: &metricpb.Metric_Sum{Sum: &metricpb.Sum{
			AggregationTemporality: cum,
			DataPoints:             []*metricpb.NumberDataPoint{{Value: &metricpb.NumberDataPoint_AsInt{AsInt: -2}}},
		}}},
		"up": {Name: "up", Data: &metricpb.Metric_Gauge{Gauge: &metricpb.Gauge{
			DataPoints: []*metricpb.NumberDataPoint{{Value: &metricpb.NumberDataPoint_AsInt{AsInt: 1}}},
		}}},
		"duration": {Name: "duration", Data: &metricpb.Metric_Histogram{Histogram: &metricpb.Histogram{
			AggregationTemporality: cum,
			DataPoints: []*metricpb.HistogramDataPoint{{
				Count: 2, Sum: &sum, Min: &minimum, Max: &maximum, ExplicitBounds: []float64{0.1, 1}, BucketCounts: []uint64{1, 0, 1},
			}},
		}}},
		"exp": {Name: "exp", Data: &metricpb.Metric_ExponentialHistogram{ExponentialHistogram: &metricpb.ExponentialHistogram{
			AggregationTemporality: cum,
			DataPoints: []*metricpb.ExponentialHistogramDataPoint{{
				Count: 1, Sum: &four, Min: &four, Max: &four, Scale: 20,
				Positive: &metricpb.ExponentialHistogramDataPoint_Buckets{Offset: 2097151, BucketCounts: []uint64{1}},
				Negative: &metricpb.ExponentialHistogramDataPoint_Buckets{},
			}},
		}}},
	}
	ignoreTimes := protocmp.IgnoreFields(&metricpb.NumberDataPoint{}, "time_unix_nano", "start_time_unix_nano")
	ignoreHistTimes := protocmp.IgnoreFields(&metricpb.HistogramDataPoint{}, "time_unix_nano", "start_time_unix_nano")
	ignoreExpTimes := protocmp.IgnoreFields(&metricpb.ExponentialHistogramDataPoint{}, "time_unix_nano", "start_time_unix_nano")
	if diff := cmp.Diff(want, byName, protocmp.Transform(), ignoreTimes, ignoreHistTimes, ignoreExpTimes); diff != "" {
		t.Errorf("metrics read back (-want +got):\n%s", diff)
	}
	wantRes := &resourcepb.Resource{Attributes: []*commonpb.KeyValue{kv("service.name", str("svc"))}}
	if diff := cmp.Diff(wantRes, got.GetResourceMetrics()[0].GetResource(), protocmp.Transform()); diff != "" {
		t.Errorf("resource (-want +got):\n%s", diff)
	}
	if s := got.GetResourceMetrics()[0].GetScopeMetrics()[0].GetScope().GetName(); s != "scope" {
		t.Errorf("scope %q", s)
	}
}

// TestHandMadeMetrics: a summary, a histogram's exemplars, and a sum of no
// temporality, which is left out and named, not written as one a
// collector cannot read.
func TestHandMadeMetrics(t *testing.T) {
	t.Parallel()
	at := time.Unix(1700000000, 0)
	ex := []metricdata.Exemplar[float64]{{
		FilteredAttributes: []attribute.KeyValue{attribute.String("f", "v")}, Time: at, Value: 0.5,
		SpanID: []byte{1, 2, 3, 4, 5, 6, 7, 8}, TraceID: []byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16},
	}}
	rm := &metricdata.ResourceMetrics{
		Resource: resource.NewWithAttributes("https://schema/r", attribute.String("service.name", "svc")),
		ScopeMetrics: []metricdata.ScopeMetrics{{
			Scope: instrumentation.Scope{Name: "s", SchemaURL: "https://schema/s"},
			Metrics: []metricdata.Metrics{
				{Name: "summary", Data: metricdata.Summary{DataPoints: []metricdata.SummaryDataPoint{{
					Time: at, Count: 4, Sum: 10, QuantileValues: []metricdata.QuantileValue{{Quantile: 0.5, Value: 2}, {Quantile: 1, Value: 5}},
				}}}},
				{Name: "undefined", Data: metricdata.Sum[int64]{DataPoints: []metricdata.DataPoint[int64]{{Time: at, Value: 1}}}},
				{Name: "hist", Data: metricdata.Histogram[float64]{Temporality: metricdata.DeltaTemporality, DataPoints: []metricdata.HistogramDataPoint[float64]{{
					Time: at, Count: 1, Sum: 0.5, Bounds: []float64{1}, BucketCounts: []uint64{1, 0}, Exemplars: ex,
				}}}},
			},
		}},
	}
	body, left := otlp.MetricsRequest(rm)
	if len(left) != 1 || left[0] != "undefined" {
		t.Errorf("left out %q, want [undefined]", left)
	}
	var got colmetricpb.ExportMetricsServiceRequest
	if err := proto.Unmarshal(body, &got); err != nil {
		t.Fatal(err)
	}
	sum, half := 0.5, 0.5
	want := &colmetricpb.ExportMetricsServiceRequest{ResourceMetrics: []*metricpb.ResourceMetrics{{
		Resource:  &resourcepb.Resource{Attributes: []*commonpb.KeyValue{kv("service.name", str("svc"))}},
		SchemaUrl: "https://schema/r",
		ScopeMetrics: []*metricpb.ScopeMetrics{{
			Scope: &commonpb.InstrumentationScope{Name: "s"}, SchemaUrl: "https://schema/s",
			Metrics: []*metricpb.Metric{
				{Name: "summary", Data: &metricpb.Metric_Summary{Summary: &metricpb.Summary{DataPoints: []*metricpb.SummaryDataPoint{{
					TimeUnixNano: nanos(at), Count: 4, Sum: 10,
					QuantileValues: []*metricpb.SummaryDataPoint_ValueAtQuantile{{Quantile: 0.5, Value: 2}, {Quantile: 1, Value: 5}},
				}}}}},
				{Name: "hist", Data: &metricpb.Metric_Histogram{Histogram: &metricpb.Histogram{
					AggregationTemporality: metricpb.AggregationTemporality_AGGREGATION_TEMPORALITY_DELTA,
					DataPoints: []*metricpb.HistogramDataPoint{{
						TimeUnixNano: nanos(at), Count: 1, Sum: &sum, ExplicitBounds: []float64{1}, BucketCounts: []uint64{1, 0},
						Exemplars: []*metricpb.Exemplar{{
							FilteredAttributes: []*commonpb.KeyValue{kv("f", str("v"))}, TimeUnixNano: nanos(at),
							Value: &metricpb.Exemplar_AsDouble{AsDouble: half}, SpanId: ex[0].SpanID, TraceId: ex[0].TraceID,
						}},
					}},
				}}},
			},
		}},
	}}}
	if diff := cmp.Diff(want, &got, protocmp.Transform()); diff != "" {
		t.Errorf("request read back (-want +got):\n%s", diff)
	}
}

// TestEqualResourcesAreOne: spans of two providers whose resources hold
// the same go out under one resource.
func TestEqualResourcesAreOne(t *testing.T) {
	t.Parallel()
	rec := tracetest.NewSpanRecorder()
	for range 2 {
		res := resource.NewSchemaless(attribute.String("service.name", "svc"))
		tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec), sdktrace.WithResource(res))
		_, s := tp.Tracer("t").Start(context.Background(), "s")
		s.End()
	}
	var got coltracepb.ExportTraceServiceRequest
	if err := proto.Unmarshal(otlp.TracesRequest(rec.Ended()), &got); err != nil {
		t.Fatal(err)
	}
	if rs := got.GetResourceSpans(); len(rs) != 1 || len(rs[0].GetScopeSpans()) != 1 || len(rs[0].GetScopeSpans()[0].GetSpans()) != 2 {
		t.Errorf("want one resource, one scope, two spans: %v", rs)
	}
}

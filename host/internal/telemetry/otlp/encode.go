package otlp

import (
	"math"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/protobuf/encoding/protowire"
)

// The messages are written field by field with protowire, after
// opentelemetry-proto's .proto files (collector/trace/v1, collector/metrics/v1
// and the trace, metrics, common and resource messages they hold), so that
// the server links no generated OTLP code. Field numbers are those files';
// the tests decode what is written with the generated types.

// message appends field num holding the message body writes.
func message(b []byte, num protowire.Number, body func([]byte) []byte) []byte {
	return bytesField(b, num, body(nil))
}

func bytesField(b []byte, num protowire.Number, v []byte) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendBytes(b, v)
}

func stringField(b []byte, num protowire.Number, v string) []byte {
	if v == "" {
		return b
	}
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendString(b, v)
}

func varintField(b []byte, num protowire.Number, v uint64) []byte {
	if v == 0 {
		return b
	}
	b = protowire.AppendTag(b, num, protowire.VarintType)
	return protowire.AppendVarint(b, v)
}

func fixed64Field(b []byte, num protowire.Number, v uint64) []byte {
	if v == 0 {
		return b
	}
	b = protowire.AppendTag(b, num, protowire.Fixed64Type)
	return protowire.AppendFixed64(b, v)
}

// fixed64Always appends v even when zero: a oneof member or an optional
// field, whose presence says something.
func fixed64Always(b []byte, num protowire.Number, v uint64) []byte {
	b = protowire.AppendTag(b, num, protowire.Fixed64Type)
	return protowire.AppendFixed64(b, v)
}

func fixed32Field(b []byte, num protowire.Number, v uint32) []byte {
	if v == 0 {
		return b
	}
	b = protowire.AppendTag(b, num, protowire.Fixed32Type)
	return protowire.AppendFixed32(b, v)
}

func unixNano(t interface{ UnixNano() int64 }) uint64 {
	return uint64(max(0, t.UnixNano())) //nolint:gosec // not negative
}

func clamp32(n int) uint64 {
	return uint64(min(max(n, 0), math.MaxUint32)) //nolint:gosec // clamped
}

// anyValue is an AnyValue's body.
func anyValue(b []byte, v attribute.Value) []byte {
	switch v.Type() {
	case attribute.BOOL:
		b = protowire.AppendTag(b, 2, protowire.VarintType)
		return protowire.AppendVarint(b, protowire.EncodeBool(v.AsBool()))
	case attribute.INT64:
		b = protowire.AppendTag(b, 3, protowire.VarintType)
		return protowire.AppendVarint(b, uint64(v.AsInt64())) //nolint:gosec // two's complement, as protobuf's int64
	case attribute.FLOAT64:
		return fixed64Always(b, 4, math.Float64bits(v.AsFloat64()))
	case attribute.STRING:
		b = protowire.AppendTag(b, 1, protowire.BytesType)
		return protowire.AppendString(b, v.AsString())
	case attribute.BYTESLICE:
		return bytesField(b, 7, v.AsByteSlice())
	case attribute.BOOLSLICE:
		return array(b, v.AsBoolSlice(), attribute.BoolValue)
	case attribute.INT64SLICE:
		return array(b, v.AsInt64Slice(), attribute.Int64Value)
	case attribute.FLOAT64SLICE:
		return array(b, v.AsFloat64Slice(), attribute.Float64Value)
	case attribute.STRINGSLICE:
		return array(b, v.AsStringSlice(), attribute.StringValue)
	case attribute.SLICE:
		return array(b, v.AsSlice(), func(v attribute.Value) attribute.Value { return v })
	case attribute.MAP:
		return message(b, 6, func(b []byte) []byte { return keyValues(b, 1, v.AsMap()) })
	case attribute.EMPTY:
		return b // an AnyValue with no value
	default:
		b = protowire.AppendTag(b, 1, protowire.BytesType)
		return protowire.AppendString(b, "INVALID")
	}
}

// array appends an ArrayValue (AnyValue field 5) of vs.
func array[T any](b []byte, vs []T, value func(T) attribute.Value) []byte {
	return message(b, 5, func(b []byte) []byte {
		for _, v := range vs {
			b = message(b, 1, func(b []byte) []byte { return anyValue(b, value(v)) })
		}
		return b
	})
}

// keyValues appends each of kvs as a KeyValue in field num.
func keyValues(b []byte, num protowire.Number, kvs []attribute.KeyValue) []byte {
	for _, kv := range kvs {
		b = message(b, num, func(b []byte) []byte {
			b = stringField(b, 1, string(kv.Key))
			return message(b, 2, func(b []byte) []byte { return anyValue(b, kv.Value) })
		})
	}
	return b
}

func resourceBody(b []byte, res *resource.Resource) []byte {
	return keyValues(b, 1, res.Attributes())
}

func scopeBody(b []byte, s instrumentation.Scope) []byte {
	b = stringField(b, 1, s.Name)
	b = stringField(b, 2, s.Version)
	return keyValues(b, 3, s.Attributes.ToSlice())
}

// Span flags (trace/v1 SpanFlags): the W3C trace flags in the low byte,
// and whether the parent is known to be remote, and is.
const (
	flagHasIsRemote = 0x100
	flagIsRemote    = 0x200
)

func spanFlags(tf trace.TraceFlags, parent trace.SpanContext) uint32 {
	f := uint32(tf) | flagHasIsRemote
	if parent.IsRemote() {
		f |= flagIsRemote
	}
	return f
}

// statusCode is trace/v1 Status.StatusCode, whose numbers are not codes'.
func statusCode(c codes.Code) uint64 {
	switch c {
	case codes.Ok:
		return 1
	case codes.Error:
		return 2
	default:
		return 0
	}
}

// TracesRequest is an ExportTraceServiceRequest holding spans, grouped by
// resource and instrumentation scope as they come.
func TracesRequest(spans []sdktrace.ReadOnlySpan) []byte {
	// Resources are told apart by what they hold, not where they are.
	type resKey = attribute.Distinct
	type scopeKey struct {
		res   resKey
		scope instrumentation.Scope
	}
	var resources []*resource.Resource
	scopes := map[resKey][]instrumentation.Scope{}
	byScope := map[scopeKey][]sdktrace.ReadOnlySpan{}
	for _, s := range spans {
		if s == nil {
			continue
		}
		res, sc := s.Resource(), s.InstrumentationScope()
		rk := res.Equivalent()
		if _, ok := scopes[rk]; !ok {
			resources = append(resources, res)
			scopes[rk] = nil
		}
		k := scopeKey{rk, sc}
		if _, ok := byScope[k]; !ok {
			scopes[rk] = append(scopes[rk], sc)
		}
		byScope[k] = append(byScope[k], s)
	}
	var b []byte
	for _, res := range resources {
		rk := res.Equivalent()
		b = message(b, 1, func(b []byte) []byte { // ResourceSpans
			b = message(b, 1, func(b []byte) []byte { return resourceBody(b, res) })
			for _, sc := range scopes[rk] {
				b = message(b, 2, func(b []byte) []byte { // ScopeSpans
					b = message(b, 1, func(b []byte) []byte { return scopeBody(b, sc) })
					for _, s := range byScope[scopeKey{rk, sc}] {
						b = message(b, 2, func(b []byte) []byte { return spanBody(b, s) })
					}
					return stringField(b, 3, sc.SchemaURL)
				})
			}
			return stringField(b, 3, res.SchemaURL())
		})
	}
	return b
}

func spanBody(b []byte, s sdktrace.ReadOnlySpan) []byte {
	sc := s.SpanContext()
	tid, sid := sc.TraceID(), sc.SpanID()
	b = bytesField(b, 1, tid[:])
	b = bytesField(b, 2, sid[:])
	b = stringField(b, 3, sc.TraceState().String())
	parent := s.Parent()
	if psid := parent.SpanID(); psid.IsValid() {
		b = bytesField(b, 4, psid[:])
	}
	b = stringField(b, 5, s.Name())
	b = varintField(b, 6, uint64(s.SpanKind()))
	b = fixed64Field(b, 7, unixNano(s.StartTime()))
	b = fixed64Field(b, 8, unixNano(s.EndTime()))
	b = keyValues(b, 9, s.Attributes())
	b = varintField(b, 10, clamp32(s.DroppedAttributes()))
	for _, e := range s.Events() {
		b = message(b, 11, func(b []byte) []byte {
			b = fixed64Field(b, 1, unixNano(e.Time))
			b = stringField(b, 2, e.Name)
			b = keyValues(b, 3, e.Attributes)
			return varintField(b, 4, clamp32(e.DroppedAttributeCount))
		})
	}
	b = varintField(b, 12, clamp32(s.DroppedEvents()))
	for _, l := range s.Links() {
		b = message(b, 13, func(b []byte) []byte {
			tid, sid := l.SpanContext.TraceID(), l.SpanContext.SpanID()
			b = bytesField(b, 1, tid[:])
			b = bytesField(b, 2, sid[:])
			b = stringField(b, 3, l.SpanContext.TraceState().String())
			b = keyValues(b, 4, l.Attributes)
			b = varintField(b, 5, clamp32(l.DroppedAttributeCount))
			return fixed32Field(b, 6, spanFlags(l.SpanContext.TraceFlags(), l.SpanContext))
		})
	}
	b = varintField(b, 14, clamp32(s.DroppedLinks()))
	st := s.Status()
	b = message(b, 15, func(b []byte) []byte {
		b = stringField(b, 2, st.Description)
		return varintField(b, 3, statusCode(st.Code))
	})
	return fixed32Field(b, 16, spanFlags(sc.TraceFlags(), parent))
}

// temporality is metrics/v1 AggregationTemporality, whose numbers are not
// metricdata's.
func temporality(t metricdata.Temporality) uint64 {
	switch t {
	case metricdata.DeltaTemporality:
		return 1
	case metricdata.CumulativeTemporality:
		return 2
	default:
		return 0
	}
}

// MetricsRequest is an ExportMetricsServiceRequest holding rm, and the
// metrics it left out: one of an aggregation it does not know, or a sum or
// histogram of no temporality, which a collector could not read.
func MetricsRequest(rm *metricdata.ResourceMetrics) ([]byte, []string) {
	var left []string
	return message(nil, 1, func(b []byte) []byte { // ResourceMetrics
		if rm.Resource != nil {
			b = message(b, 1, func(b []byte) []byte { return resourceBody(b, rm.Resource) })
		}
		for _, sm := range rm.ScopeMetrics {
			b = message(b, 2, func(b []byte) []byte { // ScopeMetrics
				b = message(b, 1, func(b []byte) []byte { return scopeBody(b, sm.Scope) })
				for _, m := range sm.Metrics {
					body := metricData(m.Data)
					if body == nil {
						left = append(left, m.Name)
						continue
					}
					b = message(b, 2, func(b []byte) []byte {
						b = stringField(b, 1, m.Name)
						b = stringField(b, 2, m.Description)
						b = stringField(b, 3, m.Unit)
						return append(b, body...)
					})
				}
				return stringField(b, 3, sm.Scope.SchemaURL)
			})
		}
		if rm.Resource != nil {
			b = stringField(b, 3, rm.Resource.SchemaURL())
		}
		return b
	}), left
}

// metricData is a Metric's data field (its oneof), nil for an aggregation
// it does not know or a temporality it cannot write.
func metricData(d metricdata.Aggregation) []byte {
	switch d := d.(type) {
	case metricdata.Summary:
		return message(nil, 11, func(b []byte) []byte { return summaryBody(b, d) })
	case metricdata.Gauge[int64]:
		return message(nil, 5, func(b []byte) []byte { return numberPoints(b, d.DataPoints) })
	case metricdata.Gauge[float64]:
		return message(nil, 5, func(b []byte) []byte { return numberPoints(b, d.DataPoints) })
	case metricdata.Sum[int64]:
		return temporal(7, d.Temporality, func(b []byte) []byte { return sumBody(b, d) })
	case metricdata.Sum[float64]:
		return temporal(7, d.Temporality, func(b []byte) []byte { return sumBody(b, d) })
	case metricdata.Histogram[int64]:
		return temporal(9, d.Temporality, func(b []byte) []byte { return histogramBody(b, d) })
	case metricdata.Histogram[float64]:
		return temporal(9, d.Temporality, func(b []byte) []byte { return histogramBody(b, d) })
	case metricdata.ExponentialHistogram[int64]:
		return temporal(10, d.Temporality, func(b []byte) []byte { return expHistogramBody(b, d) })
	case metricdata.ExponentialHistogram[float64]:
		return temporal(10, d.Temporality, func(b []byte) []byte { return expHistogramBody(b, d) })
	default:
		return nil
	}
}

// temporal is field num holding body, an aggregation of temporality t:
// nil when t has no number in OTLP, which a collector could not read.
func temporal(num protowire.Number, t metricdata.Temporality, body func([]byte) []byte) []byte {
	if temporality(t) == 0 {
		return nil
	}
	return message(nil, num, body)
}

func summaryBody(b []byte, s metricdata.Summary) []byte {
	for _, p := range s.DataPoints {
		b = message(b, 1, func(b []byte) []byte {
			b = fixed64Field(b, 2, unixNano(p.StartTime))
			b = fixed64Field(b, 3, unixNano(p.Time))
			b = fixed64Field(b, 4, p.Count)
			b = fixed64Field(b, 5, math.Float64bits(p.Sum))
			for _, q := range p.QuantileValues {
				b = message(b, 6, func(b []byte) []byte {
					b = fixed64Field(b, 1, math.Float64bits(q.Quantile))
					return fixed64Field(b, 2, math.Float64bits(q.Value))
				})
			}
			return keyValues(b, 7, p.Attributes.ToSlice())
		})
	}
	return b
}

func sumBody[N int64 | float64](b []byte, s metricdata.Sum[N]) []byte {
	b = numberPoints(b, s.DataPoints)
	b = varintField(b, 2, temporality(s.Temporality))
	if s.IsMonotonic {
		b = protowire.AppendTag(b, 3, protowire.VarintType)
		b = protowire.AppendVarint(b, 1)
	}
	return b
}

// number is n as a oneof member of a NumberDataPoint or an Exemplar:
// as_double (field double) or as_int (field integer), both 64-bit fixed.
func number[N int64 | float64](b []byte, double, integer protowire.Number, n N) []byte {
	switch v := any(n).(type) {
	case int64:
		return fixed64Always(b, integer, uint64(v)) //nolint:gosec // sfixed64
	case float64:
		return fixed64Always(b, double, math.Float64bits(v))
	}
	return b
}

func numberPoints[N int64 | float64](b []byte, points []metricdata.DataPoint[N]) []byte {
	for _, p := range points {
		b = message(b, 1, func(b []byte) []byte {
			b = fixed64Field(b, 2, unixNano(p.StartTime))
			b = fixed64Field(b, 3, unixNano(p.Time))
			b = number(b, 4, 6, p.Value)
			b = exemplars(b, 5, p.Exemplars)
			return keyValues(b, 7, p.Attributes.ToSlice())
		})
	}
	return b
}

func exemplars[N int64 | float64](b []byte, num protowire.Number, es []metricdata.Exemplar[N]) []byte {
	for _, e := range es {
		b = message(b, num, func(b []byte) []byte {
			b = fixed64Field(b, 2, unixNano(e.Time))
			b = number(b, 3, 6, e.Value)
			if len(e.SpanID) > 0 {
				b = bytesField(b, 4, e.SpanID)
			}
			if len(e.TraceID) > 0 {
				b = bytesField(b, 5, e.TraceID)
			}
			return keyValues(b, 7, e.FilteredAttributes)
		})
	}
	return b
}

func float(n any) float64 {
	switch v := n.(type) {
	case int64:
		return float64(v)
	case float64:
		return v
	}
	return 0
}

func histogramBody[N int64 | float64](b []byte, h metricdata.Histogram[N]) []byte {
	for _, p := range h.DataPoints {
		b = message(b, 1, func(b []byte) []byte {
			b = fixed64Field(b, 2, unixNano(p.StartTime))
			b = fixed64Field(b, 3, unixNano(p.Time))
			b = fixed64Field(b, 4, p.Count)
			b = fixed64Always(b, 5, math.Float64bits(float(p.Sum)))
			if len(p.BucketCounts) > 0 {
				b = protowire.AppendTag(b, 6, protowire.BytesType)
				b = protowire.AppendVarint(b, uint64(8*len(p.BucketCounts)))
				for _, c := range p.BucketCounts {
					b = protowire.AppendFixed64(b, c)
				}
			}
			if len(p.Bounds) > 0 {
				b = protowire.AppendTag(b, 7, protowire.BytesType)
				b = protowire.AppendVarint(b, uint64(8*len(p.Bounds)))
				for _, f := range p.Bounds {
					b = protowire.AppendFixed64(b, math.Float64bits(f))
				}
			}
			b = exemplars(b, 8, p.Exemplars)
			b = keyValues(b, 9, p.Attributes.ToSlice())
			if v, ok := p.Min.Value(); ok {
				b = fixed64Always(b, 11, math.Float64bits(float(v)))
			}
			if v, ok := p.Max.Value(); ok {
				b = fixed64Always(b, 12, math.Float64bits(float(v)))
			}
			return b
		})
	}
	return varintField(b, 2, temporality(h.Temporality))
}

func expBuckets(b []byte, num protowire.Number, eb metricdata.ExponentialBucket) []byte {
	return message(b, num, func(b []byte) []byte {
		if eb.Offset != 0 {
			b = protowire.AppendTag(b, 1, protowire.VarintType)
			b = protowire.AppendVarint(b, protowire.EncodeZigZag(int64(eb.Offset)))
		}
		if len(eb.Counts) > 0 {
			var packed []byte
			for _, c := range eb.Counts {
				packed = protowire.AppendVarint(packed, c)
			}
			b = bytesField(b, 2, packed)
		}
		return b
	})
}

func expHistogramBody[N int64 | float64](b []byte, h metricdata.ExponentialHistogram[N]) []byte {
	for _, p := range h.DataPoints {
		b = message(b, 1, func(b []byte) []byte {
			b = keyValues(b, 1, p.Attributes.ToSlice())
			b = fixed64Field(b, 2, unixNano(p.StartTime))
			b = fixed64Field(b, 3, unixNano(p.Time))
			b = fixed64Field(b, 4, p.Count)
			b = fixed64Always(b, 5, math.Float64bits(float(p.Sum)))
			if p.Scale != 0 {
				b = protowire.AppendTag(b, 6, protowire.VarintType)
				b = protowire.AppendVarint(b, protowire.EncodeZigZag(int64(p.Scale)))
			}
			b = fixed64Field(b, 7, p.ZeroCount)
			b = expBuckets(b, 8, p.PositiveBucket)
			b = expBuckets(b, 9, p.NegativeBucket)
			b = exemplars(b, 11, p.Exemplars)
			if v, ok := p.Min.Value(); ok {
				b = fixed64Always(b, 12, math.Float64bits(float(v)))
			}
			if v, ok := p.Max.Value(); ok {
				b = fixed64Always(b, 13, math.Float64bits(float(v)))
			}
			return fixed64Field(b, 14, math.Float64bits(p.ZeroThreshold))
		})
	}
	return varintField(b, 2, temporality(h.Temporality))
}

// eachField calls f with each field of the message b in turn, its number,
// wire type and value (v for a varint, bs for a length-delimited field;
// neither for the others), until f returns false. It reports false when b
// is malformed, at the first field that is, after f saw those before it.
func eachField(b []byte, f func(num protowire.Number, typ protowire.Type, v uint64, bs []byte) bool) bool {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return false
		}
		b = b[n:]
		var v uint64
		var bs []byte
		switch typ {
		case protowire.VarintType:
			v, n = protowire.ConsumeVarint(b)
		case protowire.BytesType:
			bs, n = protowire.ConsumeBytes(b)
		default:
			n = protowire.ConsumeFieldValue(num, typ, b)
		}
		if n < 0 {
			return false
		}
		b = b[n:]
		if !f(num, typ, v, bs) {
			return true
		}
	}
	return true
}

// partialSuccess reads an Export*ServiceResponse: how many items the
// collector rejected (field 1 of its partial_success, field 1) and why
// (field 2).
func partialSuccess(resp []byte) (rejected int64, msg string) {
	eachField(resp, func(num protowire.Number, typ protowire.Type, _ uint64, ps []byte) bool {
		if num != 1 || typ != protowire.BytesType {
			return true
		}
		eachField(ps, func(num protowire.Number, typ protowire.Type, v uint64, s []byte) bool {
			switch {
			case num == 1 && typ == protowire.VarintType:
				rejected = int64(v) //nolint:gosec // protobuf int64
			case num == 2 && typ == protowire.BytesType:
				msg = string(s)
			}
			return true
		})
		return false
	})
	return rejected, msg
}

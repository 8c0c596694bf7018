package otlp

import (
	"math"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/ramabana/ramabana-mcp/host/internal/telemetry/metrics"
	"github.com/ramabana/ramabana-mcp/host/internal/telemetry/spans"
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

// Resource is the entity the telemetry is about: its attributes, and the
// schema URL they follow ("" for none).
type Resource struct {
	Attributes attribute.Set
	SchemaURL  string
}

func resourceMessage(b []byte, res Resource) []byte {
	return message(b, 1, func(b []byte) []byte { return keyValues(b, 1, res.Attributes.ToSlice()) })
}

func scopeMessage(b []byte, name, version string) []byte {
	return message(b, 1, func(b []byte) []byte {
		b = stringField(b, 1, name)
		return stringField(b, 2, version)
	})
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

// TracesRequest is an ExportTraceServiceRequest holding spans, of res,
// grouped by instrumentation scope in the order the scopes first come.
func TracesRequest(res Resource, ss []*spans.Data) []byte {
	var scopes []spans.Scope
	byScope := map[spans.Scope][]*spans.Data{}
	for _, s := range ss {
		if s == nil {
			continue
		}
		if _, ok := byScope[s.Scope]; !ok {
			scopes = append(scopes, s.Scope)
		}
		byScope[s.Scope] = append(byScope[s.Scope], s)
	}
	if len(scopes) == 0 {
		return nil
	}
	return message(nil, 1, func(b []byte) []byte { // ResourceSpans
		b = resourceMessage(b, res)
		for _, sc := range scopes {
			b = message(b, 2, func(b []byte) []byte { // ScopeSpans
				b = scopeMessage(b, sc.Name, sc.Version)
				for _, s := range byScope[sc] {
					b = message(b, 2, func(b []byte) []byte { return spanBody(b, s) })
				}
				return stringField(b, 3, sc.SchemaURL)
			})
		}
		return stringField(b, 3, res.SchemaURL)
	})
}

func spanBody(b []byte, s *spans.Data) []byte {
	sc := s.SpanContext
	tid, sid := sc.TraceID(), sc.SpanID()
	b = bytesField(b, 1, tid[:])
	b = bytesField(b, 2, sid[:])
	b = stringField(b, 3, sc.TraceState().String())
	if psid := s.Parent.SpanID(); psid.IsValid() {
		b = bytesField(b, 4, psid[:])
	}
	b = stringField(b, 5, s.Name)
	b = varintField(b, 6, uint64(s.Kind))
	b = fixed64Field(b, 7, unixNano(s.Start))
	b = fixed64Field(b, 8, unixNano(s.End))
	b = keyValues(b, 9, s.Attributes)
	b = varintField(b, 10, clamp32(s.DroppedAttributes))
	for _, e := range s.Events {
		b = message(b, 11, func(b []byte) []byte {
			b = fixed64Field(b, 1, unixNano(e.Time))
			b = stringField(b, 2, e.Name)
			b = keyValues(b, 3, e.Attributes)
			return varintField(b, 4, clamp32(e.DroppedAttributes))
		})
	}
	b = varintField(b, 12, clamp32(s.DroppedEvents))
	for _, l := range s.Links {
		b = message(b, 13, func(b []byte) []byte {
			tid, sid := l.SpanContext.TraceID(), l.SpanContext.SpanID()
			b = bytesField(b, 1, tid[:])
			b = bytesField(b, 2, sid[:])
			b = stringField(b, 3, l.SpanContext.TraceState().String())
			b = keyValues(b, 4, l.Attributes)
			b = varintField(b, 5, clamp32(l.DroppedAttributes))
			return fixed32Field(b, 6, spanFlags(l.SpanContext.TraceFlags(), l.SpanContext))
		})
	}
	b = varintField(b, 14, clamp32(s.DroppedLinks))
	b = message(b, 15, func(b []byte) []byte {
		b = stringField(b, 2, s.Status.Description)
		return varintField(b, 3, statusCode(s.Status.Code))
	})
	return fixed32Field(b, 16, spanFlags(sc.TraceFlags(), s.Parent))
}

// temporality is metrics/v1 AggregationTemporality, whose numbers are not
// package metrics'.
func temporality(t metrics.Temporality) uint64 {
	switch t {
	case metrics.Delta:
		return 1
	case metrics.Cumulative:
		return 2
	default:
		return 0
	}
}

// MetricsRequest is an ExportMetricsServiceRequest holding c, of res.
func MetricsRequest(res Resource, c metrics.Collection) []byte {
	return message(nil, 1, func(b []byte) []byte { // ResourceMetrics
		b = resourceMessage(b, res)
		b = message(b, 2, func(b []byte) []byte { // ScopeMetrics
			b = scopeMessage(b, c.Scope.Name, c.Scope.Version)
			for _, m := range c.Metrics {
				b = message(b, 2, func(b []byte) []byte {
					b = stringField(b, 1, m.Name)
					b = stringField(b, 2, m.Description)
					b = stringField(b, 3, m.Unit)
					return metricData(b, m)
				})
			}
			return stringField(b, 3, c.Scope.SchemaURL)
		})
		return stringField(b, 3, res.SchemaURL)
	})
}

// metricData appends a Metric's data field (its oneof).
func metricData(b []byte, m metrics.Metric) []byte {
	switch {
	case m.Kind == metrics.KindObservableGauge:
		return message(b, 5, func(b []byte) []byte { return numberPoints(b, m.Points) }) // Gauge
	case len(m.ExpHistograms) > 0:
		return message(b, 10, func(b []byte) []byte { return expHistogramBody(b, m) })
	case m.Kind == metrics.KindHistogram:
		return message(b, 9, func(b []byte) []byte { return histogramBody(b, m) })
	default: // a counter, observed or not: a monotonic Sum
		return message(b, 7, func(b []byte) []byte {
			b = numberPoints(b, m.Points)
			b = varintField(b, 2, temporality(m.Temporality))
			b = protowire.AppendTag(b, 3, protowire.VarintType)
			return protowire.AppendVarint(b, 1)
		})
	}
}

func numberPoints(b []byte, points []metrics.Point) []byte {
	for _, p := range points {
		b = message(b, 1, func(b []byte) []byte {
			b = fixed64Field(b, 2, unixNano(p.Start))
			b = fixed64Field(b, 3, unixNano(p.Time))
			b = fixed64Always(b, 6, uint64(p.Value)) //nolint:gosec // as_int, an sfixed64
			return keyValues(b, 7, p.Attributes.ToSlice())
		})
	}
	return b
}

func exemplars(b []byte, num protowire.Number, es []metrics.Exemplar) []byte {
	for _, e := range es {
		b = message(b, num, func(b []byte) []byte {
			b = fixed64Field(b, 2, unixNano(e.Time))
			b = fixed64Always(b, 3, math.Float64bits(e.Value)) // as_double
			if e.SpanID.IsValid() {
				b = bytesField(b, 4, e.SpanID[:])
			}
			if e.TraceID.IsValid() {
				b = bytesField(b, 5, e.TraceID[:])
			}
			return b
		})
	}
	return b
}

func histogramBody(b []byte, m metrics.Metric) []byte {
	for _, p := range m.Histograms {
		b = message(b, 1, func(b []byte) []byte {
			b = fixed64Field(b, 2, unixNano(p.Start))
			b = fixed64Field(b, 3, unixNano(p.Time))
			b = fixed64Field(b, 4, p.Count)
			b = fixed64Always(b, 5, math.Float64bits(p.Sum))
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
			if p.Count > 0 {
				b = fixed64Always(b, 11, math.Float64bits(p.Min))
				b = fixed64Always(b, 12, math.Float64bits(p.Max))
			}
			return b
		})
	}
	return varintField(b, 2, temporality(m.Temporality))
}

func expBuckets(b []byte, num protowire.Number, eb metrics.ExpBuckets) []byte {
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

func expHistogramBody(b []byte, m metrics.Metric) []byte {
	for _, p := range m.ExpHistograms {
		b = message(b, 1, func(b []byte) []byte {
			b = keyValues(b, 1, p.Attributes.ToSlice())
			b = fixed64Field(b, 2, unixNano(p.Start))
			b = fixed64Field(b, 3, unixNano(p.Time))
			b = fixed64Field(b, 4, p.Count)
			b = fixed64Always(b, 5, math.Float64bits(p.Sum))
			if p.Scale != 0 {
				b = protowire.AppendTag(b, 6, protowire.VarintType)
				b = protowire.AppendVarint(b, protowire.EncodeZigZag(int64(p.Scale)))
			}
			b = fixed64Field(b, 7, p.ZeroCount)
			b = expBuckets(b, 8, p.Positive)
			b = expBuckets(b, 9, p.Negative)
			b = exemplars(b, 11, p.Exemplars)
			if p.Count > 0 {
				b = fixed64Always(b, 12, math.Float64bits(p.Min))
				b = fixed64Always(b, 13, math.Float64bits(p.Max))
			}
			return b
		})
	}
	return varintField(b, 2, temporality(m.Temporality))
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

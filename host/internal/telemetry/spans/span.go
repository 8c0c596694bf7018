package spans

import (
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/embedded"
)

// Data is an ended span, as a Processor and an exporter see it. It is not
// changed after the span ends.
type Data struct {
	SpanContext trace.SpanContext
	Parent      trace.SpanContext // invalid for a trace's first span
	Name        string
	Kind        trace.SpanKind
	Start, End  time.Time
	Attributes  []attribute.KeyValue
	Events      []Event
	Links       []Link
	Status      Status
	Scope       Scope

	DroppedAttributes, DroppedEvents, DroppedLinks int
}

// Event is a span's event.
type Event struct {
	Name              string
	Time              time.Time
	Attributes        []attribute.KeyValue
	DroppedAttributes int
}

// Link is a span's link to another span.
type Link struct {
	SpanContext       trace.SpanContext
	Attributes        []attribute.KeyValue
	DroppedAttributes int
}

// Status is how a span ended.
type Status struct {
	Code        codes.Code
	Description string // only with codes.Error
}

// Scope is the instrumentation scope a tracer was asked for with.
type Scope struct {
	Name, Version, SchemaURL string
}

// A Processor gets each recorded span when it ends.
type Processor interface {
	// OnEnd gets an ended span; it must not block.
	OnEnd(*Data)
	// Shutdown hands on what is held; ctx bounds the wait.
	Shutdown(ctx context.Context) error
}

// Provider is a trace.TracerProvider recording sampled spans to its
// Processor. It is safe for concurrent use.
type Provider struct {
	embedded.TracerProvider
	sampler Sampler
	limits  Limits
	proc    Processor
	stopped atomic.Bool
}

// NewProvider makes a provider sampling and limiting spans as cfg says
// (cfg.Batch is the Batcher's) and handing them to proc.
func NewProvider(cfg Config, proc Processor) *Provider {
	return &Provider{sampler: cfg.Sampler, limits: cfg.Limits, proc: proc}
}

// Tracer is the tracer of the instrumentation scope name.
func (p *Provider) Tracer(name string, opts ...trace.TracerOption) trace.Tracer {
	c := trace.NewTracerConfig(opts...)
	return &tracer{p: p, scope: Scope{Name: name, Version: c.InstrumentationVersion(), SchemaURL: c.SchemaURL()}}
}

// Shutdown stops recording and shuts the processor down; ctx bounds the
// wait. Spans started after it are not recorded.
func (p *Provider) Shutdown(ctx context.Context) error {
	if p.stopped.Swap(true) {
		return nil
	}
	return p.proc.Shutdown(ctx)
}

type tracer struct {
	embedded.Tracer
	p     *Provider
	scope Scope
}

// Start starts a span, the child of ctx's span unless a new root is asked
// for.
func (t *tracer) Start(ctx context.Context, name string, opts ...trace.SpanStartOption) (context.Context, trace.Span) {
	cfg := trace.NewSpanStartConfig(opts...)
	parent := trace.SpanContextFromContext(ctx)
	if cfg.NewRoot() {
		parent = trace.SpanContext{}
	}
	tid := parent.TraceID()
	if !parent.IsValid() {
		tid = newTraceID()
	}
	sampled := t.p.sampler.sample(parent, tid) && !t.p.stopped.Load()
	sc := trace.NewSpanContext(trace.SpanContextConfig{
		TraceID: tid, SpanID: newSpanID(),
		TraceFlags: parent.TraceFlags().WithSampled(sampled),
		TraceState: parent.TraceState(),
	})
	if !sampled {
		u := &unrecorded{sc: sc, p: t.p}
		return trace.ContextWithSpan(ctx, u), u
	}
	start := cfg.Timestamp()
	if start.IsZero() {
		start = time.Now()
	}
	kind := cfg.SpanKind()
	if kind == trace.SpanKindUnspecified {
		kind = trace.SpanKindInternal
	}
	s := &span{p: t.p, d: Data{SpanContext: sc, Parent: parent, Name: name, Kind: kind, Start: start, Scope: t.scope}}
	s.d.Attributes, s.d.DroppedAttributes = addAttributes(nil, cfg.Attributes(), t.p.limits.Attributes, t.p.limits.AttributeValueChars)
	for _, l := range cfg.Links() {
		s.addLink(l)
	}
	return trace.ContextWithSpan(ctx, s), s
}

// ids draws trace and span ids; math/rand/v2's generator is safe for
// concurrent use and seeded from the system's randomness.
func newTraceID() trace.TraceID {
	var id trace.TraceID
	for !id.IsValid() {
		binary.LittleEndian.PutUint64(id[:8], rand.Uint64())
		binary.LittleEndian.PutUint64(id[8:], rand.Uint64())
	}
	return id
}

func newSpanID() trace.SpanID {
	var id trace.SpanID
	for !id.IsValid() {
		binary.LittleEndian.PutUint64(id[:], rand.Uint64())
	}
	return id
}

// span is a recording span.
type span struct {
	embedded.Span
	p *Provider

	mu    sync.Mutex
	d     Data
	ended bool
}

func (s *span) SpanContext() trace.SpanContext { return s.d.SpanContext }

func (s *span) TracerProvider() trace.TracerProvider { return s.p }

func (s *span) IsRecording() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return !s.ended
}

func (s *span) SetAttributes(kv ...attribute.KeyValue) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended {
		return
	}
	var dropped int
	s.d.Attributes, dropped = addAttributes(s.d.Attributes, kv, s.p.limits.Attributes, s.p.limits.AttributeValueChars)
	s.d.DroppedAttributes += dropped
}

func (s *span) SetName(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.ended {
		s.d.Name = name
	}
}

// SetStatus sets the status as the API says: Ok is final, Error's
// description is kept, Unset changes nothing.
func (s *span) SetStatus(code codes.Code, description string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended || code == codes.Unset || s.d.Status.Code == codes.Ok {
		return
	}
	if code != codes.Error {
		description = ""
	}
	s.d.Status = Status{Code: code, Description: description}
}

func (s *span) AddEvent(name string, opts ...trace.EventOption) {
	c := trace.NewEventConfig(opts...)
	s.addEvent(name, c.Timestamp(), c.Attributes())
}

// RecordError records err as an exception event, as the API says; the
// host does not call it (an error's text may quote a tool's arguments).
func (s *span) RecordError(err error, opts ...trace.EventOption) {
	if err == nil {
		return
	}
	c := trace.NewEventConfig(opts...)
	attrs := append([]attribute.KeyValue{
		attribute.String("exception.type", fmt.Sprintf("%T", err)),
		attribute.String("exception.message", err.Error()),
	}, c.Attributes()...)
	s.addEvent("exception", c.Timestamp(), attrs)
}

func (s *span) addEvent(name string, at time.Time, attrs []attribute.KeyValue) {
	if at.IsZero() {
		at = time.Now()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended {
		return
	}
	l := s.p.limits
	e := Event{Name: name, Time: at}
	e.Attributes, e.DroppedAttributes = addAttributes(nil, attrs, l.EventAttributes, l.AttributeValueChars)
	var dropped int
	s.d.Events, dropped = keepNewest(append(s.d.Events, e), l.Events)
	s.d.DroppedEvents += dropped
}

func (s *span) AddLink(l trace.Link) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.ended {
		s.addLink(l)
	}
}

// addLink adds l unless it is invalid or over the limit; s.mu is held or
// the span not yet shared.
func (s *span) addLink(l trace.Link) {
	if !l.SpanContext.IsValid() {
		return
	}
	lim := s.p.limits
	k := Link{SpanContext: l.SpanContext}
	k.Attributes, k.DroppedAttributes = addAttributes(nil, l.Attributes, lim.LinkAttributes, lim.AttributeValueChars)
	var dropped int
	s.d.Links, dropped = keepNewest(append(s.d.Links, k), lim.Links)
	s.d.DroppedLinks += dropped
}

// keepNewest drops the oldest of xs beyond limit (none when it is
// negative), as the SDK keeps a span's newest events and links, and says
// how many it dropped.
func keepNewest[T any](xs []T, limit int) ([]T, int) {
	if limit < 0 || len(xs) <= limit {
		return xs, 0
	}
	n := len(xs) - limit
	return slices.Delete(xs, 0, n), n
}

// End ends the span and hands it to the processor, once.
func (s *span) End(opts ...trace.SpanEndOption) {
	c := trace.NewSpanEndConfig(opts...)
	end := c.Timestamp()
	if end.IsZero() {
		end = time.Now()
	}
	s.mu.Lock()
	if s.ended {
		s.mu.Unlock()
		return
	}
	s.ended = true
	s.d.End = end
	d := s.d
	s.mu.Unlock()
	s.p.proc.OnEnd(&d)
}

// addAttributes adds kvs to attrs: a key already there takes the new
// value, a new key beyond limit (when limit is not negative) is dropped
// and counted, an invalid one too; string values are cut to maxChars
// characters (when not negative).
func addAttributes(attrs, kvs []attribute.KeyValue, limit, maxChars int) ([]attribute.KeyValue, int) {
	dropped := 0
next:
	for _, kv := range kvs {
		if !kv.Valid() {
			dropped++
			continue
		}
		kv = truncate(kv, maxChars)
		for i := range attrs {
			if attrs[i].Key == kv.Key {
				attrs[i] = kv
				continue next
			}
		}
		if limit >= 0 && len(attrs) >= limit {
			dropped++
			continue
		}
		attrs = append(attrs, kv)
	}
	return attrs, dropped
}

// truncate cuts kv's string values to at most maxChars characters (runes,
// as the specification counts them).
func truncate(kv attribute.KeyValue, maxChars int) attribute.KeyValue {
	if maxChars < 0 {
		return kv
	}
	cut := func(s string) string {
		if len(s) <= maxChars { // no more bytes than the limit: no more runes
			return s
		}
		n := 0
		for i := range s {
			if n == maxChars {
				return s[:i]
			}
			n++
		}
		return s
	}
	switch kv.Value.Type() {
	case attribute.STRING:
		return kv.Key.String(cut(kv.Value.AsString()))
	case attribute.STRINGSLICE:
		ss := kv.Value.AsStringSlice()
		for i := range ss {
			ss[i] = cut(ss[i])
		}
		return kv.Key.StringSlice(ss)
	}
	return kv
}

// unrecorded is a span not sampled: its context goes on, nothing is kept.
type unrecorded struct {
	embedded.Span
	sc trace.SpanContext
	p  *Provider
}

func (u *unrecorded) SpanContext() trace.SpanContext        { return u.sc }
func (u *unrecorded) TracerProvider() trace.TracerProvider  { return u.p }
func (*unrecorded) IsRecording() bool                       { return false }
func (*unrecorded) End(...trace.SpanEndOption)              {}
func (*unrecorded) AddEvent(string, ...trace.EventOption)   {}
func (*unrecorded) AddLink(trace.Link)                      {}
func (*unrecorded) RecordError(error, ...trace.EventOption) {}
func (*unrecorded) SetStatus(codes.Code, string)            {}
func (*unrecorded) SetName(string)                          {}
func (*unrecorded) SetAttributes(...attribute.KeyValue)     {}

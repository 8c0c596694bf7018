// Package otlptest is an OTLP collector for tests: it keeps the spans and
// the metric names it is sent, over OTLP/HTTP with protobuf bodies
// (ServeHTTP) and over gRPC (Register).
package otlptest

import (
	"context"
	"io"
	"net/http"
	"slices"
	"sync"

	metricpb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	tracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	otlptrace "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"
)

// Span is a span received, with its resource's service.name.
type Span struct {
	Service string
	*otlptrace.Span
}

// Receiver keeps what it is sent. It is safe for concurrent use.
type Receiver struct {
	mu      sync.Mutex
	spans   []Span
	metrics []string
}

// Spans are the spans received so far, in the order they came.
func (r *Receiver) Spans() []Span {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.spans)
}

// Metrics are the names of the metrics received so far, a name once per
// export that held it.
func (r *Receiver) Metrics() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.metrics)
}

func (r *Receiver) exportTraces(req *tracepb.ExportTraceServiceRequest) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, rs := range req.GetResourceSpans() {
		var service string
		for _, a := range rs.GetResource().GetAttributes() {
			if a.GetKey() == "service.name" {
				service = a.GetValue().GetStringValue()
			}
		}
		for _, ss := range rs.GetScopeSpans() {
			for _, s := range ss.GetSpans() {
				r.spans = append(r.spans, Span{Service: service, Span: s})
			}
		}
	}
}

func (r *Receiver) exportMetrics(req *metricpb.ExportMetricsServiceRequest) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, rm := range req.GetResourceMetrics() {
		for _, sm := range rm.GetScopeMetrics() {
			for _, m := range sm.GetMetrics() {
				r.metrics = append(r.metrics, m.GetName())
			}
		}
	}
}

// ServeHTTP is OTLP/HTTP with protobuf bodies: /v1/traces and /v1/metrics.
func (r *Receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	b, err := io.ReadAll(req.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var resp proto.Message
	switch req.URL.Path {
	case "/v1/traces":
		var m tracepb.ExportTraceServiceRequest
		if err = proto.Unmarshal(b, &m); err == nil {
			r.exportTraces(&m)
		}
		resp = &tracepb.ExportTraceServiceResponse{}
	case "/v1/metrics":
		var m metricpb.ExportMetricsServiceRequest
		if err = proto.Unmarshal(b, &m); err == nil {
			r.exportMetrics(&m)
		}
		resp = &metricpb.ExportMetricsServiceResponse{}
	default:
		http.NotFound(w, req)
		return
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	out, _ := proto.Marshal(resp)
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(out)
}

// Register serves the receiver's trace and metrics services on srv.
func (r *Receiver) Register(srv *grpc.Server) {
	tracepb.RegisterTraceServiceServer(srv, traceService{r: r})
	metricpb.RegisterMetricsServiceServer(srv, metricsService{r: r})
}

type traceService struct {
	tracepb.UnimplementedTraceServiceServer
	r *Receiver
}

func (s traceService) Export(_ context.Context, req *tracepb.ExportTraceServiceRequest) (*tracepb.ExportTraceServiceResponse, error) {
	s.r.exportTraces(req)
	return &tracepb.ExportTraceServiceResponse{}, nil
}

type metricsService struct {
	metricpb.UnimplementedMetricsServiceServer
	r *Receiver
}

func (s metricsService) Export(_ context.Context, req *metricpb.ExportMetricsServiceRequest) (*metricpb.ExportMetricsServiceResponse, error) {
	s.r.exportMetrics(req)
	return &metricpb.ExportMetricsServiceResponse{}, nil
}

package otlp_test

import (
	"compress/gzip"
	"context"
	"crypto/tls"
	"encoding/pem"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.opentelemetry.io/otel/attribute"
	colmetricpb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	metricpb "go.opentelemetry.io/proto/otlp/metrics/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	spb "google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/testing/protocmp"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/ramabana/ramabana-mcp/host/internal/telemetry/metrics"
	"github.com/ramabana/ramabana-mcp/host/internal/telemetry/otlp"
	"github.com/ramabana/ramabana-mcp/host/internal/telemetry/spans"
	"github.com/ramabana/ramabana-mcp/internal/proctest"
)

// someSpans are two ended spans.
func someSpans(t *testing.T) []*spans.Data {
	t.Helper()
	rec := &spans.Recorder{}
	tp := rec.Provider()
	for _, name := range []string{"one", "two"} {
		_, s := tp.Tracer("t").Start(context.Background(), name)
		s.End()
	}
	return rec.Ended()
}

// reports keeps what an exporter reports to its onError.
type reports struct {
	mu   sync.Mutex
	errs []string
}

func (r *reports) add(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, err.Error())
}

func (r *reports) get() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.errs...)
}

// unexpected is an onError for exporters that should report nothing.
func unexpected(t *testing.T) func(error) {
	return func(err error) { t.Errorf("reported: %v", err) }
}

func spanNames(req *coltracepb.ExportTraceServiceRequest) []string {
	var names []string
	for _, rs := range req.GetResourceSpans() {
		for _, ss := range rs.GetScopeSpans() {
			for _, s := range ss.GetSpans() {
				names = append(names, s.GetName())
			}
		}
	}
	return names
}

// traceExporter is an exporter of svc's spans configured by vars alone,
// reporting to onError; it shuts down with the test.
func traceExporter(t *testing.T, vars map[string]string, onError func(error)) *otlp.TraceExporter {
	t.Helper()
	cfg, err := otlp.ConfigFromEnv(otlp.Traces, env(vars))
	if err != nil {
		t.Fatal(err)
	}
	exp, err := otlp.NewTraceExporter(cfg, svc, onError)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = exp.Shutdown(context.Background()) })
	return exp
}

// exporting starts an export of two spans and returns a wait for its
// error. The wait fails the test, saying stuck, when the export has not
// ended within the patience: the exporters that fail here have an hour's
// timeout, so one tried again and again would not end.
func exporting(t *testing.T, exp *otlp.TraceExporter, stuck string) func() error {
	ss := someSpans(t)
	done := make(chan error, 1)
	go func() { done <- exp.ExportSpans(context.Background(), ss) }()
	return func() error {
		t.Helper()
		select {
		case err := <-done:
			return err
		case <-time.After(proctest.Patience):
			t.Fatal(stuck)
			return nil
		}
	}
}

// grpcServer serves what register registers over gRPC on 127.0.0.1 until
// the test ends and returns its endpoint, http://host:port.
func grpcServer(t *testing.T, register func(*grpc.Server)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	register(srv)
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(srv.Stop)
	return "http://" + ln.Addr().String()
}

// grpcCollector serves the trace service s over gRPC; see grpcServer.
func grpcCollector(t *testing.T, s coltracepb.TraceServiceServer) string {
	t.Helper()
	return grpcServer(t, func(srv *grpc.Server) { coltracepb.RegisterTraceServiceServer(srv, s) })
}

// TestHTTPExport: a collector that is unavailable at first gets the
// request again after the Retry-After it asked for, gzipped, with the
// configured headers and the exporter's resource; the spans it says it
// rejected are reported to the exporter's onError.
func TestHTTPExport(t *testing.T) {
	t.Parallel()
	rep := &reports{}
	var calls atomic.Int32
	var got coltracepb.ExportTraceServiceRequest
	var gotHeader http.Header
	var first, second time.Time
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			first = time.Now()
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		second = time.Now()
		gotHeader = r.Header.Clone()
		zr, err := gzip.NewReader(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		body, err := io.ReadAll(zr)
		if err == nil {
			err = proto.Unmarshal(body, &got)
		}
		if err != nil || r.URL.Path != "/v1/traces" {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		out, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{PartialSuccess: &coltracepb.ExportTracePartialSuccess{RejectedSpans: 1, ErrorMessage: "too old"}})
		w.Header().Set("Content-Type", "application/x-protobuf")
		_, _ = w.Write(out)
	}))
	t.Cleanup(ts.Close)
	exp := traceExporter(t, map[string]string{
		"OTEL_EXPORTER_OTLP_ENDPOINT": ts.URL, "OTEL_EXPORTER_OTLP_COMPRESSION": "gzip", "OTEL_EXPORTER_OTLP_HEADERS": "api-key=k1",
		"OTEL_EXPORTER_OTLP_TIMEOUT": "60000",
	}, rep.add)
	if err := exp.ExportSpans(context.Background(), someSpans(t)); err != nil {
		t.Fatal(err)
	}
	if n := calls.Load(); n != 2 {
		t.Errorf("%d requests, want 2 (the first refused)", n)
	}
	if d := second.Sub(first); d < time.Second {
		t.Errorf("tried again after %v, before the Retry-After of 1 s", d)
	}
	if names := spanNames(&got); len(names) != 2 || names[0] != "one" || names[1] != "two" {
		t.Errorf("spans received: %q", names)
	}
	if gotHeader.Get("Api-Key") != "k1" || gotHeader.Get("Content-Type") != "application/x-protobuf" || gotHeader.Get("Content-Encoding") != "gzip" {
		t.Errorf("headers received: %v", gotHeader)
	}
	wantRes := &resourcepb.Resource{Attributes: []*commonpb.KeyValue{kv("service.name", str("svc"))}}
	if rs := got.GetResourceSpans(); len(rs) != 1 || !proto.Equal(rs[0].GetResource(), wantRes) {
		t.Errorf("resources received: %v", rs)
	}
	if r := rep.get(); len(r) != 1 || !strings.Contains(r[0], "rejected 1 spans: too old") {
		t.Errorf("reported: %q", r)
	}

	if err := exp.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := exp.ExportSpans(context.Background(), someSpans(t)); err == nil {
		t.Error("an export after Shutdown succeeded")
	}
}

// TestHTTPExportFails: a collector's refusal is the export's error, with
// the reason its status gives.
func TestHTTPExportFails(t *testing.T) {
	t.Parallel()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		out, _ := proto.Marshal(&spb.Status{Code: 3, Message: "bad data"})
		w.Header().Set("Content-Type", "application/x-protobuf")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write(out)
	}))
	t.Cleanup(ts.Close)
	exp := traceExporter(t, map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": ts.URL, "OTEL_EXPORTER_OTLP_TIMEOUT": "3600000"}, unexpected(t))
	want := "answered 400 Bad Request: bad data"
	if err := exp.ExportSpans(context.Background(), someSpans(t)); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("err = %v, want %q", err, want)
	}
}

// TestRefusedClientCertificateNotTriedAgain: a collector that refuses the
// exporter's client certificate (here: wants one, gets none) refuses it
// again; the export fails at once instead of for its whole timeout.
func TestRefusedClientCertificateNotTriedAgain(t *testing.T) {
	t.Parallel()
	ts := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	ts.TLS = &tls.Config{ClientAuth: tls.RequireAnyClientCert, MinVersion: tls.VersionTLS12}
	ts.StartTLS()
	t.Cleanup(ts.Close)
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ts.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	exp := traceExporter(t, map[string]string{
		"OTEL_EXPORTER_OTLP_ENDPOINT": ts.URL, "OTEL_EXPORTER_OTLP_CERTIFICATE": ca, "OTEL_EXPORTER_OTLP_TIMEOUT": "3600000",
	}, unexpected(t))
	err := exporting(t, exp, "a refused client certificate is tried again and again")()
	if err == nil || !strings.Contains(err.Error(), "tls") {
		t.Errorf("err = %v, want the handshake's", err)
	}
}

// gzipped counts the gRPC messages decompressed with gzip: countingGzip
// stands in for gRPC's own under its name, in this test binary.
var gzipped atomic.Int32

type countingGzip struct{ encoding.Compressor }

func (c countingGzip) Decompress(r io.Reader) (io.Reader, error) {
	gzipped.Add(1)
	return c.Compressor.Decompress(r)
}

// grpcGzip is the compressor named gzip that package otlp's imports
// registered: nil if none did, and the exporter's gzip would not work.
var grpcGzip = encoding.GetCompressor("gzip")

func init() {
	if grpcGzip != nil {
		encoding.RegisterCompressor(countingGzip{grpcGzip})
	}
}

// collector is a gRPC trace service that keeps what it is sent, with the
// metadata, and refuses its first call as unavailable.
type collector struct {
	coltracepb.UnimplementedTraceServiceServer
	mu    sync.Mutex
	calls int
	md    metadata.MD
	req   *coltracepb.ExportTraceServiceRequest
}

func (c *collector) Export(ctx context.Context, req *coltracepb.ExportTraceServiceRequest) (*coltracepb.ExportTraceServiceResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls++
	if c.calls == 1 {
		return nil, status.Error(codes.Unavailable, "starting")
	}
	c.md, _ = metadata.FromIncomingContext(ctx)
	c.req = req
	return &coltracepb.ExportTraceServiceResponse{}, nil
}

// TestGRPCExport: over gRPC the request goes to the trace service's
// Export, gzipped when asked, with the headers as metadata, and again
// after an Unavailable.
func TestGRPCExport(t *testing.T) {
	t.Parallel()
	c := &collector{}
	exp := traceExporter(t, map[string]string{
		"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": grpcCollector(t, c),
		"OTEL_EXPORTER_OTLP_HEADERS": "api-key=k2", "OTEL_EXPORTER_OTLP_COMPRESSION": "gzip", "OTEL_EXPORTER_OTLP_TIMEOUT": "60000",
	}, unexpected(t))
	if err := exp.ExportSpans(context.Background(), someSpans(t)); err != nil {
		t.Fatal(err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.calls != 2 {
		t.Errorf("%d calls, want 2 (the first refused)", c.calls)
	}
	if names := spanNames(c.req); len(names) != 2 {
		t.Errorf("spans received: %q", names)
	}
	if got := c.md.Get("api-key"); len(got) != 1 || got[0] != "k2" {
		t.Errorf("metadata api-key %q", got)
	}
	if grpcGzip == nil {
		t.Error("no gzip compressor is registered for gRPC")
	}
	if gzipped.Load() == 0 {
		t.Error("the request was not gzipped")
	}
}

// TestMetricTemporality: what each preference makes of each kind of
// instrument, as the specification defines them, in the reader the
// exporter asks the registry for; and an export after Shutdown fails.
func TestMetricTemporality(t *testing.T) {
	t.Parallel()
	d, c := metrics.Delta, metrics.Cumulative
	kinds := []metrics.Kind{metrics.KindCounter, metrics.KindObservableCounter, metrics.KindHistogram, metrics.KindObservableGauge}
	for pref, want := range map[string][]metrics.Temporality{
		"cumulative": {c, c, c, c},
		"delta":      {d, d, d, c},
		"lowmemory":  {d, c, d, c},
	} {
		cfg, err := otlp.ConfigFromEnv(otlp.Metrics, env(map[string]string{"OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE": pref}))
		if err != nil {
			t.Fatal(err)
		}
		exp, err := otlp.NewMetricExporter(cfg, svc, unexpected(t))
		if err != nil {
			t.Fatal(err)
		}
		reader := exp.Reader()
		if reader.Temporality == nil || reader.Exponential {
			t.Fatalf("%s: reader %+v, want a temporality and explicit histograms", pref, reader)
		}
		for i, k := range kinds {
			if got := reader.Temporality(k); got != want[i] {
				t.Errorf("%s: kind %v is %v, want %v", pref, k, got, want[i])
			}
		}
		if err := exp.Shutdown(context.Background()); err != nil {
			t.Fatal(err)
		}
		one := metrics.Collection{Metrics: []metrics.Metric{{Name: "m", Kind: metrics.KindCounter, Temporality: c, Points: []metrics.Point{{Value: 1}}}}}
		if err := exp.Export(context.Background(), one); err == nil || !strings.Contains(err.Error(), "shut down") {
			t.Errorf("%s: an export after Shutdown: %v", pref, err)
		}
	}
	cfg, err := otlp.ConfigFromEnv(otlp.Metrics, env(map[string]string{"OTEL_EXPORTER_OTLP_METRICS_DEFAULT_HISTOGRAM_AGGREGATION": "base2_exponential_bucket_histogram"}))
	if err != nil {
		t.Fatal(err)
	}
	exp, err := otlp.NewMetricExporter(cfg, svc, unexpected(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = exp.Shutdown(context.Background()) })
	if !exp.Reader().Exponential {
		t.Error("base2_exponential_bucket_histogram: the reader's histograms are not exponential")
	}
}

// metricsCollector is a gRPC metrics service that keeps what it is sent
// and reports two points rejected.
type metricsCollector struct {
	colmetricpb.UnimplementedMetricsServiceServer
	mu    sync.Mutex
	calls int
	req   *colmetricpb.ExportMetricsServiceRequest
}

func (c *metricsCollector) Export(_ context.Context, req *colmetricpb.ExportMetricsServiceRequest) (*colmetricpb.ExportMetricsServiceResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls++
	c.req = req
	return &colmetricpb.ExportMetricsServiceResponse{PartialSuccess: &colmetricpb.ExportMetricsPartialSuccess{RejectedDataPoints: 2, ErrorMessage: "too many"}}, nil
}

// TestMetricExport: over either protocol, a registry made with the
// exporter's reader (delta, exponential histograms) is exported to the
// metrics service with the exporter's resource, and the points the
// collector rejected are reported; a collection of no metric sends
// nothing.
func TestMetricExport(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var httpCalls int
	var httpReq colmetricpb.ExportMetricsServiceRequest
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		mu.Lock()
		defer mu.Unlock()
		httpCalls++
		if err == nil {
			err = proto.Unmarshal(body, &httpReq)
		}
		if err != nil || r.URL.Path != "/v1/metrics" || r.Header.Get("Content-Type") != "application/x-protobuf" {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		out, _ := proto.Marshal(&colmetricpb.ExportMetricsServiceResponse{PartialSuccess: &colmetricpb.ExportMetricsPartialSuccess{RejectedDataPoints: 2, ErrorMessage: "too many"}})
		w.Header().Set("Content-Type", "application/x-protobuf")
		_, _ = w.Write(out)
	}))
	t.Cleanup(ts.Close)
	gc := &metricsCollector{}
	grpcEndpoint := grpcServer(t, func(srv *grpc.Server) { colmetricpb.RegisterMetricsServiceServer(srv, gc) })

	for protocol, c := range map[string]struct {
		endpoint string
		received func() (int, *colmetricpb.ExportMetricsServiceRequest)
	}{
		"http/protobuf": {ts.URL, func() (int, *colmetricpb.ExportMetricsServiceRequest) {
			mu.Lock()
			defer mu.Unlock()
			return httpCalls, &httpReq
		}},
		"grpc": {grpcEndpoint, func() (int, *colmetricpb.ExportMetricsServiceRequest) {
			gc.mu.Lock()
			defer gc.mu.Unlock()
			return gc.calls, gc.req
		}},
	} {
		cfg, err := otlp.ConfigFromEnv(otlp.Metrics, env(map[string]string{
			"OTEL_EXPORTER_OTLP_PROTOCOL": protocol, "OTEL_EXPORTER_OTLP_ENDPOINT": c.endpoint, "OTEL_EXPORTER_OTLP_TIMEOUT": "60000",
			"OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE":        "delta",
			"OTEL_EXPORTER_OTLP_METRICS_DEFAULT_HISTOGRAM_AGGREGATION": "base2_exponential_bucket_histogram",
		}))
		if err != nil {
			t.Fatal(err)
		}
		rep := &reports{}
		exp, err := otlp.NewMetricExporter(cfg, svc, rep.add)
		if err != nil {
			t.Fatal(err)
		}
		reg := metrics.NewRegistry(metrics.Scope{Name: "host"}, metrics.AlwaysOff, exp.Reader())
		reg.Counter("calls", "{call}", "").Add(2, attribute.String("tool", "t"))
		reg.Histogram("duration", "s", "", []float64{1}).Record(context.Background(), 4)
		if err := exp.Export(context.Background(), metrics.Collection{Scope: metrics.Scope{Name: "empty"}}); err != nil {
			t.Errorf("%s: an empty collection: %v", protocol, err)
		}
		if err := exp.Export(context.Background(), reg.Collect(0)); err != nil {
			t.Fatalf("%s: %v", protocol, err)
		}
		calls, req := c.received()
		if calls != 1 {
			t.Errorf("%s: %d requests, want 1 (none for the empty collection)", protocol, calls)
		}
		rm := req.GetResourceMetrics()
		wantRes := &resourcepb.Resource{Attributes: []*commonpb.KeyValue{kv("service.name", str("svc"))}}
		if len(rm) != 1 || len(rm[0].GetScopeMetrics()) != 1 {
			t.Fatalf("%s: want one resource and one scope: %v", protocol, rm)
		}
		if diff := cmp.Diff(wantRes, rm[0].GetResource(), protocmp.Transform()); diff != "" {
			t.Errorf("%s: resource (-want +got):\n%s", protocol, diff)
		}
		sm := rm[0].GetScopeMetrics()[0]
		ms := sm.GetMetrics()
		delta := metricpb.AggregationTemporality_AGGREGATION_TEMPORALITY_DELTA
		if sm.GetScope().GetName() != "host" || len(ms) != 2 || ms[0].GetName() != "calls" || ms[1].GetName() != "duration" {
			t.Fatalf("%s: scope %v, metrics %v", protocol, sm.GetScope(), ms)
		}
		if s := ms[0].GetSum(); s.GetAggregationTemporality() != delta || len(s.GetDataPoints()) != 1 || s.GetDataPoints()[0].GetAsInt() != 2 {
			t.Errorf("%s: calls %v, want a delta sum of 2", protocol, ms[0])
		}
		if h := ms[1].GetExponentialHistogram(); h.GetAggregationTemporality() != delta || len(h.GetDataPoints()) != 1 || h.GetDataPoints()[0].GetCount() != 1 {
			t.Errorf("%s: duration %v, want a delta exponential histogram of one", protocol, ms[1])
		}
		if r := rep.get(); len(r) != 1 || !strings.Contains(r[0], "rejected 2 metric data points: too many") {
			t.Errorf("%s: reported %q", protocol, r)
		}
		if err := exp.Shutdown(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
}

// TestShutdownEndsAnExport: an export waiting on a collector that does
// not answer ends when the exporter shuts down, not at its timeout (an
// hour here), over either protocol.
func TestShutdownEndsAnExport(t *testing.T) {
	t.Parallel()
	arrived := make(chan struct{}, 2)
	release := make(chan struct{})
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body) // then the server watches the connection
		arrived <- struct{}{}
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	t.Cleanup(ts.Close)
	grpcEndpoint := grpcCollector(t, silent{arrived: arrived, release: release})
	t.Cleanup(func() { close(release) }) // first of the cleanups
	for protocol, endpoint := range map[string]string{"http/protobuf": ts.URL, "grpc": grpcEndpoint} {
		exp := traceExporter(t, map[string]string{
			"OTEL_EXPORTER_OTLP_PROTOCOL": protocol, "OTEL_EXPORTER_OTLP_ENDPOINT": endpoint, "OTEL_EXPORTER_OTLP_TIMEOUT": "3600000",
		}, unexpected(t))
		wait := exporting(t, exp, protocol+": the export goes on after Shutdown")
		<-arrived // the request is with the collector
		if err := exp.Shutdown(context.Background()); err != nil {
			t.Fatal(err)
		}
		if err := wait(); err == nil || !strings.Contains(err.Error(), "shut down") {
			t.Errorf("%s: the export ended with %v", protocol, err)
		}
	}
}

// silent is a gRPC trace service that does not answer until released.
type silent struct {
	coltracepb.UnimplementedTraceServiceServer
	arrived chan<- struct{}
	release <-chan struct{}
}

func (s silent) Export(ctx context.Context, _ *coltracepb.ExportTraceServiceRequest) (*coltracepb.ExportTraceServiceResponse, error) {
	s.arrived <- struct{}{}
	select {
	case <-ctx.Done():
	case <-s.release:
	}
	return nil, status.Error(codes.Unavailable, "down")
}

// TestWhatIsNotTriedAgain: a TLS handshake with a collector that speaks
// none fails at once, and so does a gRPC ResourceExhausted that does not
// say when to come back; one that does is tried again.
func TestWhatIsNotTriedAgain(t *testing.T) {
	t.Parallel()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	t.Cleanup(ts.Close)
	exp := traceExporter(t, map[string]string{
		"OTEL_EXPORTER_OTLP_ENDPOINT": strings.Replace(ts.URL, "http://", "https://", 1), "OTEL_EXPORTER_OTLP_TIMEOUT": "3600000",
	}, unexpected(t))
	if err := exporting(t, exp, "a TLS handshake that cannot succeed is tried again and again")(); err == nil {
		t.Error("an export over TLS to a plain HTTP server succeeded")
	}

	for name, c := range map[string]struct {
		delay bool
		calls int
	}{"without RetryInfo": {false, 1}, "with RetryInfo": {true, 2}} {
		ex := &exhausted{delay: c.delay}
		exp := traceExporter(t, map[string]string{
			"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc", "OTEL_EXPORTER_OTLP_ENDPOINT": grpcCollector(t, ex), "OTEL_EXPORTER_OTLP_TIMEOUT": "3600000",
		}, unexpected(t))
		err := exp.ExportSpans(context.Background(), someSpans(t))
		if (err == nil) != c.delay {
			t.Errorf("%s: err = %v", name, err)
		}
		if n := ex.calls.Load(); n != int32(c.calls) {
			t.Errorf("%s: %d calls, want %d", name, n, c.calls)
		}
		ex.mu.Lock()
		if len(ex.times) == 2 && ex.times[1].Sub(ex.times[0]) < exhaustedDelay {
			t.Errorf("%s: tried again after %v, before the RetryInfo's %v", name, ex.times[1].Sub(ex.times[0]), exhaustedDelay)
		}
		ex.mu.Unlock()
	}
}

// exhausted answers its first call ResourceExhausted, with a RetryInfo
// of 1 ms when delay, and takes the next.
type exhausted struct {
	coltracepb.UnimplementedTraceServiceServer
	delay bool
	calls atomic.Int32
	mu    sync.Mutex
	times []time.Time
}

// exhaustedDelay is the RetryInfo's delay: long against the tests' own
// backoff (1 ms), so that a retry sooner than asked shows.
const exhaustedDelay = 300 * time.Millisecond

func (e *exhausted) Export(context.Context, *coltracepb.ExportTraceServiceRequest) (*coltracepb.ExportTraceServiceResponse, error) {
	e.mu.Lock()
	e.times = append(e.times, time.Now())
	e.mu.Unlock()
	if e.calls.Add(1) > 1 {
		return &coltracepb.ExportTraceServiceResponse{}, nil
	}
	st := status.New(codes.ResourceExhausted, "over quota")
	if e.delay {
		var err error
		if st, err = st.WithDetails(&errdetails.RetryInfo{RetryDelay: durationpb.New(exhaustedDelay)}); err != nil {
			return nil, err
		}
	}
	return nil, st.Err()
}

package telemetry_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc"

	"github.com/ramabana/ramabana-mcp/host/internal/telemetry"
	"github.com/ramabana/ramabana-mcp/host/internal/telemetry/otlptest"
)

func env(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

// TestNothingAskedForIsNothing: without flags or variables there are no
// instruments, no handler and nothing to shut down, and the nil
// instruments are safe to use.
func TestNothingAskedForIsNothing(t *testing.T) {
	t.Parallel()
	tel, err := telemetry.Setup(context.Background(), telemetry.Options{Getenv: env(nil)})
	if err != nil {
		t.Fatal(err)
	}
	if tel.Instruments != nil || tel.Metrics != nil || tel.Traces || tel.MetricsOTLP {
		t.Errorf("Setup with nothing asked for made %+v", tel)
	}
	if err := tel.Shutdown(context.Background()); err != nil {
		t.Error(err)
	}
	ctx := context.Background()
	var ins *telemetry.Instruments
	rctx, req := ins.StartRequest(ctx, "tools/call", "echo", nil)
	cctx, call := ins.StartCall(rctx, telemetry.Call{Tool: "echo"})
	call.End(true, errors.New("x"))
	req.End(nil, true)
	if rctx != ctx || cctx != ctx {
		t.Error("nil instruments changed the context")
	}
	ins.Observe(nil, nil)()
}

func TestWhatIsExported(t *testing.T) {
	t.Parallel()
	for name, c := range map[string]struct {
		otel           bool
		env            map[string]string
		traces, metric bool
		err            string
	}{
		"flag":                               {otel: true, traces: true, metric: true},
		"endpoint":                           {env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1"}, traces: true, metric: true},
		"traces endpoint only":               {env: map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://127.0.0.1:1/v1/traces"}, traces: true},
		"metrics exporter none":              {otel: true, env: map[string]string{"OTEL_METRICS_EXPORTER": "none"}, traces: true},
		"sdk disabled":                       {otel: true, env: map[string]string{"OTEL_SDK_DISABLED": "true"}},
		"other variables":                    {env: map[string]string{"OTEL_EXPORTER_OTLP_HEADERS": "a=b"}},
		"grpc":                               {otel: true, env: map[string]string{"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, traces: true, metric: true},
		"an exporter it has not":             {otel: true, env: map[string]string{"OTEL_TRACES_EXPORTER": "zipkin"}, err: `OTEL_TRACES_EXPORTER="zipkin": this server exports otlp or none`},
		"a protocol it does not use":         {otel: true, env: map[string]string{"OTEL_EXPORTER_OTLP_METRICS_PROTOCOL": "http/json"}, err: `OTLP protocol "http/json": use http/protobuf or grpc`},
		"a sampler it has not":               {otel: true, env: map[string]string{"OTEL_TRACES_SAMPLER": "jaeger_remote"}, err: `OTEL_TRACES_SAMPLER="jaeger_remote"`},
		"an interval it cannot read":         {otel: true, env: map[string]string{"OTEL_METRIC_EXPORT_INTERVAL": "1m"}, err: `OTEL_METRIC_EXPORT_INTERVAL="1m"`},
		"a bad resource":                     {otel: true, env: map[string]string{"OTEL_RESOURCE_ATTRIBUTES": "novalue"}, err: `OTEL_RESOURCE_ATTRIBUTES`},
		"traces off, metric variable unused": {otel: true, env: map[string]string{"OTEL_METRICS_EXPORTER": "none", "OTEL_METRIC_EXPORT_INTERVAL": "1m"}, traces: true},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tel, err := telemetry.Setup(context.Background(), telemetry.Options{OTLP: c.otel, Getenv: env(c.env)})
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("err = %v, want %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer tel.Shutdown(canceled())
			if tel.Traces != c.traces || tel.MetricsOTLP != c.metric {
				t.Errorf("traces %v, metrics %v; want %v, %v", tel.Traces, tel.MetricsOTLP, c.traces, c.metric)
			}
			if (tel.Instruments != nil) != (c.traces || c.metric) {
				t.Errorf("instruments %v with traces %v and metrics %v", tel.Instruments, c.traces, c.metric)
			}
		})
	}
}

// canceled is a context already ended: a Shutdown with nowhere to send
// what it holds gives up at once.
func canceled() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}

// TestPrometheus scrapes the handler after a call: the tool's metrics, in
// Prometheus' spelling, and the process's own.
func TestPrometheus(t *testing.T) {
	t.Parallel()
	tel, err := telemetry.Setup(context.Background(), telemetry.Options{Prometheus: true, Getenv: env(nil)})
	if err != nil {
		t.Fatal(err)
	}
	defer tel.Shutdown(context.Background())
	if tel.Traces || tel.MetricsOTLP {
		t.Errorf("--metrics alone exports over OTLP: %+v", tel)
	}
	ctx, call := tel.Instruments.StartCall(context.Background(), telemetry.Call{Tool: "view_file", Group: "files", Plugin: "files", Caller: "client"})
	call.End(false, nil)
	_, call = tel.Instruments.StartCall(ctx, telemetry.Call{Tool: "view_file", Group: "files", Plugin: "files", Caller: "client"})
	call.End(true, nil)

	rec := httptest.NewRecorder()
	tel.Metrics.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, "text/plain; version=0.0.4;") {
		t.Errorf("Content-Type %q", ct)
	}
	body := rec.Body.String()
	want := []string{
		"# HELP ramabana_tool_calls_total Tool calls, by tool, group and caller.\n# TYPE ramabana_tool_calls_total counter\n",
		`ramabana_tool_calls_total{caller="client",group="files",otel_scope_name="github.com/ramabana/ramabana-mcp",otel_scope_schema_url="",otel_scope_version="",tool="view_file"} 2`,
		`ramabana_tool_errors_total{caller="client",error_type="tool_error",group="files",otel_scope_name="github.com/ramabana/ramabana-mcp",otel_scope_schema_url="",otel_scope_version="",tool="view_file"} 1`,
		"# TYPE ramabana_tool_duration_seconds histogram\n",
		`ramabana_tool_duration_seconds_bucket{caller="client",group="files",otel_scope_name="github.com/ramabana/ramabana-mcp",otel_scope_schema_url="",otel_scope_version="",tool="view_file",le="300"} 2`,
		`ramabana_tool_duration_seconds_count{caller="client",group="files",otel_scope_name="github.com/ramabana/ramabana-mcp",otel_scope_schema_url="",otel_scope_version="",tool="view_file"} 2`,
		"# HELP target_info Target metadata\n# TYPE target_info gauge\ntarget_info{",
		`telemetry_sdk_language="go"`,
		"go_goroutines ",
		"go_memstats_heap_alloc_bytes ",
	}
	if runtime.GOOS == "linux" {
		want = append(want, "process_open_fds ", "process_resident_memory_bytes ", "process_cpu_seconds_total ", "process_start_time_seconds ")
	}
	for _, want := range want {
		if !strings.Contains(body, want) {
			t.Errorf("no %q in the scrape:\n%s", want, body)
		}
	}
}

// TestOTLP sends a request's and a call's spans and metrics to a real
// OTLP receiver, over each protocol, where the standard variables say;
// Shutdown flushes them.
func TestOTLP(t *testing.T) {
	t.Parallel()
	for _, protocol := range []string{"http/protobuf", "grpc"} {
		t.Run(protocol, func(t *testing.T) {
			t.Parallel()
			r := &otlptest.Receiver{}
			var endpoint string
			if protocol == "grpc" {
				ln, err := net.Listen("tcp", "127.0.0.1:0")
				if err != nil {
					t.Fatal(err)
				}
				srv := grpc.NewServer()
				r.Register(srv)
				go func() { _ = srv.Serve(ln) }()
				t.Cleanup(srv.Stop)
				endpoint = "http://" + ln.Addr().String()
			} else {
				ts := httptest.NewServer(r)
				t.Cleanup(ts.Close)
				endpoint = ts.URL
			}
			tel, err := telemetry.Setup(context.Background(), telemetry.Options{ServiceVersion: "test", Getenv: env(map[string]string{
				"OTEL_EXPORTER_OTLP_ENDPOINT": endpoint, "OTEL_EXPORTER_OTLP_PROTOCOL": protocol,
			})})
			if err != nil {
				t.Fatal(err)
			}
			ctx, req := tel.Instruments.StartRequest(context.Background(), "tools/call", "echo", nil)
			_, call := tel.Instruments.StartCall(ctx, telemetry.Call{Tool: "echo", Group: "echo", Plugin: "echo", Caller: "client", ID: "c1"})
			call.End(false, nil)
			req.End(nil, false)
			if err := tel.Shutdown(context.Background()); err != nil {
				t.Fatal(err)
			}
			var spans []string // with their resource's service.name: "ramabana-mcp: tools/call echo"
			for _, sp := range r.Spans() {
				spans = append(spans, sp.Service+": "+sp.GetName())
			}
			if diff := cmp.Diff([]string{"ramabana-mcp: execute_tool echo", "ramabana-mcp: tools/call echo"}, spans); diff != "" {
				t.Errorf("spans received (-want +got):\n%s", diff)
			}
			if metrics := r.Metrics(); !slices.Contains(metrics, "ramabana.tool.calls") || !slices.Contains(metrics, "ramabana.tool.duration") {
				t.Errorf("metrics received: %q", metrics)
			}
		})
	}
}

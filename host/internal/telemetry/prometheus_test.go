package telemetry

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.opentelemetry.io/otel/attribute"

	"github.com/ramabana/ramabana-mcp/host/internal/telemetry/metrics"
)

// recordSamples records, in a registry, a point of each kind of
// instrument, with names, units, attributes and descriptions that need
// translating or escaping, and gives the handler serving them.
func recordSamples(t *testing.T) promHandler {
	t.Helper()
	res := attribute.NewSet(attribute.String("service.name", "x"), attribute.String("a.b", `q"\`+"\n"), attribute.String("a_b", "2"),
		attribute.Int("9lives", 9), attribute.StringSlice("sl", []string{"a", "b"}))
	reg := metrics.NewRegistry(metrics.Scope{Name: "scope.one"}, metrics.TraceBased, metrics.ReaderConfig{})
	ctx := context.Background()
	c := reg.Counter("a.b.c", "By", "Help with \\ and\nnewline and \"quotes\".")
	c.Add(2, attribute.String("v", `we"ird\to`+"\nol"), attribute.String("x.y", "1"), attribute.String("x_y", "0"))
	c.Add(1e6, attribute.String("v", "a"))
	c.Add(3)
	h := reg.Histogram("lat", "ms", "A histogram.", []float64{1, 10, 1e9})
	for _, v := range []float64{0.5, 5, 50, 1e10} {
		h.Record(ctx, v, attribute.String("k", "v"))
	}
	h.Record(ctx, 2)
	r := reg.Counter("requests.total", "1/s", "A rate.")
	r.Add(2)
	g := reg.ObservableGauge("load", "1", "A gauge of unit 1.")
	oc := reg.ObservableCounter("obs..c__x", "s", "Observed.")
	reg.Observe(func(o *metrics.Observer) {
		o.Observe(g, 1)
		o.Observe(oc, 5, attribute.Float64("f", 1.5))
	})
	return promHandler{reg: reg, resource: res}
}

// wantSamples is what the OpenTelemetry Prometheus exporter (v0.69) with
// client_golang (v1.24) wrote of such points, byte for byte: promHandler
// replaced them.
const wantSamples = `# HELP a_b_c_bytes_total Help with \\ and\nnewline and "quotes".
# TYPE a_b_c_bytes_total counter
a_b_c_bytes_total{otel_scope_name="scope.one",otel_scope_schema_url="",otel_scope_version=""} 3
a_b_c_bytes_total{otel_scope_name="scope.one",otel_scope_schema_url="",otel_scope_version="",v="a"} 1e+06
a_b_c_bytes_total{otel_scope_name="scope.one",otel_scope_schema_url="",otel_scope_version="",v="we\"ird\\to\nol",x_y="0;1"} 2
# HELP lat_milliseconds A histogram.
# TYPE lat_milliseconds histogram
lat_milliseconds_bucket{otel_scope_name="scope.one",otel_scope_schema_url="",otel_scope_version="",le="1"} 0
lat_milliseconds_bucket{otel_scope_name="scope.one",otel_scope_schema_url="",otel_scope_version="",le="10"} 1
lat_milliseconds_bucket{otel_scope_name="scope.one",otel_scope_schema_url="",otel_scope_version="",le="1e+09"} 1
lat_milliseconds_bucket{otel_scope_name="scope.one",otel_scope_schema_url="",otel_scope_version="",le="+Inf"} 1
lat_milliseconds_sum{otel_scope_name="scope.one",otel_scope_schema_url="",otel_scope_version=""} 2
lat_milliseconds_count{otel_scope_name="scope.one",otel_scope_schema_url="",otel_scope_version=""} 1
lat_milliseconds_bucket{k="v",otel_scope_name="scope.one",otel_scope_schema_url="",otel_scope_version="",le="1"} 1
lat_milliseconds_bucket{k="v",otel_scope_name="scope.one",otel_scope_schema_url="",otel_scope_version="",le="10"} 2
lat_milliseconds_bucket{k="v",otel_scope_name="scope.one",otel_scope_schema_url="",otel_scope_version="",le="1e+09"} 3
lat_milliseconds_bucket{k="v",otel_scope_name="scope.one",otel_scope_schema_url="",otel_scope_version="",le="+Inf"} 4
lat_milliseconds_sum{k="v",otel_scope_name="scope.one",otel_scope_schema_url="",otel_scope_version=""} 1.00000000555e+10
lat_milliseconds_count{k="v",otel_scope_name="scope.one",otel_scope_schema_url="",otel_scope_version=""} 4
# HELP load_ratio A gauge of unit 1.
# TYPE load_ratio gauge
load_ratio{otel_scope_name="scope.one",otel_scope_schema_url="",otel_scope_version=""} 1
# HELP obs_c_x_seconds_total Observed.
# TYPE obs_c_x_seconds_total counter
obs_c_x_seconds_total{f="1.5",otel_scope_name="scope.one",otel_scope_schema_url="",otel_scope_version=""} 5
# HELP requests_per_second_total A rate.
# TYPE requests_per_second_total counter
requests_per_second_total{otel_scope_name="scope.one",otel_scope_schema_url="",otel_scope_version=""} 2
# HELP target_info Target metadata
# TYPE target_info gauge
target_info{a_b="2;q\"\\\n",key_9lives="9",service_name="x",sl="[\"a\",\"b\"]"} 1
`

// scrape serves a GET of /metrics with the given headers.
func scrape(t *testing.T, h http.Handler, url string, header ...string) *http.Response {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, url, nil)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Result()
}

func body(t *testing.T, resp *http.Response) string {
	t.Helper()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// withoutProcess drops the go_* and process_* families.
func withoutProcess(text string) string {
	var kept []string
	for _, line := range strings.SplitAfter(text, "\n") {
		name := strings.TrimPrefix(strings.TrimPrefix(line, "# HELP "), "# TYPE ")
		if !strings.HasPrefix(name, "go_") && !strings.HasPrefix(name, "process_") {
			kept = append(kept, line)
		}
	}
	return strings.Join(kept, "")
}

func TestPromTextAsTheExporterWroteIt(t *testing.T) {
	t.Parallel()
	h := recordSamples(t)
	resp := scrape(t, h, "/metrics")
	if ct := resp.Header.Get("Content-Type"); ct != "text/plain; version=0.0.4; charset=utf-8; escaping=underscores" {
		t.Errorf("Content-Type %q", ct)
	}
	text := body(t, resp)
	if diff := cmp.Diff(wantSamples, withoutProcess(text)); diff != "" {
		t.Errorf("scrape (-want +got):\n%s", diff)
	}
	// Scraped again, the same.
	if again := withoutProcess(body(t, scrape(t, h, "/metrics"))); again != wantSamples {
		t.Errorf("a second scrape differs:\n%s", again)
	}
}

// TestPromProcessFigures: the Go runtime's and the process's figures, under
// client_golang's collectors' names, each with its HELP and TYPE, every
// line well formed.
func TestPromProcessFigures(t *testing.T) {
	t.Parallel()
	h := promHandler{reg: metrics.NewRegistry(metrics.Scope{}, metrics.TraceBased, metrics.ReaderConfig{})}
	text := body(t, scrape(t, h, "/metrics"))
	want := map[string]string{
		"go_gc_duration_seconds": "summary", "go_gc_gogc_percent": "gauge", "go_gc_gomemlimit_bytes": "gauge", "go_goroutines": "gauge", "go_info": "gauge",
		"go_memstats_alloc_bytes": "gauge", "go_memstats_alloc_bytes_total": "counter", "go_memstats_buck_hash_sys_bytes": "gauge", "go_memstats_frees_total": "counter",
		"go_memstats_gc_sys_bytes": "gauge", "go_memstats_heap_alloc_bytes": "gauge", "go_memstats_heap_idle_bytes": "gauge", "go_memstats_heap_inuse_bytes": "gauge",
		"go_memstats_heap_objects": "gauge", "go_memstats_heap_released_bytes": "gauge", "go_memstats_heap_sys_bytes": "gauge", "go_memstats_last_gc_time_seconds": "gauge",
		"go_memstats_mallocs_total": "counter", "go_memstats_mcache_inuse_bytes": "gauge", "go_memstats_mcache_sys_bytes": "gauge", "go_memstats_mspan_inuse_bytes": "gauge",
		"go_memstats_mspan_sys_bytes": "gauge", "go_memstats_next_gc_bytes": "gauge", "go_memstats_other_sys_bytes": "gauge", "go_memstats_stack_inuse_bytes": "gauge",
		"go_memstats_stack_sys_bytes": "gauge", "go_memstats_sys_bytes": "gauge", "go_sched_gomaxprocs_threads": "gauge", "go_threads": "gauge",
		"target_info": "gauge", // an empty resource
	}
	if runtime.GOOS == "linux" {
		for name, typ := range map[string]string{
			"process_cpu_seconds_total": "counter", "process_max_fds": "gauge", "process_open_fds": "gauge", "process_resident_memory_bytes": "gauge",
			"process_start_time_seconds": "gauge", "process_virtual_memory_bytes": "gauge", "process_virtual_memory_max_bytes": "gauge",
		} {
			want[name] = typ
		}
	}
	got := map[string]string{}
	sample := regexp.MustCompile(`^[a-zA-Z_:][a-zA-Z0-9_:]*(\{[a-zA-Z_][a-zA-Z0-9_]*="(\\.|[^"\\])*"(,[a-zA-Z_][a-zA-Z0-9_]*="(\\.|[^"\\])*")*\})? (-?[0-9.e+]+|[+-]Inf|NaN)$`)
	for line := range strings.Lines(text) {
		line = strings.TrimSuffix(line, "\n")
		if f := strings.Fields(line); strings.HasPrefix(line, "# TYPE ") && len(f) == 4 {
			got[f[2]] = f[3]
		} else if !strings.HasPrefix(line, "# HELP ") && !sample.MatchString(line) {
			t.Errorf("malformed line %q", line)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("families (-want +got):\n%s", diff)
	}
	for _, re := range []string{`(?m)^go_goroutines [1-9]`, `(?m)^go_info\{version="go.*"\} 1$`, `(?m)^go_gc_duration_seconds\{quantile="0.75"\} `, `(?m)^go_memstats_heap_alloc_bytes [1-9]`} {
		if !regexp.MustCompile(re).MatchString(text) {
			t.Errorf("no %s in\n%s", re, text)
		}
	}
	if runtime.GOOS == "linux" {
		for _, re := range []string{`(?m)^process_resident_memory_bytes [1-9]`, `(?m)^process_open_fds [1-9]`, `(?m)^process_start_time_seconds 1\.[0-9]+e\+09$`} {
			if !regexp.MustCompile(re).MatchString(text) {
				t.Errorf("no %s in\n%s", re, text)
			}
		}
	}
}

func TestPromGzipAndNames(t *testing.T) {
	t.Parallel()
	h := recordSamples(t)
	resp := scrape(t, h, "/metrics", "Accept-Encoding", "gzip")
	if resp.Header.Get("Content-Encoding") != "gzip" {
		t.Fatalf("Accept-Encoding: gzip answered with Content-Encoding %q", resp.Header.Get("Content-Encoding"))
	}
	zr, err := gzip.NewReader(bytes.NewReader([]byte(body(t, resp))))
	if err != nil {
		t.Fatal(err)
	}
	if unzipped, err := io.ReadAll(zr); err != nil || withoutProcess(string(unzipped)) != wantSamples {
		t.Errorf("gzipped scrape: %v\n%s", err, unzipped)
	}
	if resp := scrape(t, h, "/metrics", "Accept-Encoding", "gzip;q=0, identity"); resp.Header.Get("Content-Encoding") != "" {
		t.Errorf("gzip;q=0 answered with Content-Encoding %q", resp.Header.Get("Content-Encoding"))
	}
	only := body(t, scrape(t, h, "/metrics?name[]=load_ratio&name[]=go_info"))
	if !strings.HasPrefix(only, "# HELP go_info ") || !strings.Contains(only, "\nload_ratio{") || strings.Count(only, "# TYPE") != 2 {
		t.Errorf("?name[]=load_ratio&name[]=go_info served:\n%s", only)
	}
}

func TestPromNames(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ name, unit, kind, want string }{
		{"ramabana.tool.calls", "{call}", "counter", "ramabana_tool_calls_total"},
		{"ramabana.tool.duration", "s", "histogram", "ramabana_tool_duration_seconds"},
		{"ramabana.plugin.up", "1", "ratio", "ramabana_plugin_up_ratio"},
		{"ramabana.plugin.up", "1", "gauge", "ramabana_plugin_up"}, // an up-down counter
		{"http.server.request.size", "By", "histogram", "http_server_request_size_bytes"},
		{"requests_total", "1", "counter", "requests_total"},
		{"x.seconds", "s", "gauge", "x_seconds"},
		{"x", "By/s", "gauge", "x_bytes_per_second"},
		{"x", "m/mo", "gauge", "x_meters_per_month"},
		{"x", "widgets", "counter", "x_widgets_total"},
		{"5xx", "", "counter", "_5xx_total"},
		{"..", "", "gauge", ""},
	} {
		if got := promName(c.name, c.unit, c.kind); got != c.want {
			t.Errorf("promName(%q, %q, %s) = %q, want %q", c.name, c.unit, c.kind, got, c.want)
		}
	}
	for key, want := range map[string]string{"error.type": "error_type", "a..b": "a_b", "9lives": "key_9lives", "__x__": "", "__": "", "_x": "_x", "é": "", "x-é": "x_"} {
		if got := promLabelName(key); got != want {
			t.Errorf("promLabelName(%q) = %q, want %q", key, got, want)
		}
	}
}

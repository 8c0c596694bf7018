package e2e

import (
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ramabana/ramabana-mcp/host/internal/telemetry/otlptest"
	"github.com/ramabana/ramabana-mcp/internal/proctest"
)

// TestOTLPFromTheBinary: with OTEL_EXPORTER_OTLP_ENDPOINT set, a
// view_file call over stdio is a request span whose child is the hop to
// the files plugin, and the tool and plugin metrics go out; all of it
// flushed when the server exits.
func TestOTLPFromTheBinary(t *testing.T) {
	t.Parallel()
	r := &otlptest.Receiver{}
	ts := httptest.NewServer(r)
	t.Cleanup(ts.Close)
	s := startStdioEnv(t, []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + ts.URL, "OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf"}, project(t))
	if res, err := call(t, s.session, "view_file", map[string]any{"path": "pkg/sizes.py"}); err != nil || res.IsError {
		t.Fatalf("view_file: %v %v", err, text(res))
	}
	// The client goes away (stdin closes) and the server exits on its
	// own, flushing on the way: no signal, so no stop deadline.
	_ = s.session.Close()
	done := make(chan error, 1)
	go func() { done <- s.cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(proctest.Patience):
		t.Fatalf("the server did not exit when its stdin closed; stderr:\n%s", s.stderr)
	}

	byName := map[string]otlptest.Span{}
	var names []string
	for _, sp := range r.Spans() {
		byName[sp.GetName()] = sp
		names = append(names, sp.GetName())
	}
	request, hop := byName["tools/call view_file"], byName["execute_tool view_file"]
	if request.Span == nil || hop.Span == nil {
		t.Fatalf("spans received: %q; stderr:\n%s", names, s.stderr)
	}
	if string(hop.GetParentSpanId()) != string(request.GetSpanId()) || string(hop.GetTraceId()) != string(request.GetTraceId()) {
		t.Errorf("the hop span (trace %s, parent %s) is not the request span's (trace %s, span %s) child",
			hex.EncodeToString(hop.GetTraceId()), hex.EncodeToString(hop.GetParentSpanId()), hex.EncodeToString(request.GetTraceId()), hex.EncodeToString(request.GetSpanId()))
	}
	attrs := map[string]string{}
	for _, a := range hop.GetAttributes() {
		attrs[a.GetKey()] = a.GetValue().GetStringValue()
	}
	if attrs["plugin"] != "files" || attrs["ramabana.hop"] != "plugin" {
		t.Errorf("hop span attributes %v, want plugin files", attrs)
	}
	for _, a := range hop.GetAttributes() {
		if strings.Contains(a.GetValue().GetStringValue(), "sizes.py") {
			t.Errorf("the hop span holds the argument: %s", a)
		}
	}
	metrics := r.Metrics()
	for _, want := range []string{"ramabana.tool.calls", "ramabana.tool.duration", "ramabana.plugin.up", "ramabana.plugin.restarts"} {
		if !slices.Contains(metrics, want) {
			t.Errorf("no %s among the metrics received: %q", want, metrics)
		}
	}
}

func TestMetricsNeedsTheHTTPListener(t *testing.T) {
	t.Parallel()
	code, _, stderr := runBinary(t, "--metrics")
	if code != 2 || !strings.Contains(stderr, "--metrics serves /metrics on the HTTP listener") {
		t.Errorf("--metrics under stdio: exit %d, stderr %q", code, stderr)
	}
}

// TestMetricsScrapedFromTheListener: with --metrics the HTTP listener serves
// Prometheus' /metrics behind the token, counting the calls made through it.
func TestMetricsScrapedFromTheListener(t *testing.T) {
	t.Parallel()
	_, base := startHTTP(t, project(t), "--token", "s3cret", "--metrics")
	cs := connect(t, &mcp.StreamableClientTransport{Endpoint: base + "/mcp", HTTPClient: &http.Client{Transport: bearer{"s3cret"}}})
	for range 3 {
		if res, err := call(t, cs, "view_file", map[string]any{"path": "pkg/sizes.py"}); err != nil || res.IsError {
			t.Fatalf("view_file: %v %s", err, text(res))
		}
	}
	if code, _ := fetch(t, "GET", base+"/metrics", ""); code != http.StatusUnauthorized {
		t.Errorf("/metrics without the token = %d, want 401", code)
	}
	code, body := fetch(t, "GET", base+"/metrics", "s3cret")
	if code != http.StatusOK {
		t.Fatalf("/metrics = %d %.300s", code, body)
	}
	var calls string
	for _, line := range strings.Split(body, "\n") {
		if strings.HasPrefix(line, "ramabana_tool_calls") && strings.Contains(line, `tool="view_file"`) {
			calls = line
		}
	}
	if !strings.HasSuffix(calls, " 3") {
		t.Errorf("no count of 3 view_file calls in /metrics (found %q):\n%.2000s", calls, body)
	}
	// Prometheus names a gauge of unit 1 *_ratio.
	if !regexp.MustCompile(`(?m)^ramabana_plugin_up_ratio\{[^}]*plugin="files"[^}]*\} 1$`).MatchString(body) {
		t.Errorf("/metrics does not show the files plugin up:\n%s", body)
	}
}

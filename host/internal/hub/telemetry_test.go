package hub_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/ramabana/ramabana-mcp/host/internal/hub"
	"github.com/ramabana/ramabana-mcp/host/internal/mcpserver"
	"github.com/ramabana/ramabana-mcp/host/internal/supervise"
	"github.com/ramabana/ramabana-mcp/host/internal/telemetry"
	"github.com/ramabana/ramabana-mcp/host/internal/telemetry/metrics"
	"github.com/ramabana/ramabana-mcp/host/internal/telemetry/spans"
	"github.com/ramabana/ramabana-mcp/host/internal/upstream"
	"github.com/ramabana/ramabana-mcp/internal/proctest"
	"github.com/ramabana/ramabana-mcp/internal/skilltest"
)

// secret is an argument value no span may hold.
const secret = "jane.doe-4111111111111111"

// TestTelemetry calls real plugin and upstream tools through the MCP
// server, with in-memory exporters: each request is a span whose child is
// the hop to the plugin, whose trace context reaches the plugin's handler;
// the tool, plugin and upstream metrics count what happened; and no span
// holds an argument.
func TestTelemetry(t *testing.T) {
	t.Parallel()
	rec := &spans.Recorder{}
	reg := metrics.NewRegistry(metrics.Scope{Name: "test"}, metrics.TraceBased, metrics.ReaderConfig{})
	ins := telemetry.NewInstruments(rec.Provider(), reg)
	dir := t.TempDir()
	for _, mode := range []string{"echo", "trace"} {
		if err := os.Symlink(hub.TestPlugin(), filepath.Join(dir, supervise.PluginPrefix+mode)); err != nil {
			t.Fatal(err)
		}
	}
	url := skilltest.Server(t, map[string]skilltest.Skill{
		"runbook": {Mode: "auto", Text: "Restart the service."},
		"broken":  {Mode: "auto", Text: "backend down", IsError: true},
	})
	h, logs := hub.StartHost(t, hub.Config{
		PluginDirs: []string{dir}, Telemetry: ins,
		Upstream: upstream.NewConfig(upstream.Server{ID: "docs", Type: upstream.TypeHTTP, URL: url, ReadOnly: true}),
	})
	select {
	case <-h.Ready():
	case <-time.After(proctest.Patience):
		t.Fatalf("the host never settled; logs:\n%s", logs)
	}
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := mcpserver.New(h, mcpserver.Options{Version: "test", Telemetry: ins}).Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	call := func(name string, args any) *mcp.CallToolResult {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return res
	}

	res := call("trace_context", map[string]any{"text": secret})
	var got struct {
		TraceID string `json:"trace_id"`
		SpanID  string `json:"span_id"`
		Remote  bool   `json:"remote"`
	}
	if err := json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &got); err != nil {
		t.Fatalf("trace_context answered %v: %v", res.Content, err)
	}
	call("echo", map[string]any{"text": secret})
	if res := call("echo", map[string]any{"text": 5}); !res.IsError {
		t.Fatal("echo took a number for its text")
	}
	call("docs__runbook", map[string]any{"q": secret})
	call("docs__broken", map[string]any{})

	// The span tree of the trace_context call: request → hop, and the
	// plugin's handler got the hop's context.
	request := findSpan(t, rec, "tools/call trace_context")
	hop := findSpan(t, rec, "execute_tool trace_context")
	if request.Kind != trace.SpanKindServer || hop.Kind != trace.SpanKindClient {
		t.Errorf("kinds: request %v, hop %v; want server, client", request.Kind, hop.Kind)
	}
	if hop.Parent.SpanID() != request.SpanContext.SpanID() || hop.SpanContext.TraceID() != request.SpanContext.TraceID() {
		t.Errorf("the hop span %v is not the request span %v's child", hop.Parent, request.SpanContext)
	}
	if got.TraceID != hop.SpanContext.TraceID().String() || got.SpanID != hop.SpanContext.SpanID().String() || !got.Remote {
		t.Errorf("the plugin's handler got trace %s span %s remote %v; want the hop's, trace %s span %s, remote",
			got.TraceID, got.SpanID, got.Remote, hop.SpanContext.TraceID(), hop.SpanContext.SpanID())
	}
	wantAttrs(t, request, map[string]string{"mcp.method.name": "tools/call", "gen_ai.tool.name": "trace_context"})
	wantAttrs(t, hop, map[string]string{"gen_ai.tool.name": "trace_context", "group": "trace", "plugin": "trace", "caller": "client", "ramabana.hop": "plugin"})
	wantAttrs(t, findSpan(t, rec, "execute_tool docs__runbook"), map[string]string{"upstream": "docs", "ramabana.hop": "upstream"})

	// A tool error is an error status naming its type, on both spans.
	for _, s := range rec.Ended() {
		if s.Name != "tools/call echo" && s.Name != "execute_tool echo" {
			continue
		}
		if s.Status.Code == codes.Error && s.Status.Description != telemetry.ErrorTool {
			t.Errorf("span %s status %v, want the error's type only", s.Name, s.Status)
		}
	}
	for _, s := range rec.Ended() {
		for _, a := range s.Attributes {
			if strings.Contains(a.Value.String(), "jane.doe") || strings.Contains(a.Value.String(), "4111") {
				t.Errorf("span %s holds an argument: %s=%s", s.Name, a.Key, a.Value.String())
			}
		}
		if strings.Contains(s.Status.Description, "jane.doe") || len(s.Events) > 0 {
			t.Errorf("span %s holds status %q and events %v", s.Name, s.Status.Description, s.Events)
		}
	}

	m := collect(reg)
	for _, c := range []struct {
		metric string
		attrs  map[string]string
		want   int64
	}{
		{"ramabana.tool.calls", map[string]string{"tool": "trace_context", "group": "trace", "caller": "client"}, 1},
		{"ramabana.tool.calls", map[string]string{"tool": "echo", "group": "echo", "caller": "client"}, 2},
		{"ramabana.tool.errors", map[string]string{"tool": "echo", "error.type": telemetry.ErrorTool}, 1},
		{"ramabana.tool.errors", map[string]string{"tool": "trace_context"}, 0},
		{"ramabana.tool.duration", map[string]string{"tool": "echo"}, 2},
		{"ramabana.upstream.calls", map[string]string{"upstream": "docs"}, 2},
		{"ramabana.upstream.errors", map[string]string{"upstream": "docs", "error.type": telemetry.ErrorTool}, 1},
		{"ramabana.upstream.up", map[string]string{"upstream": "docs"}, 1},
		{"ramabana.plugin.up", map[string]string{"plugin": "echo"}, 1},
		{"ramabana.plugin.up", map[string]string{"plugin": "trace"}, 1},
		{"ramabana.plugin.restarts", map[string]string{"plugin": "echo"}, 0},
	} {
		if got := m.value(c.metric, c.attrs); got != c.want {
			t.Errorf("%s%v = %d, want %d", c.metric, c.attrs, got, c.want)
		}
	}

	// The duration of the trace_context call keeps the hop's span as its
	// exemplar: from a slow bucket to the call's trace.
	var exemplars []metrics.Exemplar
	for _, p := range m["ramabana.tool.duration"].Histograms {
		if v, _ := p.Attributes.Value("tool"); v.AsString() == "trace_context" {
			exemplars = append(exemplars, p.Exemplars...)
		}
	}
	if len(exemplars) != 1 || exemplars[0].TraceID != hop.SpanContext.TraceID() || exemplars[0].SpanID != hop.SpanContext.SpanID() {
		t.Errorf("trace_context's duration exemplars %+v; want one naming the hop span %v", exemplars, hop.SpanContext)
	}

	// A killed plugin is down until the next call relaunches it: one
	// restart.
	p := h.Plugins()["echo"]
	proc, err := os.FindProcess(p.Pid())
	if err == nil {
		err = proc.Kill()
	}
	if err != nil {
		t.Fatal(err)
	}
	if !proctest.Await(func() bool { return !p.Health().Running }) {
		t.Fatal("the killed plugin still runs")
	}
	if got := collect(reg).value("ramabana.plugin.up", map[string]string{"plugin": "echo"}); got != 0 {
		t.Errorf("ramabana.plugin.up of a dead plugin = %d, want 0", got)
	}
	call("echo", map[string]any{"text": "again"})
	m = collect(reg)
	if up, restarts := m.value("ramabana.plugin.up", map[string]string{"plugin": "echo"}), m.value("ramabana.plugin.restarts", map[string]string{"plugin": "echo"}); up != 1 || restarts != 1 {
		t.Errorf("after a relaunch, up = %d and restarts = %d; want 1 and 1", up, restarts)
	}
}

// findSpan is the one ended span of the name.
func findSpan(t *testing.T, rec *spans.Recorder, name string) *spans.Data {
	t.Helper()
	var found []*spans.Data
	var names []string
	for _, s := range rec.Ended() {
		names = append(names, s.Name)
		if s.Name == name {
			found = append(found, s)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d spans named %q; the spans: %q", len(found), name, names)
	}
	return found[0]
}

func wantAttrs(t *testing.T, s *spans.Data, want map[string]string) {
	t.Helper()
	have := map[string]string{}
	for _, a := range s.Attributes {
		have[string(a.Key)] = a.Value.String()
	}
	for k, v := range want {
		if have[k] != v {
			t.Errorf("span %s: %s = %q, want %q", s.Name, k, have[k], v)
		}
	}
}

// collected are collected metrics, by name.
type collected map[string]metrics.Metric

func collect(reg *metrics.Registry) collected {
	m := collected{}
	for _, md := range reg.Collect(0).Metrics {
		m[md.Name] = md
	}
	return m
}

// value is the sum of a counter's or gauge's points, or the count of a
// histogram's, whose attributes include attrs.
func (m collected) value(name string, attrs map[string]string) int64 {
	match := func(set attribute.Set) bool {
		for k, v := range attrs {
			if got, ok := set.Value(attribute.Key(k)); !ok || got.String() != v {
				return false
			}
		}
		return true
	}
	var n int64
	for _, p := range m[name].Points {
		if match(p.Attributes) {
			n += p.Value
		}
	}
	for _, p := range m[name].Histograms {
		if match(p.Attributes) {
			n += int64(p.Count) //nolint:gosec // a test's few calls
		}
	}
	return n
}

// BenchmarkPluginCallTelemetry is BenchmarkPluginCall with telemetry on:
// every call a span (sampled, ended into a recorder) and its metrics.
func BenchmarkPluginCallTelemetry(b *testing.B) {
	ins := telemetry.NewInstruments((&spans.Recorder{}).Provider(), metrics.NewRegistry(metrics.Scope{Name: "bench"}, metrics.TraceBased, metrics.ReaderConfig{}))
	dir := b.TempDir()
	if err := os.Symlink(hub.TestPlugin(), filepath.Join(dir, supervise.PluginPrefix+"echo")); err != nil {
		b.Fatal(err)
	}
	h, err := hub.New(hub.Config{Roots: []string{b.TempDir()}, PluginDirs: []string{dir}, Web: true, PluginEnv: []string{"GOMAXPROCS"}, Telemetry: ins})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = h.Close() })
	if err := h.Start(context.Background()); err != nil {
		b.Fatal(err)
	}
	args := json.RawMessage(`{"text":"hello"}`)
	for b.Loop() {
		res, err := h.Call(context.Background(), "echo", args, nil)
		if err != nil || res.Text() != "hello" {
			b.Fatalf("echo: %v %v", res, err)
		}
	}
}

package hub

import (
	"context"
	"encoding/json"
	"testing"
)

// BenchmarkPluginCall is the plugin hop alone: a call through the catalog,
// schema validation and gRPC to a live plugin process and back, without MCP.
func BenchmarkPluginCall(b *testing.B) {
	h, err := New(Config{Roots: []string{b.TempDir()}, PluginDirs: []string{pluginDir(b, "echo")}, Web: true, PluginEnv: []string{"GOMAXPROCS"}})
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

package web

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ramabana/ramabana-mcp/sdk"
	"github.com/ramabana/ramabana-mcp/sdk/sdktest"
)

// testServer is a server with no environment, so that the developer's
// variables cannot change a test.
func testServer(env map[string]string) *server {
	s := newServer()
	s.getenv = func(k string) string { return env[k] }
	return s
}

// connect serves s over gRPC with the web allowed and configDir as the
// host's config dir.
func connect(t *testing.T, s *server, configDir string) sdk.Group {
	t.Helper()
	g, _ := sdktest.Connect(t, newToolbox(s), sdk.Host{Web: true, ConfigDir: configDir})
	return g
}

// call calls a tool and returns its text and whether it is an error.
func call(t *testing.T, g sdk.Group, tool string, args any) (string, bool) {
	t.Helper()
	res := sdktest.Call(t, g, tool, args)
	return res.Text(), res.IsError
}

func TestDescribe(t *testing.T) {
	t.Parallel()
	_, d := sdktest.Connect(t, New(), sdk.Host{Web: true})
	type tool struct {
		Name, Kind string
		Hints      sdk.Hints
		Required   []string
	}
	var got []tool
	for _, g := range d.Groups {
		if g.Name != "web" || g.Mode != sdk.ModeDefault {
			t.Errorf("group %q mode %s, want web default", g.Name, g.Mode)
		}
		for _, s := range g.Tools {
			if s.Title == "" || len(s.Description) < 80 {
				t.Errorf("%s: title %q, description of %d bytes; want both", s.Name, s.Title, len(s.Description))
			}
			var schema struct {
				Type     string   `json:"type"`
				Required []string `json:"required"`
			}
			if err := json.Unmarshal(s.InputSchema, &schema); err != nil || schema.Type != "object" {
				t.Errorf("%s: input schema %s: %v", s.Name, s.InputSchema, err)
			}
			got = append(got, tool{Name: s.Name, Kind: s.Kind.String(), Hints: s.Hints(), Required: schema.Required})
		}
	}
	openRead := sdk.Hints{ReadOnly: true, Idempotent: true, OpenWorld: true}
	want := []tool{
		{Name: "fetch_url", Kind: "read", Hints: openRead, Required: []string{"url"}},
		{Name: "web_search", Kind: "read", Hints: openRead, Required: []string{"query"}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	if d.Name != "web" || d.Version != Version {
		t.Errorf("plugin %s %s", d.Name, d.Version)
	}
}

func TestWebOff(t *testing.T) {
	t.Parallel()
	g, _ := sdktest.Connect(t, New(), sdk.Host{Web: false, ConfigDir: t.TempDir()})
	tests := map[string]struct {
		tool string
		args any
	}{
		"fetch_url":  {"fetch_url", map[string]any{"url": "http://127.0.0.1:1/"}},
		"web_search": {"web_search", map[string]any{"query": "go"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			text, isErr := call(t, g, tc.tool, tc.args)
			if !isErr || !strings.Contains(text, "--web") || !strings.Contains(text, tc.tool) {
				t.Errorf("got error=%t %q; want an error naming %s and --web", isErr, text, tc.tool)
			}
		})
	}
}

// recorder keeps the progress events of a call.
type recorder struct {
	mu       sync.Mutex
	progress []float64
	totals   []float64
}

func (r *recorder) Progress(p, total float64, _ string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.progress = append(r.progress, p)
	r.totals = append(r.totals, total)
}

func (r *recorder) Log(sdk.LogLevel, string) {}

// callEvents calls a tool with events.
func callEvents(t *testing.T, g sdk.Group, tool string, args any, ev sdk.Events) *sdk.Result {
	t.Helper()
	b, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	res, err := g.Call(context.Background(), &sdk.Call{Tool: tool, Arguments: b}, ev)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

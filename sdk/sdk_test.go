package sdk_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ramabana/ramabana-mcp/sdk"
	"github.com/ramabana/ramabana-mcp/sdk/sdktest"
)

type greetArgs struct {
	Name  string `json:"name" jsonschema:"who to greet"`
	Times int    `json:"times,omitempty"`
}

func ptr[T any](v T) *T { return &v }

// testBox has one tool of each behaviour the adapters must carry.
func testBox() *sdk.Toolbox {
	box := sdk.NewToolbox("test", sdk.WithVersion("1.2.3"), sdk.WithDescription("test group"))
	box.AddGroup(sdk.GroupSpec{Name: "test", Description: "main"},
		sdk.TypedTool(sdk.ToolSpec{Name: "greet", Title: "Greet", Description: "Say hello.", Kind: sdk.KindRead},
			func(_ context.Context, req *sdk.Request, a greetArgs) (*sdk.Result, error) {
				req.Events.Progress(1, 2, "half")
				req.Events.Log(sdk.LevelWarning, "careful")
				return &sdk.Result{
					Content:    []sdk.Content{{Text: "hello " + a.Name}, {Image: &sdk.Image{Data: []byte{1, 2}, MIMEType: "image/png"}}},
					Structured: json.RawMessage(`{"ok":true}`),
					Changes:    []sdk.FileChange{{Path: "/a", AfterSHA256: "ff"}},
				}, nil
			}),
		sdk.Tool{Spec: sdk.ToolSpec{Name: "boom", Kind: sdk.KindRead, InputSchema: json.RawMessage(`{"type":"object"}`)},
			Handler: func(context.Context, *sdk.Request) (*sdk.Result, error) { panic("kaboom") }},
		sdk.Tool{Spec: sdk.ToolSpec{Name: "fail", Kind: sdk.KindRead, InputSchema: json.RawMessage(`{"type":"object"}`)},
			Handler: func(context.Context, *sdk.Request) (*sdk.Result, error) { return nil, errors.New("disk on fire") }},
		sdk.Tool{Spec: sdk.ToolSpec{Name: "big", Kind: sdk.KindRead, InputSchema: json.RawMessage(`{"type":"object"}`)},
			Handler: func(context.Context, *sdk.Request) (*sdk.Result, error) {
				return sdk.TextResult(strings.Repeat("x", 8<<20)), nil
			}},
		sdk.Tool{Spec: sdk.ToolSpec{Name: "roots", Kind: sdk.KindRead, InputSchema: json.RawMessage(`{"type":"object"}`)},
			Handler: func(_ context.Context, req *sdk.Request) (*sdk.Result, error) {
				return sdk.TextResult(strings.Join(req.Host.Roots, ",")), nil
			}},
	)
	box.AddGroup(sdk.GroupSpec{Name: "extra", Mode: sdk.ModeOptIn, ReplacedBy: "x"},
		sdk.Tool{Spec: sdk.ToolSpec{
			Name: "ctx", Kind: sdk.KindAct, Task: sdk.TaskContext, AsUserMessage: true,
			Annotations: sdk.Annotations{OpenWorld: ptr(true)}, InputSchema: json.RawMessage(`{"type":"object"}`),
		}},
	)
	return box
}

type recorder struct {
	mu     sync.Mutex
	events []string
}

func (r *recorder) Progress(p, total float64, msg string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, "progress "+msg)
}

func (r *recorder) Log(level sdk.LogLevel, msg string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, "log "+msg)
}

func TestDescribeRoundTrip(t *testing.T) {
	t.Parallel()
	g, d := sdktest.Connect(t, testBox(), sdk.Host{Roots: []string{"/srv"}})
	if d.Name != "test" || d.Version != "1.2.3" || len(d.Groups) != 2 {
		t.Fatalf("description = %+v", d)
	}
	greet := d.Groups[0].Tools[0]
	var schema map[string]any
	if err := json.Unmarshal(greet.InputSchema, &schema); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]any{"name"}, schema["required"]); diff != "" {
		t.Errorf("inferred required (-want +got):\n%s", diff)
	}
	if greet.Task != sdk.TaskCompletion || greet.Kind != sdk.KindRead || greet.Title != "Greet" {
		t.Errorf("greet spec = %+v", greet)
	}
	extra := d.Groups[1]
	if extra.Mode != sdk.ModeOptIn || extra.ReplacedBy != "x" {
		t.Errorf("extra group = %+v", extra)
	}
	ctxTool := extra.Tools[0]
	if ctxTool.Task != sdk.TaskContext || !ctxTool.AsUserMessage || ctxTool.Kind != sdk.KindAct ||
		ctxTool.Annotations.OpenWorld == nil || !*ctxTool.Annotations.OpenWorld {
		t.Errorf("ctx spec = %+v", ctxTool)
	}
	if got := sdktest.Call(t, g, "roots", nil).Text(); got != "/srv" {
		t.Errorf("host roots seen by a handler = %q", got)
	}
}

func TestCallCarriesEventsAndResult(t *testing.T) {
	t.Parallel()
	g, _ := sdktest.Connect(t, testBox(), sdk.Host{})
	rec := &recorder{}
	res, err := g.Call(context.Background(), &sdk.Call{Tool: "greet", Arguments: json.RawMessage(`{"name":"ada"}`)}, rec)
	if err != nil {
		t.Fatal(err)
	}
	want := &sdk.Result{
		Content:    []sdk.Content{{Text: "hello ada"}, {Image: &sdk.Image{Data: []byte{1, 2}, MIMEType: "image/png"}}},
		Structured: json.RawMessage(`{"ok":true}`),
		Changes:    []sdk.FileChange{{Path: "/a", AfterSHA256: "ff"}},
	}
	if diff := cmp.Diff(want, res); diff != "" {
		t.Errorf("result (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"progress half", "log careful"}, rec.events); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

func TestFailures(t *testing.T) {
	t.Parallel()
	g, _ := sdktest.Connect(t, testBox(), sdk.Host{})
	for name, tc := range map[string]struct {
		tool, args string
		check      func(*sdk.Result, error) bool
	}{
		"panic is an error, not a crash": {tool: "boom", check: func(_ *sdk.Result, err error) bool {
			return err != nil && strings.Contains(err.Error(), "kaboom")
		}},
		"handler error": {tool: "fail", check: func(_ *sdk.Result, err error) bool {
			return err != nil && strings.Contains(err.Error(), "disk on fire")
		}},
		"unknown tool": {tool: "nope", check: func(_ *sdk.Result, err error) bool {
			return errors.Is(err, sdk.ErrUnknownTool)
		}},
		"arguments against the schema are the host's tool error": {tool: "greet", args: `{"name": 1}`, check: func(r *sdk.Result, err error) bool {
			return err == nil && r.IsError && strings.Contains(r.Text(), "invalid arguments for greet")
		}},
		"unknown argument is a tool error": {tool: "greet", args: `{"name": "a", "nickname": "b"}`, check: func(r *sdk.Result, err error) bool {
			return err == nil && r.IsError && strings.Contains(r.Text(), "nickname")
		}},
		"results over grpc's 4 MiB default": {tool: "big", check: func(r *sdk.Result, err error) bool {
			return err == nil && len(r.Text()) == 8<<20
		}},
	} {
		t.Run(name, func(t *testing.T) {
			res, err := g.Call(context.Background(), &sdk.Call{Tool: tc.tool, Arguments: json.RawMessage(tc.args)}, nil)
			if !tc.check(res, err) {
				t.Errorf("got %+v, %v", res, err)
			}
		})
	}
	// The server survived the panic.
	if got := sdktest.Call(t, g, "greet", map[string]any{"name": "again"}).Text(); got != "hello again" {
		t.Errorf("after the panic: %q", got)
	}
}

// TestUndecodableArguments: arguments that reach a typed tool without the
// host's validation (a group called directly) and do not decode are a tool
// error naming the tool, not a fault.
func TestUndecodableArguments(t *testing.T) {
	t.Parallel()
	res, err := testBox().Call(context.Background(), &sdk.Call{Tool: "greet", Arguments: json.RawMessage(`{"name": 1}`)}, nil)
	if err != nil || !res.IsError || !strings.Contains(res.Text(), "arguments of greet") {
		t.Errorf("got %+v, %v; want an error result naming the tool", res, err)
	}
}

func TestHints(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		spec sdk.ToolSpec
		want sdk.Hints
	}{
		"read":                {sdk.ToolSpec{Kind: sdk.KindRead}, sdk.Hints{ReadOnly: true, Idempotent: true}},
		"write":               {sdk.ToolSpec{Kind: sdk.KindWrite}, sdk.Hints{Destructive: true}},
		"act":                 {sdk.ToolSpec{Kind: sdk.KindAct}, sdk.Hints{}},
		"override open world": {sdk.ToolSpec{Kind: sdk.KindRead, Annotations: sdk.Annotations{OpenWorld: ptr(true)}}, sdk.Hints{ReadOnly: true, Idempotent: true, OpenWorld: true}},
		"override destructive": {sdk.ToolSpec{Kind: sdk.KindWrite, Annotations: sdk.Annotations{Destructive: ptr(false), Idempotent: ptr(true)}},
			sdk.Hints{Idempotent: true}},
	} {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, tc.spec.Hints()); diff != "" {
				t.Errorf("hints (-want +got):\n%s", diff)
			}
		})
	}
}

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ramabana/ramabana-mcp/internal/proctest"
	"github.com/ramabana/ramabana-mcp/sdk"
	"github.com/ramabana/ramabana-mcp/sdk/sdktest"
	"github.com/ramabana/ramabana-mcp/tasks"
)

// hostBin and pluginBin are ramabana-mcp and this plugin, built once into
// a temporary folder.
var hostBin, pluginBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "ramabana-tasks-plugin")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := func() int {
		defer os.RemoveAll(dir)
		hostBin = filepath.Join(dir, "ramabana-mcp")
		pluginBin = filepath.Join(dir, "plugins", "ramabana-plugin-docs")
		for out, pkg := range map[string]string{
			hostBin:   "github.com/ramabana/ramabana-mcp/cmd/ramabana-mcp",
			pluginBin: "github.com/ramabana/ramabana-mcp/examples/tasks-plugin",
		} {
			if err := proctest.Build(out, nil, pkg); err != nil {
				fmt.Fprintf(os.Stderr, "go build %s: %v\n", pkg, err)
				return 1
			}
		}
		return m.Run()
	}()
	os.Exit(code)
}

// wantMeta is each tool's _meta as tools/list carries it (JSON decoded).
var wantMeta = map[string]map[string]any{
	"policies": {"mcp_server": map[string]any{"task": "context", "as_user_message": false}, "fastmcp": map[string]any{"tags": []any{"context"}}},
	"ticket":   {"mcp_server": map[string]any{"task": "context", "as_user_message": true}, "fastmcp": map[string]any{"tags": []any{"context"}}},
	"search":   {"mcp_server": map[string]any{"task": "completion"}, "fastmcp": map[string]any{"tags": []any{"completion"}}},
	"grounded": {"mcp_server": map[string]any{"task": "evaluation"}, "fastmcp": map[string]any{"tags": []any{"evaluation"}}},
	"audit":    {"mcp_server": map[string]any{"task": "post_tool"}, "fastmcp": map[string]any{"tags": []any{"post_tool"}}},
	"style":    {"mcp_server": map[string]any{"task": "skill", "mode": "always-on"}, "fastmcp": map[string]any{"tags": []any{"skill"}}},
	"ping":     {"mcp_server": map[string]any{"task": "none"}, "fastmcp": map[string]any{"tags": []any{"none"}}},
}

// calls are a call of each tool and the text it answers.
var calls = []struct {
	tool string
	args map[string]any
	text string
}{
	{"policies", nil, "Always cite sources."},
	{"ticket", nil, "Ticket #123 is still open."},
	{"search", map[string]any{"q": "tasks"}, "Results for tasks"},
	{"grounded", map[string]any{"answer": "It is 42."}, `{"is_valid":true,"score":1,"feedback":null}`},
	{"grounded", map[string]any{"answer": "  "}, `{"is_valid":false,"score":0,"feedback":"Answer is empty."}`},
	{"audit", map[string]any{"answer": "It is 42."}, ""},
	{"style", nil, styleSkill},
	{"ping", nil, "pong"},
}

// TestInProcess: the plugin as the host sees it over gRPC, without a
// process: each tool's declared task, and each call's result.
func TestInProcess(t *testing.T) {
	t.Parallel()
	g, desc := sdktest.Connect(t, newDocs(), sdk.Host{})
	got := map[string]sdk.ToolSpec{}
	for _, spec := range desc.Groups[0].Tools {
		got[spec.Name] = sdk.ToolSpec{Task: spec.Task, AsUserMessage: spec.AsUserMessage, Mode: spec.Mode}
	}
	want := map[string]sdk.ToolSpec{
		"policies": {Task: sdk.TaskContext},
		"ticket":   {Task: sdk.TaskContext, AsUserMessage: true},
		"search":   {Task: sdk.TaskCompletion},
		"grounded": {Task: sdk.TaskEvaluation},
		"audit":    {Task: sdk.TaskPostTool},
		"style":    {Task: sdk.TaskSkill, Mode: sdk.SkillAlwaysOn},
		"ping":     {Task: sdk.TaskNone},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("declared tasks (-want +got):\n%s", diff)
	}
	for _, c := range calls {
		args, _ := json.Marshal(c.args)
		res, err := g.Call(context.Background(), &sdk.Call{Tool: c.tool, Arguments: args}, sdk.NoEvents)
		if err != nil || res.IsError || res.Text() != c.text {
			t.Errorf("%s(%s) = %+v, %v; want text %q", c.tool, args, res, err, c.text)
		}
	}
}

// server is ramabana-mcp serving the plugin, driven over stdio by the
// go-sdk client.
type server struct {
	session *mcp.ClientSession
	stderr  *proctest.Output
}

func startHost(t *testing.T) *server {
	t.Helper()
	cmd := exec.Command(hostBin, "--root", t.TempDir(), "--cfg", t.TempDir(), "--log-level", "debug",
		"--plugins", filepath.Dir(pluginBin))
	cmd.Env = append(os.Environ(), "RAMABANA_PLUGIN_PATH=")
	s := &server{stderr: &proctest.Output{}}
	cmd.Stderr = s.stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(done)
	}()
	t.Cleanup(func() {
		if s.session != nil {
			_ = s.session.Close()
		}
		_ = stdin.Close() // the host ends when its stdin does
		select {
		case <-done:
		case <-time.After(proctest.Patience):
			_ = cmd.Process.Kill()
			<-done
			t.Errorf("ramabana-mcp did not exit when its stdin closed; stderr:\n%s", s.stderr)
		}
	})
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	c := mcp.NewClient(&mcp.Implementation{Name: "tasks-plugin-test", Version: "0"}, nil)
	s.session, err = c.Connect(ctx, &mcp.IOTransport{Reader: io.NopCloser(stdout), Writer: stdin}, nil)
	if err != nil {
		t.Fatalf("connect: %v; stderr:\n%s", err, s.stderr)
	}
	return s
}

// TestServedByTheHost: the real host serves the real plugin binary to a
// real MCP client: tools/list carries each tool's task under both _meta
// keys, tasks.ToolsForTask sorts the listing, and each call's result is
// its task's wire form (the evaluation JSON, post's empty text).
func TestServedByTheHost(t *testing.T) {
	t.Parallel()
	s := startHost(t)
	ctx := context.Background()
	res, err := s.session.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]*mcp.Tool{}
	var ours []*mcp.Tool
	for _, tool := range res.Tools {
		listed[tool.Name] = tool
		if _, ok := wantMeta[tool.Name]; ok {
			ours = append(ours, tool)
		}
	}
	for name, want := range wantMeta {
		tool, ok := listed[name]
		if !ok {
			t.Fatalf("%s not listed; stderr:\n%s", name, s.stderr)
		}
		got := map[string]any{"mcp_server": tool.Meta["mcp_server"], "fastmcp": tool.Meta["fastmcp"]}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s _meta (-want +got):\n%s", name, diff)
		}
	}
	if out := listed["grounded"].OutputSchema; out == nil {
		t.Error("grounded has no output schema")
	}

	byTask := map[tasks.Task][]string{}
	for _, task := range tasks.All {
		for _, tool := range tasks.ToolsForTask(ours, task) {
			byTask[task] = append(byTask[task], tool.Name)
		}
	}
	for _, names := range byTask {
		slices.Sort(names)
	}
	wantByTask := map[tasks.Task][]string{
		tasks.Context: {"policies", "ticket"}, tasks.Completion: {"search"}, tasks.Evaluation: {"grounded"},
		tasks.PostTool: {"audit"}, tasks.Skill: {"style"}, tasks.None: {"ping"},
	}
	if diff := cmp.Diff(wantByTask, byTask); diff != "" {
		t.Errorf("ToolsForTask over the listing (-want +got):\n%s", diff)
	}

	for _, c := range calls {
		r, err := s.session.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
		if err != nil {
			t.Fatalf("call %s: %v; stderr:\n%s", c.tool, err, s.stderr)
		}
		if r.IsError || len(r.Content) != 1 {
			t.Errorf("%s = %+v, want one content block", c.tool, r)
			continue
		}
		if tc, ok := r.Content[0].(*mcp.TextContent); !ok || tc.Text != c.text {
			t.Errorf("%s content = %#v, want the text %q", c.tool, r.Content[0], c.text)
		}
		if c.tool == "grounded" {
			var want any
			if err := json.Unmarshal([]byte(c.text), &want); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, r.StructuredContent); diff != "" {
				t.Errorf("grounded structured content (-want +got):\n%s", diff)
			}
			ev, err := sdk.ParseEvaluation(&sdk.Result{Content: []sdk.Content{{Text: c.text}}})
			if err != nil || ev.IsValid != strings.Contains(c.text, "true") {
				t.Errorf("ParseEvaluation(%s) = %+v, %v", c.text, ev, err)
			}
		}
	}
	// audit's side effect: its log event, in the host's log.
	if !proctest.Await(func() bool { return strings.Contains(s.stderr.String(), "audited an answer of 9 bytes") }) {
		t.Errorf("audit's log event is not in the host's log:\n%s", s.stderr)
	}
}

package ask_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ramabana/ramabana-mcp/host/internal/activity"
	"github.com/ramabana/ramabana-mcp/host/internal/agent"
	"github.com/ramabana/ramabana-mcp/host/internal/ask"
	"github.com/ramabana/ramabana-mcp/host/internal/hub"
	"github.com/ramabana/ramabana-mcp/sdk"
)

// tasksExample builds examples/tasks-plugin, a plugin with a tool for
// each agent task, once, as ramabana-plugin-docs in a folder of its own
// (the only plugin there), and returns its path.
func tasksExample(t *testing.T) string {
	t.Helper()
	path, err := buildTasksExample()
	if err != nil {
		t.Fatal(err)
	}
	return path
}

var buildTasksExample = sync.OnceValues(func() (string, error) {
	// Beside the test plugin, whose folder TestMain removes at the end.
	dir := filepath.Join(filepath.Dir(testPlugin), "tasks-example")
	if err := os.Mkdir(dir, 0o755); err != nil {
		return "", err
	}
	path := filepath.Join(dir, "ramabana-plugin-docs")
	// Written by go build, not by this process (not proctest.Build): this
	// runs inside a parallel test, beside tests that start processes.
	if b, err := exec.Command("go", "build", "-o", path, "github.com/ramabana/ramabana-mcp/examples/tasks-plugin").CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build examples/tasks-plugin: %v\n%s", err, b)
	}
	return path, nil
})

// exampleTools are the tools of examples/tasks-plugin.
var exampleTools = []string{"policies", "ticket", "search", "grounded", "audit", "style", "ping"}

// stepRecorder is the ask call's events: its progress notifications.
type stepRecorder struct {
	mu     sync.Mutex
	values []float64
	msgs   []string
}

func (p *stepRecorder) Progress(progress, _ float64, msg string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.values = append(p.values, progress)
	p.msgs = append(p.msgs, msg)
}

func (p *stepRecorder) Log(sdk.LogLevel, string) {}

// TestAskIsATaskAwareClient: an ask turn over examples/tasks-plugin, with the
// scripted backend. What the backend was sent holds the context tools'
// text (policies in the system prompt, ticket as a user message) and the
// always-on skill, and only the completion tool; after the answer, audit
// then grounded ran, and grounded's failure on the empty first answer
// brought one retry. Every call is in the activity feed as the agent's,
// and every step was its own progress notification.
func TestAskIsATaskAwareClient(t *testing.T) {
	t.Parallel()
	h, err := hub.New(hub.Config{
		Roots: []string{t.TempDir()}, PluginDirs: []string{filepath.Dir(tasksExample(t))}, Agent: true,
		StartTimeout: 10 * time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.Close() })
	if err := h.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	be := agent.NewScripted(
		agent.Calls(agent.ToolCall{ID: "c1", Name: "search", Arguments: `{"q": "the answer"}`}),
		agent.Text(""),
		agent.Text("It is 42."),
	)
	if _, err := ask.Mount(ask.Config{Host: h, Backend: be, Model: "scripted"}); err != nil {
		t.Fatal(err)
	}
	rec := &stepRecorder{}
	res, err := h.Call(context.Background(), "ask", json.RawMessage(`{"task": "what is the answer?"}`), rec)
	if err != nil {
		t.Fatal(err)
	}
	if want := "It is 42.\n\nevaluations: grounded passed (score 1) (after 1 retry)"; res.IsError || res.Text() != want {
		t.Errorf("ask = %q (isError %v), want %q", res.Text(), res.IsError, want)
	}

	sent := be.Sent()
	if len(sent) != 3 {
		t.Fatalf("the backend was sent %d requests, want 3", len(sent))
	}
	first := sent[0]
	system := first.Messages[0].Content
	for _, want := range []string{"Always cite sources.", "<skill name=\"style\">", "Use short sentences."} {
		if !strings.Contains(system, want) {
			t.Errorf("the system prompt lacks %q:\n%s", want, system)
		}
	}
	wantMsgs := []agent.Message{
		{Role: agent.RoleUser, Content: "Ticket #123 is still open."},
		{Role: agent.RoleUser, Content: "what is the answer?"},
	}
	if d := cmp.Diff(wantMsgs, first.Messages[1:]); d != "" {
		t.Errorf("the messages after the system prompt (-want +got):\n%s", d)
	}
	var offered []string // of the plugin's: the host's own groups are offered too
	for _, tool := range first.Tools {
		if slices.Contains(exampleTools, tool.Name) {
			offered = append(offered, tool.Name)
		}
	}
	if d := cmp.Diff([]string{"search"}, offered); d != "" {
		t.Errorf("the plugin's tools offered to the model (-want +got):\n%s", d)
	}
	retry := sent[2].Messages[len(sent[2].Messages)-1]
	if retry.Role != agent.RoleUser || !strings.Contains(retry.Content, "grounded (score 0): Answer is empty.") {
		t.Errorf("the retry's last message = %+v, want grounded's feedback", retry)
	}

	var calls []string
	records := h.Activity().Recent(0, activity.Filter{})
	slices.Reverse(records) // oldest first
	for _, r := range records {
		if r.Tool == "ask" {
			continue
		}
		if !r.Caller.IsAgent() {
			t.Errorf("%s is in the activity feed as %s's", r.Tool, r.Caller)
		}
		calls = append(calls, r.Tool)
	}
	wantCalls := []string{"policies", "ticket", "style", "search", "audit", "grounded", "audit", "grounded"}
	if d := cmp.Diff(wantCalls, calls); d != "" {
		t.Errorf("the activity feed (-want +got):\n%s", d)
	}

	rec.mu.Lock()
	defer rec.mu.Unlock()
	for i := 1; i < len(rec.values); i++ {
		if rec.values[i] <= rec.values[i-1] {
			t.Errorf("progress %g after %g: not strictly increasing", rec.values[i], rec.values[i-1])
		}
	}
	wantProgress := []string{
		"context: policies", "context: ticket", "skill: style",
		"step 1: waiting for the model", "step 1: calling search",
		"step 2: waiting for the model", "post: audit", "evaluating with grounded",
		"retry 1: evaluation feedback",
		"step 3: waiting for the model", "post: audit", "evaluating with grounded",
	}
	if d := cmp.Diff(wantProgress, rec.msgs); d != "" {
		t.Errorf("progress messages (-want +got):\n%s\nvalues %v", d, fmt.Sprint(rec.values))
	}
}

package agent

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ramabana/ramabana-mcp/internal/proctest"
)

func TestMCPConnect(t *testing.T) {
	t.Parallel()
	conn := newFakeConnector()
	tools := filesToolset(t.TempDir())
	be := NewScripted(
		Calls(call("c1", "mcp_connect", `{"id":"github"}`)),
		Calls(
			call("c2", "github__search_issues", `{"q":"leak"}`),
			call("c3", "mcp_connect", `{"id":"github"}`),
			call("c4", "mcp_connect", `{"id":"gitlab"}`),
			call("c5", "maven-tools__latest_version", `{}`),
			call("c6", "mcp_connect", `{}`),
		),
		Text("issue 7 is the leak"),
	)
	ag := New(Config{Backend: be, Tools: tools})
	out, err := ag.Run(context.Background(), "find the leak issue", RunOptions{Connector: conn})
	if err != nil {
		t.Fatal(err)
	}
	if out.Answer != "issue 7 is the leak" {
		t.Errorf("answer = %q", out.Answer)
	}
	sent := be.Sent()
	if len(sent) != 3 {
		t.Fatalf("%d requests, want 3", len(sent))
	}
	wantBlock := "<available_mcps>\n- github: GitHub issues and pull requests.\n- maven-tools: Look up Maven artifacts and versions.\n</available_mcps>"
	if sys := sent[0].Messages[0].Content; !strings.HasPrefix(sys, DefaultSystemPrompt(DefaultMaxSteps)) || !strings.HasSuffix(sys, wantBlock) {
		t.Errorf("system prompt does not end with the block:\n%s", sys)
	}
	wantTools := [][]string{
		{"mcp_connect", "view_file", "list_files"},
		{"mcp_connect", "view_file", "list_files", "github__search_issues", "github__get_issue"},
		{"mcp_connect", "view_file", "list_files", "github__search_issues", "github__get_issue"},
	}
	for i, req := range sent {
		if d := cmp.Diff(wantTools[i], toolNames(req.Tools)); d != "" {
			t.Errorf("request %d tools (-want +got):\n%s", i+1, d)
		}
	}
	if mc := sent[0].Tools[0]; !strings.Contains(mc.Description, "<available_mcps>") || !strings.Contains(string(mc.InputSchema), `e.g. \"github\"`) {
		t.Errorf("mcp_connect = %+v", mc)
	}
	var results []string
	for _, m := range sent[2].Messages {
		if m.Role == RoleTool {
			results = append(results, m.Content)
		}
	}
	wantResults := []string{
		"Connected to MCP server 'github'. Added 2 tools to your toolset.",
		`github answered search_issues({"q":"leak"})`,
		"Error: server 'github' is already connected; its tools are in your toolset, call them directly.",
		`Error: unknown MCP server id "gitlab". Available: github, maven-tools.`,
		`Error: there is no tool "maven-tools__latest_version" yet: server "maven-tools" is not connected. Call mcp_connect with {"id": "maven-tools"} first; its tools then appear as maven-tools__<tool>.`,
		`Error: unknown MCP server id "". Available: github, maven-tools.`,
	}
	if d := cmp.Diff(wantResults, results); d != "" {
		t.Errorf("tool results (-want +got):\n%s", d)
	}
	connects, calls, closed := conn.snapshot()
	if d := cmp.Diff([]string{"github"}, connects); d != "" {
		t.Errorf("connects (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{`github__search_issues {"q":"leak"}`}, calls); d != "" {
		t.Errorf("upstream calls (-want +got):\n%s", d)
	}
	if closed != 1 {
		t.Errorf("closed %d times, want 1", closed)
	}
	errs := 0
	for _, r := range out.ToolCalls {
		if r.IsError {
			errs++
		}
	}
	if len(out.ToolCalls) != 6 || errs != 4 {
		t.Errorf("records = %+v", out.ToolCalls)
	}
}

func TestMCPConnectAbsent(t *testing.T) {
	t.Parallel()
	tests := map[string]Connector{
		"no connector": nil,
		"no servers":   &fakeConnector{},
	}
	for name, conn := range tests {
		t.Run(name, func(t *testing.T) {
			be := NewScripted(Calls(call("c1", "mcp_connect", `{"id":"github"}`)), Text("ok"))
			ag := New(Config{Backend: be, Tools: filesToolset(t.TempDir())})
			if _, err := ag.Run(context.Background(), "task", RunOptions{Connector: conn}); err != nil {
				t.Fatal(err)
			}
			sent := be.Sent()
			if strings.Contains(sent[0].Messages[0].Content, "available_mcps") || slices.Contains(toolNames(sent[0].Tools), "mcp_connect") {
				t.Errorf("mcp_connect offered without servers")
			}
			if got := sent[1].Messages[3].Content; !strings.HasPrefix(got, `Error: there is no tool named "mcp_connect"`) {
				t.Errorf("result = %q", got)
			}
		})
	}
}

func TestMCPConnectFailure(t *testing.T) {
	t.Parallel()
	conn := newFakeConnector()
	conn.failing = map[string]error{"github": errors.New("npx: command not found")}
	be := NewScripted(Calls(call("c1", "mcp_connect", `{"id":"github"}`)), Text("could not connect"))
	out, err := New(Config{Backend: be}).Run(context.Background(), "task", RunOptions{Connector: conn})
	if err != nil || out.Answer != "could not connect" {
		t.Fatalf("Run = %+v, %v", out, err)
	}
	want := "Error: connecting to MCP server 'github' failed: npx: command not found. Work without it, or try once more if the failure looks temporary."
	if got := be.Sent()[1].Messages[3].Content; got != want {
		t.Errorf("result = %q, want %q", got, want)
	}
	if d := cmp.Diff([]string{"mcp_connect"}, toolNames(be.Sent()[1].Tools)); d != "" {
		t.Errorf("tools after a failed connect (-want +got):\n%s", d)
	}
}

// routed is a Backend that scripts each turn by its task, so that
// concurrent turns of one Agent get deterministic replies.
type routed struct {
	mu      sync.Mutex
	scripts map[string][]Response
	sent    map[string][]Request
	barrier chan struct{} // each turn's first request waits for the others
	waiting int
}

func (r *routed) Complete(ctx context.Context, req *Request) (*Response, error) {
	task := req.Messages[1].Content
	r.mu.Lock()
	r.sent[task] = append(r.sent[task], req.clone())
	n := len(r.sent[task])
	first := n == 1
	if first {
		r.waiting++
		if r.waiting == len(r.scripts) {
			close(r.barrier)
		}
	}
	script := r.scripts[task]
	r.mu.Unlock()
	if first {
		select {
		case <-r.barrier:
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(proctest.Patience):
			return nil, errors.New("the other turns never started")
		}
	}
	if n > len(script) {
		return nil, fmt.Errorf("task %q: %w", task, ErrScriptExhausted)
	}
	resp := script[n-1]
	return &resp, nil
}

func TestConcurrentTurnsIndependent(t *testing.T) {
	t.Parallel()
	script := func(id, tool string) []Response {
		return []Response{
			Calls(call("c1", "mcp_connect", fmt.Sprintf(`{"id":%q}`, id))),
			Calls(call("c2", id+"__"+tool, `{}`)),
			Text("done with " + id),
		}
	}
	be := &routed{
		scripts: map[string][]Response{"A": script("github", "get_issue"), "B": script("maven-tools", "latest_version")},
		sent:    map[string][]Request{},
		barrier: make(chan struct{}),
	}
	ag := New(Config{Backend: be, Tools: filesToolset(t.TempDir())})
	conns := map[string]*fakeConnector{"A": newFakeConnector(), "B": newFakeConnector()}
	outs := map[string]*Outcome{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for task, conn := range conns {
		wg.Go(func() {
			out, err := ag.Run(context.Background(), task, RunOptions{Connector: conn})
			if err != nil {
				t.Errorf("turn %s: %v", task, err)
			}
			mu.Lock()
			outs[task] = out
			mu.Unlock()
		})
	}
	wg.Wait()
	for task, want := range map[string]struct {
		id, tools string
	}{"A": {"github", "github__search_issues github__get_issue"}, "B": {"maven-tools", "maven-tools__latest_version"}} {
		if outs[task].Answer != "done with "+want.id {
			t.Errorf("turn %s answered %q", task, outs[task].Answer)
		}
		sent := be.sent[task]
		for i, req := range sent[1:] {
			got := strings.Join(toolNames(req.Tools)[3:], " ")
			if got != want.tools {
				t.Errorf("turn %s request %d upstream tools = %q, want %q", task, i+2, got, want.tools)
			}
		}
		connects, calls, closed := conns[task].snapshot()
		if d := cmp.Diff([]string{want.id}, connects); d != "" || len(calls) != 1 || closed != 1 {
			t.Errorf("turn %s connector: connects %v calls %v closed %d", task, connects, calls, closed)
		}
		if got := sent[2].Messages[5].Content; strings.HasPrefix(got, "Error") {
			t.Errorf("turn %s upstream call failed: %s", task, got)
		}
	}
	if st := ag.Status(); st.Turns != 2 || st.ToolCalls != 4 || st.Running != 0 {
		t.Errorf("status = %+v", st)
	}
}

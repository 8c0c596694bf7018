package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ramabana/ramabana-mcp/sdk"
	"github.com/ramabana/ramabana-mcp/tasks"
)

const (
	noArgsSchema  = `{"type":"object","properties":{},"additionalProperties":false}`
	answerSchema  = `{"type":"object","properties":{"answer":{"type":"string"}},"required":["answer"],"additionalProperties":false}`
	styleSkillMD  = "---\nname: style\ndescription: Prefer short sentences.\n---\n# Style\nUse short sentences.\n"
	reviewSkillMD = "---\nname: review\ndescription: How to review a change.\n---\nRead the diff first.\n"
)

// docsToolset is docs/agent-tasks.md's example set as a Toolset: a tool of
// every task.
func docsToolset() *testToolset {
	s := &testToolset{}
	text := func(s string) toolFunc {
		return func(context.Context, json.RawMessage) (*sdk.Result, error) { return sdk.TextResult(s), nil }
	}
	s.addTask("policies", noArgsSchema, tasks.Info{Task: tasks.Context}, text("Always cite sources."))
	s.addTask("ticket", noArgsSchema, tasks.Info{Task: tasks.Context, AsUserMessage: true}, text("Ticket #123 is still open."))
	s.add("search", "Completion tool offered to the model.", `{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]}`,
		func(_ context.Context, raw json.RawMessage) (*sdk.Result, error) {
			var a struct{ Q string }
			_ = json.Unmarshal(raw, &a)
			return sdk.TextResult("Results for " + a.Q), nil
		})
	s.addTask("grounded", answerSchema, tasks.Info{Task: tasks.Evaluation}, func(_ context.Context, raw json.RawMessage) (*sdk.Result, error) {
		var a struct{ Answer string }
		_ = json.Unmarshal(raw, &a)
		ev := sdk.Valid(1)
		if strings.TrimSpace(a.Answer) == "" {
			ev = sdk.Invalid(0, "Answer is empty.")
		}
		b, _ := json.Marshal(ev)
		return &sdk.Result{Content: []sdk.Content{{Text: string(b)}}, Structured: b}, nil
	})
	s.addTask("audit", answerSchema, tasks.Info{Task: tasks.PostTool}, text(""))
	s.addTask("style", noArgsSchema, tasks.Info{Task: tasks.Skill, Mode: tasks.AlwaysOn}, text(styleSkillMD))
	s.addTask("ping", noArgsSchema, tasks.Info{Task: tasks.None}, text("pong"))
	return s
}

func (s *testToolset) addTask(name, schema string, info tasks.Info, f toolFunc) {
	s.add(name, name+" does its task.", schema, f)
	s.tools[len(s.tools)-1].Task = info
}

// fakeSkills is a skill library: style always-on, review auto.
type fakeSkills struct {
	mu    sync.Mutex
	reads []string
}

func (f *fakeSkills) List() []Skill {
	return []Skill{
		{Name: "review", Description: "How to review a change."},
		{Name: "style", Description: "Prefer short sentences.", AlwaysOn: true},
	}
}

func (f *fakeSkills) Read(_ context.Context, name string) (string, bool, error) {
	f.mu.Lock()
	f.reads = append(f.reads, name)
	f.mu.Unlock()
	switch name {
	case "style":
		return styleSkillMD, true, nil
	case "review":
		return reviewSkillMD, true, nil
	}
	return "", false, nil
}

// TestTaskAwareTurn: context in the system prompt and as a user message,
// the always-on skill injected and the auto one listed and read, only
// completion tools (and read_skill) offered, evaluation after each answer,
// one retry with the failed evaluation's feedback, and the post tool once,
// on the answer returned.
func TestTaskAwareTurn(t *testing.T) {
	t.Parallel()
	tools := docsToolset()
	sk := &fakeSkills{}
	be := NewScripted(
		Calls(call("c1", "read_skill", `{"name": "review"}`)),
		Text(""),
		Text("It is 42."),
	)
	var progress []string
	out, err := New(Config{Backend: be, Tools: tools, Skills: sk}).Run(context.Background(), "what is it?", RunOptions{
		Progress: func(n int, msg string) { progress = append(progress, fmt.Sprintf("%d %s", n, msg)) },
	})
	if err != nil {
		t.Fatal(err)
	}
	if out.Answer != "It is 42." || out.Retries != 1 {
		t.Errorf("answer %q after %d retries, want It is 42. after 1", out.Answer, out.Retries)
	}
	sent := be.Sent()
	if len(sent) != 3 {
		t.Fatalf("sent %d requests, want 3", len(sent))
	}
	first := sent[0]
	system := first.Messages[0].Content
	for _, want := range []string{
		"<context source=\"policies\">\nAlways cite sources.\n</context>",
		"<skill name=\"style\">\n" + strings.TrimSpace(styleSkillMD) + "\n</skill>",
		"<skills>\n- review: How to review a change.\n</skills>",
	} {
		if !strings.Contains(system, want) {
			t.Errorf("system prompt lacks %q:\n%s", want, system)
		}
	}
	if strings.Contains(system, "Ticket #123") || strings.Contains(system, "- style:") {
		t.Errorf("system prompt holds the user-message context or lists the always-on skill:\n%s", system)
	}
	wantHead := []Message{{Role: RoleUser, Content: "Ticket #123 is still open."}, {Role: RoleUser, Content: "what is it?"}}
	if d := cmp.Diff(wantHead, first.Messages[1:]); d != "" {
		t.Errorf("messages after the system prompt (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"read_skill", "search"}, toolNames(first.Tools)); d != "" {
		t.Errorf("tools offered (-want +got):\n%s", d)
	}
	if got := sent[1].Messages[len(sent[1].Messages)-1]; got.Content != reviewSkillMD {
		t.Errorf("read_skill answered %q, want the skill's text", got.Content)
	}
	feedback := sent[2].Messages[len(sent[2].Messages)-1]
	if feedback.Role != RoleUser || !strings.Contains(feedback.Content, "- grounded (score 0): Answer is empty.") {
		t.Errorf("the retry's last message = %+v, want the evaluation's feedback", feedback)
	}
	wantCalls := []string{
		"policies {}", "ticket {}",
		`audit {"answer":""}`, `grounded {"answer":""}`,
		`audit {"answer":"It is 42."}`, `grounded {"answer":"It is 42."}`,
	}
	if d := cmp.Diff(wantCalls, tools.Calls()); d != "" {
		t.Errorf("tool calls (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"style", "review"}, sk.reads); d != "" {
		t.Errorf("skills read (-want +got):\n%s", d)
	}
	wantProgress := []string{
		"1 context: policies", "2 context: ticket", "3 skill: style",
		"4 step 1: waiting for the model", "5 step 1: calling read_skill",
		"6 step 2: waiting for the model", "7 post: audit", "8 evaluating with grounded",
		"9 retry 1: evaluation feedback",
		"10 step 3: waiting for the model", "11 post: audit", "12 evaluating with grounded",
	}
	if d := cmp.Diff(wantProgress, progress); d != "" {
		t.Errorf("progress (-want +got):\n%s", d)
	}
	if got, want := out.EvaluationSummary(), "evaluations: grounded passed (score 1) (after 1 retry)"; got != want {
		t.Errorf("summary = %q, want %q", got, want)
	}
}

func TestEvaluationRetriesAreBounded(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		retries  int
		requests int
		summary  string
	}{
		"no retries": {retries: NoRetries, requests: 1, summary: "evaluations: grounded failed (score 0): Answer is empty."},
		"default":    {retries: 0, requests: 2, summary: "evaluations: grounded failed (score 0): Answer is empty. (still, after 1 retry)"},
		"two":        {retries: 2, requests: 3, summary: "evaluations: grounded failed (score 0): Answer is empty. (still, after 2 retries)"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			be := NewScripted(Text(" "), Text(" "), Text(" "), Text("never sent"))
			out, err := New(Config{Backend: be, Tools: docsToolset(), MaxRetries: tc.retries}).Run(context.Background(), "task", RunOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if n := len(be.Sent()); n != tc.requests {
				t.Errorf("sent %d requests, want %d", n, tc.requests)
			}
			if got := out.EvaluationSummary(); got != tc.summary {
				t.Errorf("summary = %q, want %q", got, tc.summary)
			}
		})
	}
}

// TestStageFailuresDoNotEndTheTurn: a failing context tool, one whose
// schema asks for what a turn cannot give, and an evaluation tool that
// answers no verdict are recorded, and the turn goes on.
func TestStageFailuresDoNotEndTheTurn(t *testing.T) {
	t.Parallel()
	tools := &testToolset{}
	tools.addTask("broken", noArgsSchema, tasks.Info{Task: tasks.Context}, func(context.Context, json.RawMessage) (*sdk.Result, error) {
		return nil, errors.New(`plugin "x" crashed`)
	})
	tools.addTask("needs_id", `{"type":"object","properties":{"id":{"type":"integer"}},"required":["id"]}`, tasks.Info{Task: tasks.Context},
		func(context.Context, json.RawMessage) (*sdk.Result, error) { return sdk.TextResult("never"), nil })
	tools.addTask("vague", answerSchema, tasks.Info{Task: tasks.Evaluation},
		func(context.Context, json.RawMessage) (*sdk.Result, error) { return sdk.TextResult("looks fine"), nil })
	be := NewScripted(Text("done"))
	out, err := New(Config{Backend: be, Tools: tools}).Run(context.Background(), "task", RunOptions{})
	if err != nil || out.Answer != "done" || out.Retries != 0 {
		t.Fatalf("outcome = %+v, %v", out, err)
	}
	if d := cmp.Diff([]string{"broken {}", `vague {"answer":"done"}`}, tools.Calls()); d != "" {
		t.Errorf("calls (-want +got):\n%s", d)
	}
	var got []string
	for _, s := range out.Stages {
		got = append(got, fmt.Sprintf("%s %s skipped=%v %s", s.Task, s.Tool, s.Skipped, s.Error))
	}
	want := []string{
		`context broken skipped=false plugin "x" crashed`,
		"context needs_id skipped=true its input schema requires arguments a turn cannot give: id",
		`evaluation vague skipped=false evaluation result: not a JSON object {"is_valid": bool, "score": number, "feedback": string|null}: "looks fine"`,
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("stages (-want +got):\n%s", d)
	}
	if s := out.EvaluationSummary(); !strings.HasPrefix(s, "evaluations: vague gave no verdict") {
		t.Errorf("summary = %q", s)
	}
}

func TestReadSkillUnknownName(t *testing.T) {
	t.Parallel()
	be := NewScripted(Calls(call("c1", "read_skill", `{"name": "reviw"}`)), Text("ok"))
	if _, err := New(Config{Backend: be, Skills: &fakeSkills{}}).Run(context.Background(), "task", RunOptions{}); err != nil {
		t.Fatal(err)
	}
	msgs := be.Sent()[1].Messages
	if got, want := msgs[len(msgs)-1].Content, `Error: there is no skill "reviw". The skills are: review, style.`; got != want {
		t.Errorf("read_skill(reviw) = %q, want %q", got, want)
	}
}

func TestStageArgs(t *testing.T) {
	t.Parallel()
	values := map[string]string{valueTask: "the task", valueAnswer: "the answer"}
	tests := map[string]struct {
		schema string
		want   string
		err    bool
	}{
		"no schema":        {schema: ``, want: `{}`},
		"no properties":    {schema: noArgsSchema, want: `{}`},
		"answer":           {schema: answerSchema, want: `{"answer":"the answer"}`},
		"answer and task":  {schema: `{"type":"object","properties":{"answer":{"type":"string"},"Query":{"type":"string"}}}`, want: `{"Query":"the task","answer":"the answer"}`},
		"optional unknown": {schema: `{"type":"object","properties":{"limit":{"type":"integer"}}}`, want: `{}`},
		"optional string":  {schema: `{"type":"object","properties":{"note":{"type":"string"}}}`, want: `{}`},
		"nullable string":  {schema: `{"type":"object","properties":{"q":{"type":["string","null"]}}}`, want: `{"q":"the task"}`},
		// No name list names these: the answer must not become a command.
		"lone required string": {schema: `{"type":"object","properties":{"command":{"type":"string"}},"required":["command"]}`, err: true},
		"lone required other":  {schema: `{"type":"object","properties":{"verdict_on":{"type":"string"}},"required":["verdict_on"]}`, err: true},
		"required integer":     {schema: `{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`, err: true},
		"two unknown":          {schema: `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}},"required":["a","b"]}`, err: true},
		"not JSON":             {schema: `{`, err: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, err := stageArgs(Tool{InputSchema: json.RawMessage(tc.schema)}, values)
			if (err != nil) != tc.err || (err == nil && string(got) != tc.want) {
				t.Errorf("stageArgs = %s, %v; want %s (error %v)", got, err, tc.want, tc.err)
			}
		})
	}
}

// TestPostToolWithAnUnnamedArgumentIsSkipped: a post tool whose one
// required argument no name list names ({command}) is not called with the
// answer; it is skipped and recorded.
func TestPostToolWithAnUnnamedArgumentIsSkipped(t *testing.T) {
	t.Parallel()
	tools := &testToolset{}
	tools.addTask("run", `{"type":"object","properties":{"command":{"type":"string"}},"required":["command"]}`, tasks.Info{Task: tasks.PostTool},
		func(context.Context, json.RawMessage) (*sdk.Result, error) { return sdk.TextResult("ran"), nil })
	out, err := New(Config{Backend: NewScripted(Text("rm -rf /")), Tools: tools}).Run(context.Background(), "task", RunOptions{})
	if err != nil || out.Answer != "rm -rf /" {
		t.Fatalf("outcome = %+v, %v", out, err)
	}
	if calls := tools.Calls(); len(calls) != 0 {
		t.Errorf("the post tool was called: %q", calls)
	}
	want := []StageRecord{{Task: tasks.PostTool, Tool: "run", Skipped: true, Error: "its input schema requires arguments a turn cannot give: command"}}
	if d := cmp.Diff(want, out.Stages); d != "" {
		t.Errorf("stages (-want +got):\n%s", d)
	}
}

// TestPostToolsRunOnEachAnswer: post tools take every answer the model
// gives, before its evaluation (docs/agent-tasks.md's order), the ones an
// evaluation sends back included. A turn stopped at the step limit has no
// answer of the model's, and runs no post tool for it.
func TestPostToolsRunOnEachAnswer(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		replies []Response
		retries int
		steps   int
		want    []string
	}{
		"passes after a retry": {
			replies: []Response{Text(" "), Text("It is 42.")}, retries: 2,
			want: []string{`audit {"answer":" "}`, `audit {"answer":"It is 42."}`},
		},
		"retries run out": {
			replies: []Response{Text(" "), Text(""), Text("\n")}, retries: 2,
			want: []string{`audit {"answer":" "}`, `audit {"answer":""}`, `audit {"answer":"\n"}`},
		},
		"step limit in the retry": {
			replies: []Response{Text(" "), Calls(call("c1", "search", `{"q":"x"}`))}, retries: 1, steps: 1,
			want: []string{`audit {"answer":" "}`},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tools := docsToolset()
			out, err := New(Config{Backend: NewScripted(tc.replies...), Tools: tools, MaxRetries: tc.retries, MaxSteps: tc.steps}).
				Run(context.Background(), "task", RunOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var posts []string
			for _, c := range tools.Calls() {
				if strings.HasPrefix(c, "audit ") {
					posts = append(posts, c)
				}
			}
			if d := cmp.Diff(tc.want, posts); d != "" {
				t.Errorf("post tool calls (-want +got):\n%s (stopped by %s)", d, out.StoppedBy)
			}
		})
	}
}

// TestContextAndSkillTextsAreCapped: a context tool or always-on skill
// that answers more than the conversation can hold is cut, as a tool
// result is, and says so; the turn then stays within its budget without
// compacting.
func TestContextAndSkillTextsAreCapped(t *testing.T) {
	t.Parallel()
	const budget = 20_000
	huge := strings.Repeat("x", 1<<20)
	tools := &testToolset{}
	tools.addTask("policies", noArgsSchema, tasks.Info{Task: tasks.Context},
		func(context.Context, json.RawMessage) (*sdk.Result, error) { return sdk.TextResult(huge), nil })
	tools.addTask("ticket", noArgsSchema, tasks.Info{Task: tasks.Context, AsUserMessage: true},
		func(context.Context, json.RawMessage) (*sdk.Result, error) { return sdk.TextResult(huge), nil })
	be := NewScripted(Text("done"))
	sk := &hugeSkills{text: "---\nname: style\ndescription: d\n---\n" + huge}
	out, err := New(Config{Backend: be, Tools: tools, Skills: sk, ContextBudget: budget}).Run(context.Background(), "task", RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if out.Compactions != 0 {
		t.Errorf("compacted %d times, want none", out.Compactions)
	}
	for i, req := range be.Sent() {
		if n := estimate(req.Messages); n > budget {
			t.Errorf("request %d: %d characters, over the budget of %d", i+1, n, budget)
		}
	}
	msgs := be.Sent()[0].Messages
	for _, want := range []string{"[cut: the context tool policies gave 1024 KB", "[cut: the skill style gave 1024 KB"} {
		if !strings.Contains(msgs[0].Content, want) {
			t.Errorf("the system prompt does not say %q", want)
		}
	}
	if !strings.Contains(msgs[1].Content, "[cut: the context tool ticket gave 1024 KB") {
		t.Errorf("the context user message does not say it was cut")
	}
}

// hugeSkills is a library of one always-on skill, style, of the given
// text.
type hugeSkills struct{ text string }

func (h *hugeSkills) List() []Skill {
	return []Skill{{Name: "style", Description: "d", AlwaysOn: true}}
}

func (h *hugeSkills) Read(_ context.Context, name string) (string, bool, error) {
	return h.text, name == "style", nil
}

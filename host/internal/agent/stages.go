package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ramabana/ramabana-mcp/sdk"
	"github.com/ramabana/ramabana-mcp/tasks"
)

// stageTool is a tool a turn calls itself at its stage, and how to reach
// it.
type stageTool struct {
	Tool
	kind routeKind
}

// StageRecord is one call a turn made at a stage of its own (the agent
// tasks other than completion: docs/agent-tasks.md), or one it skipped.
type StageRecord struct {
	Task tasks.Task // context, skill, post_tool or evaluation
	Tool string     // the tool, or for a skill its name
	// Error says why the call failed or was skipped; empty when it
	// answered.
	Error    string
	Skipped  bool
	Duration time.Duration
}

// Verdict is one evaluation tool's judgement of one answer.
type Verdict struct {
	Tool string
	// Attempt is 0 for the first answer, n for the answer of retry n.
	Attempt    int
	Evaluation sdk.Evaluation
	// Error is set when the tool gave no verdict (it failed, or answered
	// something that is not one); such a verdict neither passes nor fails.
	Error string
}

// The values a turn can give a stage tool's arguments (stageArgs).
const (
	valueTask   = "task"
	valueAnswer = "answer"
)

// argNames are the argument names each value fills, compared case-blind:
// the names agent-task examples and common MCP servers use
// (docs/agent-tasks.md, "Arguments of stage tools").
var argNames = map[string][]string{
	valueTask:   {"task", "query", "q", "question", "prompt", "request", "input", "instructions"},
	valueAnswer: {"answer", "result", "output", "response", "final_answer", "text", "content", "completion"},
}

// errCannotGive marks a stage tool whose input schema requires an argument
// a turn has no value for.
var errCannotGive = errors.New("its input schema requires arguments a turn cannot give")

// stageArgs are the arguments of a call of tool at its stage: every
// string property whose name says it wants one of values (argNames) gets
// that value, and nothing else is filled. A tool that requires any other
// property is not called (errCannotGive): guessing would hand the task or
// the answer to an argument meant for something else (a post tool's
// {command}). A context tool with no properties gets {}, a tool with
// "answer" gets the answer.
func stageArgs(tool Tool, values map[string]string) (json.RawMessage, error) {
	var schema struct {
		Properties map[string]struct {
			Type any `json:"type"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	if len(tool.InputSchema) > 0 {
		if err := json.Unmarshal(tool.InputSchema, &schema); err != nil {
			return nil, fmt.Errorf("its input schema is not a JSON object: %w", err)
		}
	}
	args := map[string]string{}
	for name, p := range schema.Properties {
		if !takesString(p.Type) {
			continue
		}
		for value, names := range argNames {
			if v, ok := values[value]; ok && slices.Contains(names, strings.ToLower(name)) {
				args[name] = v
			}
		}
	}
	var missing []string
	for _, name := range schema.Required {
		if _, ok := args[name]; !ok {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("%w: %s", errCannotGive, strings.Join(missing, ", "))
	}
	b, err := json.Marshal(args)
	return b, err
}

// takesString reports whether a JSON Schema type admits a string: no type,
// "string", or a list holding it.
func takesString(typ any) bool {
	switch typ := typ.(type) {
	case nil:
		return true
	case string:
		return typ == "string"
	case []any:
		return slices.Contains(typ, any("string"))
	}
	return false
}

// sort puts a tool where its task says: completion tools are offered to
// the model, context, post and evaluation tools wait for their stage;
// skill tools are read through Skills, and none tools (or a newer
// contract's tasks) are never used.
func (t *turn) sort(tool Tool, kind routeKind) {
	st := stageTool{tool, kind}
	switch task := tool.Task.Normal().Task; task {
	case tasks.Completion:
		t.add(tool, kind)
	case tasks.Context:
		if kind == routeUpstream {
			// Connected mid-turn: the prompt is built already.
			t.a.log.Debug("ask: context tool of a server connected during the turn not used", "tool", tool.Name)
			return
		}
		t.contexts = append(t.contexts, st)
	case tasks.PostTool:
		t.posts = append(t.posts, st)
	case tasks.Evaluation:
		t.evals = append(t.evals, st)
	}
}

// prepare builds the turn's first messages: the system prompt with the
// context tools' text, the always-on skills and the list of the others;
// the context meant as user messages; then the task.
func (t *turn) prepare(ctx context.Context) error {
	var system strings.Builder
	system.WriteString(t.a.system)
	if len(t.servers) > 0 {
		system.WriteString(mcpPrompt(t.servers))
	}
	var users []Message
	values := map[string]string{valueTask: t.task}
	for _, st := range t.contexts {
		t.progress("context: " + st.Name)
		text, ok, err := t.stage(ctx, tasks.Context, st, values)
		if err != nil {
			return err
		}
		if !ok || strings.TrimSpace(text) == "" {
			continue
		}
		text = t.capStage(text, "context tool "+st.Name)
		if st.Task.AsUserMessage {
			users = append(users, Message{Role: RoleUser, Content: text})
			continue
		}
		fmt.Fprintf(&system, "\n\n<context source=%q>\n%s\n</context>", st.Name, strings.TrimSpace(text))
	}
	var auto []Skill
	for _, sk := range t.skills {
		if !sk.AlwaysOn {
			auto = append(auto, sk)
			continue
		}
		t.progress("skill: " + sk.Name)
		text, err := t.alwaysOn(ctx, sk.Name)
		if err != nil {
			return err
		}
		if text != "" {
			text = t.capStage(strings.TrimSpace(text), "skill "+sk.Name)
			fmt.Fprintf(&system, "\n\n<skill name=%q>\n%s\n</skill>", sk.Name, text)
		}
	}
	if len(auto) > 0 {
		system.WriteString(skillsPrompt(auto))
	}
	t.msgs = append([]Message{{Role: RoleSystem, Content: system.String()}}, users...)
	t.msgs = append(t.msgs, Message{Role: RoleUser, Content: t.task})
	t.head = len(t.msgs)
	return nil
}

// stage calls a context or post tool with what its schema asks of values
// (stageArgs),
// records the call in Outcome.Stages, and returns its text; ok is false
// when it was skipped or failed. The error is ctx's, when the turn was
// cancelled.
func (t *turn) stage(ctx context.Context, task tasks.Task, st stageTool, values map[string]string) (text string, ok bool, err error) {
	rec := StageRecord{Task: task, Tool: st.Name}
	args, err := stageArgs(st.Tool, values)
	if err != nil {
		rec.Skipped, rec.Error = true, err.Error()
		t.out.Stages = append(t.out.Stages, rec)
		t.a.log.Warn("ask: tool skipped", "task", task, "tool", st.Name, "reason", err)
		return "", false, nil
	}
	start := time.Now()
	res, err := t.callStage(ctx, st, args)
	rec.Duration = time.Since(start)
	if ctx.Err() != nil {
		return "", false, ctx.Err()
	}
	switch {
	case err != nil:
		rec.Error = err.Error()
	case res == nil:
		rec.Error = "no result"
	case res.IsError:
		rec.Error = res.Text()
	}
	t.out.Stages = append(t.out.Stages, rec)
	if rec.Error != "" {
		t.a.log.Warn("ask: tool failed; the turn goes on without it", "task", task, "tool", st.Name, "error", rec.Error)
		return "", false, nil
	}
	return res.Text(), true, nil
}

// callStage calls a stage tool where it lives: the catalog, or a server
// connected during the turn.
func (t *turn) callStage(ctx context.Context, st stageTool, args json.RawMessage) (*sdk.Result, error) {
	if st.kind == routeUpstream {
		return t.conn.Call(ctx, st.Name, args)
	}
	return t.a.tools.Call(ctx, st.Name, args)
}

// post runs the post tools on answer, before its evaluation
// (docs/agent-tasks.md: after the result, before evaluation), so on every
// attempt's answer. The error is
// ctx's.
func (t *turn) post(ctx context.Context, answer string) error {
	values := map[string]string{valueTask: t.task, valueAnswer: answer}
	for _, st := range t.posts {
		t.progress("post: " + st.Name)
		if _, _, err := t.stage(ctx, tasks.PostTool, st, values); err != nil {
			return err
		}
	}
	return nil
}

// judge runs the evaluation tools on answer. It returns the feedback for
// another attempt: empty when every verdict passed (or there was none to
// give). The error is ctx's.
func (t *turn) judge(ctx context.Context, answer string) (string, error) {
	values := map[string]string{valueTask: t.task, valueAnswer: answer}
	var failed []string
	for _, st := range t.evals {
		t.progress("evaluating with " + st.Name)
		v, err := t.evaluate(ctx, st, values)
		if err != nil {
			return "", err
		}
		if v == nil {
			continue
		}
		t.out.Evaluations = append(t.out.Evaluations, *v)
		if v.Error == "" && !v.Evaluation.IsValid {
			line := fmt.Sprintf("- %s (score %g)", v.Tool, v.Evaluation.Score)
			if fb := v.Evaluation.Feedback; fb != nil && strings.TrimSpace(*fb) != "" {
				line += ": " + strings.TrimSpace(*fb)
			}
			failed = append(failed, line)
		}
	}
	if len(failed) == 0 {
		return "", nil
	}
	return "Your answer did not pass evaluation:\n" + strings.Join(failed, "\n") +
		"\n\nRevise it to meet this feedback, using tools if you need to, then reply with the complete new answer and no tool call.", nil
}

// evaluate calls one evaluation tool on the answer; nil when it was
// skipped (its schema asks for what a turn cannot give).
func (t *turn) evaluate(ctx context.Context, st stageTool, values map[string]string) (*Verdict, error) {
	v := &Verdict{Tool: st.Name, Attempt: t.out.Retries}
	args, err := stageArgs(st.Tool, values)
	if err != nil {
		t.out.Stages = append(t.out.Stages, StageRecord{Task: tasks.Evaluation, Tool: st.Name, Skipped: true, Error: err.Error()})
		t.a.log.Warn("ask: tool skipped", "task", tasks.Evaluation, "tool", st.Name, "reason", err)
		return nil, nil
	}
	rec := StageRecord{Task: tasks.Evaluation, Tool: st.Name}
	start := time.Now()
	res, err := t.callStage(ctx, st, args)
	rec.Duration = time.Since(start)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if err == nil {
		v.Evaluation, err = sdk.ParseEvaluation(res)
	}
	if err != nil {
		rec.Error, v.Error = err.Error(), err.Error()
		t.a.log.Warn("ask: evaluation tool gave no verdict", "tool", st.Name, "error", err)
	}
	t.out.Stages = append(t.out.Stages, rec)
	return v, nil
}

// alwaysOn reads an always-on skill for the system prompt, recording the
// read; a skill that cannot be read is left out. The error is ctx's.
func (t *turn) alwaysOn(ctx context.Context, name string) (string, error) {
	rec := StageRecord{Task: tasks.Skill, Tool: name}
	start := time.Now()
	text, ok, err := t.a.skills.Read(ctx, name)
	rec.Duration = time.Since(start)
	if ctx.Err() != nil {
		return "", ctx.Err()
	}
	switch {
	case err != nil:
		rec.Error = err.Error()
	case !ok:
		rec.Error = "no such skill"
	}
	t.out.Stages = append(t.out.Stages, rec)
	if rec.Error != "" {
		t.a.log.Warn("ask: always-on skill not read; the turn goes on without it", "skill", name, "error", rec.Error)
		return "", nil
	}
	return text, nil
}

// EvaluationSummary is one line on how the evaluations of the turn's last
// answer went, for whoever reads the answer ("evaluations: grounded passed
// (score 1)"); empty when no evaluation ran.
func (o *Outcome) EvaluationSummary() string {
	if len(o.Evaluations) == 0 {
		return ""
	}
	var last []Verdict
	for _, v := range o.Evaluations {
		if v.Attempt == o.Retries {
			last = append(last, v)
		}
	}
	if len(last) == 0 {
		return fmt.Sprintf("evaluations: not run on this answer: retry %d ended without one (%s)", o.Retries, o.StoppedBy)
	}
	parts := make([]string, len(last))
	passed := true
	for i, v := range last {
		switch {
		case v.Error != "":
			parts[i] = fmt.Sprintf("%s gave no verdict (%s)", v.Tool, truncate(v.Error, 200))
		case v.Evaluation.IsValid:
			parts[i] = fmt.Sprintf("%s passed (score %g)", v.Tool, v.Evaluation.Score)
		default:
			passed = false
			parts[i] = fmt.Sprintf("%s failed (score %g)", v.Tool, v.Evaluation.Score)
			if fb := v.Evaluation.Feedback; fb != nil && strings.TrimSpace(*fb) != "" {
				parts[i] += ": " + truncate(strings.TrimSpace(*fb), 500)
			}
		}
	}
	line := "evaluations: " + strings.Join(parts, "; ")
	switch {
	case o.Retries > 0 && passed:
		line += fmt.Sprintf(" (after %s)", plural(o.Retries, "retry", "retries"))
	case o.Retries > 0:
		line += fmt.Sprintf(" (still, after %s)", plural(o.Retries, "retry", "retries"))
	}
	return line
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

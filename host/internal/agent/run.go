package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ramabana/ramabana-mcp/host/internal/pii"
)

// Why a turn stopped, in Outcome.StoppedBy.
const (
	StopAnswer    = "answer"
	StopStepLimit = "step-limit"
	StopError     = "error"
)

// RunOptions are per turn.
type RunOptions struct {
	// Connector gives the turn mcp_connect when it has servers. Run owns it
	// from the call on and closes it when the turn ends, whatever the
	// outcome.
	Connector Connector
	// Progress, if set, is called synchronously once for every step of the
	// turn ("step 2: calling view_file", "context: policies", "post:
	// audit", "evaluating with grounded", "retry 1: evaluation feedback"),
	// with n counting the calls of this turn from 1: strictly increasing,
	// as MCP progress values must be.
	Progress func(n int, message string)
}

// Outcome is the result of one turn.
type Outcome struct {
	// Answer is the model's final answer or, at the step limit, a message
	// saying so and summarising what was done.
	Answer string
	// Steps is the number of model calls made.
	Steps     int
	ToolCalls []CallRecord
	Usage     Usage
	// StoppedBy is StopAnswer, StopStepLimit or StopError.
	StoppedBy string
	// Compactions counts the times the conversation was compacted.
	Compactions int
	// Stages are the calls of context, skill, post and evaluation tools
	// (and the ones skipped), in order.
	Stages []StageRecord
	// Evaluations are the evaluation tools' verdicts on each answer, in
	// order; Verdict.Attempt says which answer each judged.
	Evaluations []Verdict
	// Retries counts the further attempts made after failed evaluations.
	Retries int
}

// CallRecord is one tool call of a turn.
type CallRecord struct {
	Name string
	// Args is the argument text exactly as the model wrote it.
	Args     string
	IsError  bool
	Duration time.Duration
}

// Run runs one turn for task and returns its outcome.
//
// Before the first step it calls the context tools (their text goes in the
// system prompt, or in a user message before the task) and reads the
// always-on skills into the system prompt; the other skills are listed
// there, for read_skill. A context tool that fails, or whose input schema
// asks for what a turn cannot give, is left out and recorded in
// Outcome.Stages. After each answer of the model, Run calls the post tools,
// then the evaluation tools, with it (docs/agent-tasks.md: post tools run
// after the result, before evaluation); a verdict that is not valid sends
// the feedback back to the model for another attempt, at most
// Config.MaxRetries times, each attempt with its own step limit, so a post
// tool sees every attempt's answer. A turn that ends at the step limit or
// in an error has no answer, and runs none. A stage tool gets the task and
// the answer in the properties named for them (task, query, ...; answer,
// result, ...); one that requires any other property is skipped and
// recorded.
//
// A backend failure (after the backend's own retries) ends the turn with an
// error naming the step, and an Outcome with StoppedBy StopError holding
// what was done until then. When ctx is done, the backend request or tool
// call in flight is cancelled and Run returns ctx.Err() itself. Tool
// failures, malformed arguments and unknown tool names are reported to the
// model as tool results and never end the turn.
func (a *Agent) Run(ctx context.Context, task string, opts RunOptions) (out *Outcome, err error) {
	t := a.newTurn(task, opts)
	out = t.out
	a.update(func(s *Status) { s.Running++ })
	defer func() {
		if opts.Connector != nil {
			if cerr := opts.Connector.Close(); cerr != nil {
				a.log.Warn("close the turn's upstream connections", "error", cerr)
			}
		}
		a.update(func(s *Status) {
			s.Running--
			s.Turns++
			if err != nil && ctx.Err() == nil {
				now := time.Now()
				s.LastError, s.LastErrorAt = err.Error(), &now
			}
		})
		if err != nil {
			out.StoppedBy = StopError
			if ctx.Err() != nil {
				err = ctx.Err()
			}
		}
	}()
	if a.backend == nil {
		return out, errors.New("ask: no model backend configured")
	}
	if err := t.prepare(ctx); err != nil {
		return out, err
	}
	first := 1 // the first step of the attempt
	for step := 1; ; step++ {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		t.compact(step)
		req := &Request{Model: a.model, Messages: cloneMessages(t.msgs), Tools: t.toolList()}
		t.progress(fmt.Sprintf("step %d: waiting for the model", step))
		resp, err := a.backend.Complete(ctx, req)
		out.Steps = step
		if err != nil {
			if ctx.Err() != nil {
				return out, ctx.Err()
			}
			a.log.Error("ask: model call failed", "step", step, "error", err)
			return out, fmt.Errorf("ask step %d: %w", step, err)
		}
		out.Usage.Prompt += resp.Usage.Prompt
		out.Usage.Completion += resp.Usage.Completion
		a.update(func(s *Status) {
			s.PromptTokens += resp.Usage.Prompt
			s.CompletionTokens += resp.Usage.Completion
		})

		msg := resp.Message.clone()
		msg.Role, msg.ToolCallID = RoleAssistant, ""
		if len(msg.ToolCalls) == 0 {
			t.msgs = append(t.msgs, msg)
			out.StoppedBy, out.Answer = StopAnswer, msg.Content
			if strings.TrimSpace(msg.Content) == "" {
				out.Answer = "The model ended the turn without a final answer." + t.summary()
			}
			if err := t.post(ctx, msg.Content); err != nil {
				return out, err
			}
			feedback, err := t.judge(ctx, msg.Content)
			if err != nil {
				return out, err
			}
			if feedback == "" || out.Retries >= a.retries {
				return out, nil
			}
			out.Retries++
			first = step + 1
			t.progress(fmt.Sprintf("retry %d: evaluation feedback", out.Retries))
			t.msgs = append(t.msgs, Message{Role: RoleUser, Content: feedback})
			continue
		}
		if step-first+1 >= a.steps {
			out.StoppedBy = StopStepLimit
			out.Answer = t.stepLimitAnswer(msg)
			return out, nil
		}
		raw := make([]string, len(msg.ToolCalls))
		for i := range msg.ToolCalls {
			c := &msg.ToolCalls[i]
			if c.ID == "" {
				c.ID = fmt.Sprintf("call_%d_%d", step, i+1)
			}
			raw[i] = c.Arguments
			// The history must carry valid JSON: some servers parse it
			// to render their chat template and reject the whole request.
			if _, ok := parseArgs(c.Arguments); !ok || strings.TrimSpace(c.Arguments) == "" {
				c.Arguments = "{}"
			}
		}
		t.msgs = append(t.msgs, msg)
		for i, c := range msg.ToolCalls {
			c.Arguments = raw[i]
			text, rec, err := t.call(ctx, step, c)
			if err != nil {
				return out, err
			}
			out.ToolCalls = append(out.ToolCalls, rec)
			a.update(func(s *Status) { s.ToolCalls++ })
			t.msgs = append(t.msgs, Message{Role: RoleTool, Content: t.capResult(text), ToolCallID: c.ID})
		}
	}
}

// parseArgs returns the call's arguments as a JSON object; empty text is
// the empty object.
func parseArgs(s string) (json.RawMessage, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return json.RawMessage("{}"), true
	}
	if !json.Valid([]byte(s)) || s[0] != '{' {
		return nil, false
	}
	return json.RawMessage(s), true
}

func (t *turn) progress(msg string) {
	t.notified++
	if t.onProgress != nil {
		t.onProgress(t.notified, msg)
	}
}

// summary describes the tool calls of the turn so far, for answers the
// model did not write.
func (t *turn) summary() string {
	calls := t.out.ToolCalls
	if len(calls) == 0 {
		return " No tools were called."
	}
	type tally struct{ n, failed int }
	counts := map[string]*tally{}
	var order []string
	for _, c := range calls {
		if counts[c.Name] == nil {
			counts[c.Name] = &tally{}
			order = append(order, c.Name)
		}
		counts[c.Name].n++
		if c.IsError {
			counts[c.Name].failed++
		}
	}
	parts := make([]string, 0, len(order))
	for _, name := range order {
		c := counts[name]
		p := name
		if c.n > 1 {
			p += fmt.Sprintf(" ×%d", c.n)
		}
		if c.failed > 0 {
			p += fmt.Sprintf(" (%d failed)", c.failed)
		}
		parts = append(parts, p)
	}
	return fmt.Sprintf(" Tool calls made (%d): %s.", len(calls), strings.Join(parts, ", "))
}

func (t *turn) stepLimitAnswer(last Message) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Stopped: the step limit of %d steps was reached before the model gave a final answer, so the task may be unfinished.", t.a.steps)
	b.WriteString(t.summary())
	names := make([]string, len(last.ToolCalls))
	for i, c := range last.ToolCalls {
		names[i] = c.Name
	}
	fmt.Fprintf(&b, " Not run: the model's last request to call %s.", strings.Join(names, ", "))
	if s := strings.TrimSpace(last.Content); s != "" {
		fmt.Fprintf(&b, "\n\nThe model's last message: %s", truncate(s, 2000))
	}
	b.WriteString("\n\nAsk again with a narrower task, or continue from what was done.")
	return b.String()
}

// truncate is s cut to at most n bytes on a character boundary, marked
// with "…" when cut. The cut never splits personal data (pii.Prefix): what
// a turn cuts is the data as it is, which the outbound gate filters after.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return pii.Prefix(s, n) + "…"
}

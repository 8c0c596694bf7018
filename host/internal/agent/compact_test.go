package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/ramabana/ramabana-mcp/sdk"
)

// checkPairs fails unless every assistant tool call is answered by the tool
// messages right after it, in order, and every tool message answers one.
func checkPairs(t *testing.T, msgs []Message) {
	t.Helper()
	for i := 0; i < len(msgs); i++ {
		m := msgs[i]
		switch {
		case m.Role == RoleTool:
			t.Fatalf("message %d: tool result %q without its assistant message", i, m.ToolCallID)
		case m.Role == RoleAssistant && len(m.ToolCalls) > 0:
			for j, c := range m.ToolCalls {
				k := i + 1 + j
				if k >= len(msgs) || msgs[k].Role != RoleTool || msgs[k].ToolCallID != c.ID {
					t.Fatalf("message %d: call %s is not answered at %d", i, c.ID, k)
				}
			}
			i += len(m.ToolCalls)
		}
	}
}

func TestCompactionInTurn(t *testing.T) {
	t.Parallel()
	const budget = 6000
	tools := &testToolset{}
	tools.add("read_chunk", "Read one chunk.", `{"type":"object","properties":{"n":{"type":"integer"}}}`,
		func(_ context.Context, raw json.RawMessage) (*sdk.Result, error) {
			return sdk.TextResult(strings.Repeat(string(raw), 1400/len(raw))), nil
		})
	var replies []Response
	for i := range 12 {
		replies = append(replies, Calls(
			call(fmt.Sprintf("a%d", i), "read_chunk", fmt.Sprintf(`{"n":%d}`, 2*i)),
			call(fmt.Sprintf("b%d", i), "read_chunk", fmt.Sprintf(`{"n":%d}`, 2*i+1)),
		))
	}
	replies = append(replies, Text("read everything"))
	be := NewScripted(replies...)
	const task = "read all the chunks"
	ag := New(Config{Backend: be, Tools: tools, System: "You are a test agent.", ContextBudget: budget})
	var progress []string
	out, err := ag.Run(context.Background(), task, RunOptions{Progress: func(_ int, m string) { progress = append(progress, m) }})
	if err != nil {
		t.Fatal(err)
	}
	if out.Answer != "read everything" || out.Compactions == 0 {
		t.Fatalf("outcome = %+v", out)
	}
	sent := be.Sent()
	for i, req := range sent {
		msgs := req.Messages
		if size := estimate(msgs); size > budget {
			t.Errorf("request %d: %d characters, over the budget of %d", i+1, size, budget)
		}
		checkPairs(t, msgs)
		if msgs[0].Role != RoleSystem || msgs[0].Content != "You are a test agent." || msgs[1].Role != RoleUser || !strings.HasPrefix(msgs[1].Content, task) {
			t.Errorf("request %d does not start with the system prompt and the task: %+v", i+1, msgs[:2])
		}
		// The latest exchange, which the model has not seen yet, is intact.
		if i > 0 {
			last := msgs[len(msgs)-1]
			if last.Role != RoleTool || strings.HasPrefix(last.Content, "[tool result of") {
				t.Errorf("request %d: latest result was trimmed: %q", i+1, last.Content)
			}
		}
	}
	last := sent[len(sent)-1].Messages
	var stubs int
	for _, m := range last {
		if strings.HasPrefix(m.Content, "[tool result of read_chunk, 1 KB, trimmed to save context]") {
			stubs++
		}
	}
	if stubs == 0 || !strings.Contains(last[1].Content, "[Context note: earlier steps of this task were removed to save context: calls to read_chunk ×") {
		t.Errorf("last request has %d stubs and task %q", stubs, last[1].Content)
	}
	if !strings.Contains(strings.Join(progress, "\n"), "compacted the conversation") {
		t.Errorf("no compaction progress in %q", progress)
	}
}

func TestCompact(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("x", 2000)
	bigArgs := `{"content":"` + strings.Repeat("y", 3000) + `"}`
	ex := func(id, name, args, result string) []Message {
		return []Message{
			{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: id, Name: name, Arguments: args}}},
			{Role: RoleTool, ToolCallID: id, Content: result},
		}
	}
	head := []Message{{Role: RoleSystem, Content: "sys"}, {Role: RoleUser, Content: "task"}}
	conv := func(parts ...[]Message) []Message {
		out := append([]Message(nil), head...)
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	stub := "[tool result of view_file, 2 KB, trimmed to save context]"
	tests := map[string]struct {
		budget int
		in     []Message
		want   []Message
	}{
		"under budget: untouched": {
			budget: 100_000,
			in:     conv(ex("1", "view_file", `{}`, big), ex("2", "view_file", `{}`, big)),
			want:   conv(ex("1", "view_file", `{}`, big), ex("2", "view_file", `{}`, big)),
		},
		"stubs the oldest results first, latest kept": {
			budget: 5000,
			in:     conv(ex("1", "view_file", `{}`, big), ex("2", "view_file", `{}`, big), ex("3", "view_file", `{}`, big)),
			want:   conv(ex("1", "view_file", `{}`, stub), ex("2", "view_file", `{}`, stub), ex("3", "view_file", `{}`, big)),
		},
		"long arguments trimmed with the results": {
			budget: 5000,
			in:     conv(ex("1", "create_file", bigArgs, "ok"), ex("2", "view_file", `{}`, big)),
			want:   conv(ex("1", "create_file", `{"_trimmed":"3 KB of arguments trimmed to save context"}`, "ok"), ex("2", "view_file", `{}`, big)),
		},
		"drops whole exchanges when stubs are not enough": {
			budget: 2200,
			in:     conv(ex("1", "list_files", `{}`, "a"), ex("2", "search_code", `{}`, "b"), ex("3", "view_file", `{}`, big)),
			want: []Message{
				head[0],
				{Role: RoleUser, Content: "task\n\n[Context note: earlier steps of this task were removed to save context: calls to list_files, search_code. Their results are no longer shown; call a tool again if you need them.]"},
				ex("3", "view_file", `{}`, big)[0], ex("3", "view_file", `{}`, big)[1],
			},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			ag := New(Config{Backend: NewScripted(), ContextBudget: tc.budget})
			tr := ag.newTurn("task", RunOptions{})
			orig := cloneMessages(tc.in)
			// A shallow copy: ToolCalls slices are shared, as they are
			// with the requests already sent.
			tr.msgs = append([]Message(nil), tc.in...)
			tr.head = 2 // the system prompt and the task
			tr.compact(1)
			if d := cmp.Diff(tc.want, tr.msgs); d != "" {
				t.Errorf("compacted (-want +got):\n%s", d)
			}
			checkPairs(t, tr.msgs)
			if d := cmp.Diff(orig, tc.in); d != "" {
				t.Errorf("compaction edited shared tool calls (-before +after):\n%s", d)
			}
		})
	}
}

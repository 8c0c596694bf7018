package agent

import (
	"fmt"
	"strings"
)

// msgOverhead approximates what the API adds per message (role, framing).
const msgOverhead = 16

// estimate is the conversation's size in characters.
func estimate(msgs []Message) int {
	n := 0
	for _, m := range msgs {
		n += msgSize(m)
	}
	return n
}

func msgSize(m Message) int {
	n := msgOverhead + len(m.Content) + len(m.ToolCallID)
	for _, c := range m.ToolCalls {
		n += len(c.ID) + len(c.Name) + len(c.Arguments) + msgOverhead
	}
	return n
}

// exchange is msgs[start:end]: an assistant message and the tool results
// that answer it, which must be kept or dropped together.
type exchange struct{ start, end int }

// exchanges splits the history after its first head messages (the system
// prompt, any context as user messages, the task).
func exchanges(msgs []Message, head int) []exchange {
	var xs []exchange
	for i := head; i < len(msgs); i++ {
		if msgs[i].Role == RoleTool && len(xs) > 0 {
			xs[len(xs)-1].end = i + 1
			continue
		}
		xs = append(xs, exchange{i, i + 1})
	}
	return xs
}

// compact shrinks the conversation when it is over the budget, down to
// three quarters of it so that the next steps do not compact again at once:
// first older tool results (and long tool-call arguments) become stubs,
// then the oldest exchanges are dropped whole. The system prompt, the
// context given as user messages, the task and the latest exchange are
// always kept intact.
func (t *turn) compact(step int) {
	budget := t.a.budget
	before := estimate(t.msgs)
	if before <= budget {
		return
	}
	target := budget * 3 / 4
	cur := before
	head := t.head
	xs := exchanges(t.msgs, head)
	old := xs[:max(len(xs)-1, 0)]

	stubbed := 0
	for _, x := range old {
		if cur <= target {
			break
		}
		stubbed += t.stub(x)
		cur = estimate(t.msgs)
	}

	dropped := 0
	for cur > target && dropped < len(old) {
		x := old[dropped]
		for _, c := range t.msgs[x.start].ToolCalls {
			t.dropped = append(t.dropped, c.Name)
		}
		dropped++
		cur = estimate(t.msgs[:head]) + len(t.note()) + estimate(t.msgs[x.end:])
	}
	if dropped > 0 {
		t.msgs = append(t.msgs[:head:head], t.msgs[old[dropped-1].end:]...)
		t.msgs[head-1].Content = t.task + t.note()
		cur = estimate(t.msgs)
	}

	t.out.Compactions++
	t.a.log.Info("ask: compacted the conversation", "step", step, "before", before, "after", cur,
		"budget", budget, "stubbed", stubbed, "dropped_exchanges", dropped)
	t.progress(fmt.Sprintf("step %d: compacted the conversation (%s → %s)", step, size(before), size(cur)))
	if cur > budget {
		t.a.log.Warn("ask: the conversation is still over the context budget after compaction", "size", cur, "budget", budget)
	}
}

// stub replaces the exchange's tool results, and tool-call arguments over
// 1 KB, with short stubs; it returns how many results it replaced. The
// ToolCalls slice is copied, not edited: earlier requests share it.
func (t *turn) stub(x exchange) int {
	names := map[string]string{}
	if a := &t.msgs[x.start]; len(a.ToolCalls) > 0 {
		calls := append([]ToolCall(nil), a.ToolCalls...)
		for i, c := range calls {
			names[c.ID] = c.Name
			if len(c.Arguments) > 1024 {
				calls[i].Arguments = fmt.Sprintf(`{"_trimmed":"%s of arguments trimmed to save context"}`, size(len(c.Arguments)))
			}
		}
		a.ToolCalls = calls
	}
	n := 0
	for i := x.start + 1; i < x.end; i++ {
		m := &t.msgs[i]
		name := names[m.ToolCallID]
		if name == "" {
			name = "a tool"
		}
		stub := fmt.Sprintf("[tool result of %s, %s, trimmed to save context]", name, size(len(m.Content)))
		if len(m.Content) > len(stub) {
			m.Content = stub
			n++
		}
	}
	return n
}

// note tells the model, after the task, what compaction removed.
func (t *turn) note() string {
	if len(t.dropped) == 0 {
		return ""
	}
	seen := map[string]int{}
	var order []string
	for _, n := range t.dropped {
		if seen[n] == 0 {
			order = append(order, n)
		}
		seen[n]++
	}
	parts := make([]string, len(order))
	for i, n := range order {
		parts[i] = n
		if seen[n] > 1 {
			parts[i] += fmt.Sprintf(" ×%d", seen[n])
		}
	}
	return fmt.Sprintf("\n\n[Context note: earlier steps of this task were removed to save context: calls to %s. Their results are no longer shown; call a tool again if you need them.]", strings.Join(parts, ", "))
}

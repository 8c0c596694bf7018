package gate

import (
	"context"
	"encoding/json"
	"reflect"

	"github.com/ramabana/ramabana-mcp/host/internal/agent"
	"github.com/ramabana/ramabana-mcp/host/internal/pii"
)

// Backend puts b, the ask agent's model, behind the gate: every request
// leaves with its messages and its tools (names, descriptions, schemas)
// filtered. The model's own messages (role assistant, and the tool calls
// in them) keep the placeholders they hold, which are the ones it was
// shown; everything else (the system prompt, the task, the tool results,
// the skills) is filtered as every text that leaves is, placeholder-shaped
// text hidden. What the model answers is not touched.
func (g *Gate) Backend(b agent.Backend) agent.Backend {
	if !g.On() {
		return b
	}
	return &backend{g: g, next: b}
}

type backend struct {
	g    *Gate
	next agent.Backend
}

func (b *backend) Complete(ctx context.Context, req *agent.Request) (*agent.Response, error) {
	return b.next.Complete(ctx, b.g.agentRequest(req))
}

// agentRequest is req as it may leave; req is not changed.
func (g *Gate) agentRequest(req *agent.Request) *agent.Request {
	out := &agent.Request{Model: req.Model, Messages: make([]agent.Message, len(req.Messages)), Tools: make([]agent.Tool, len(req.Tools))}
	own := g.f
	own.KeepPlaceholders = true
	for i, m := range req.Messages {
		f := g.f
		if m.Role == agent.RoleAssistant {
			f = own
		}
		m.Content = text(f, m.Content)
		if len(m.ToolCalls) > 0 {
			calls := make([]agent.ToolCall, len(m.ToolCalls))
			for j, c := range m.ToolCalls {
				c.Name = text(f, c.Name)
				c.Arguments = text(f, c.Arguments)
				calls[j] = c
			}
			m.ToolCalls = calls
		}
		out.Messages[i] = m
	}
	for i, t := range req.Tools {
		t.Name = g.Text(t.Name)
		t.Description = g.Text(t.Description)
		if len(t.InputSchema) > 0 {
			w := &walker{f: g.f}
			if v, ch := w.rawJSON(reflect.ValueOf(t.InputSchema)); ch {
				t.InputSchema = v.Interface().(json.RawMessage)
			}
		}
		out.Tools[i] = t
	}
	return out
}

func text(f pii.Filter, s string) string {
	out, _ := filterText(f, s)
	return out
}

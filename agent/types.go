package agent

import (
	"context"
	"encoding/json"

	"github.com/ramabana/ramabana-mcp/sdk"
)

// Tool is one tool the model may call, as the model sees it.
type Tool struct {
	Name        string
	Description string
	// InputSchema is the JSON Schema of the arguments, root "type": "object".
	// It is sent to the model as given; empty means an object without
	// properties.
	InputSchema json.RawMessage
}

// Toolset is the host's catalog. The agent calls Tools once per turn and
// sends every tool it returns to the model; it calls Call for each tool call
// the model makes, sequentially, with the turn's context.
//
// Call returns a result (IsError for failures the model can act on) or a Go
// error for faults; the agent reports either to the model as a tool result.
type Toolset interface {
	Tools() []Tool
	Call(ctx context.Context, name string, args json.RawMessage) (*sdk.Result, error)
}

// Server is an upstream MCP server the model may connect to.
type Server struct {
	ID          string
	Description string
}

// Connector is one turn's access to the upstream MCP servers: the host makes
// a fresh one for each Run, so each turn owns its activation set. Run calls
// its methods from one goroutine only and closes it when the turn ends.
type Connector interface {
	// Available lists the servers the model may connect to.
	Available() []Server
	// Connect starts (or joins) the server and returns its tools, named
	// <id>__<tool>.
	Connect(ctx context.Context, id string) ([]Tool, error)
	// Call calls a connected server's tool by its namespaced name.
	Call(ctx context.Context, namespaced string, args json.RawMessage) (*sdk.Result, error)
	// Close ends the turn's sessions.
	Close() error
}

// Backend is a chat model with tool calling.
type Backend interface {
	// Complete sends one request and returns the model's reply. It honours
	// ctx: a cancelled ctx ends the request in flight and returns ctx.Err().
	// Complete must not modify req.
	Complete(ctx context.Context, req *Request) (*Response, error)
}

// Roles of a Message.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleTool      = "tool"
)

// Request is one call to a Backend.
type Request struct {
	// Model may be empty: the backend then uses its own configured model.
	Model    string
	Messages []Message
	Tools    []Tool
}

// Message is one message of the conversation.
type Message struct {
	Role    string // "system", "user", "assistant" or "tool"
	Content string
	// ToolCalls are the calls an assistant message asks for.
	ToolCalls []ToolCall
	// ToolCallID ties a tool message to the call it answers.
	ToolCallID string
}

// ToolCall is one tool call the model asked for.
type ToolCall struct {
	ID   string
	Name string
	// Arguments is the raw JSON text the model produced; it may be malformed.
	Arguments string
}

// Usage counts tokens as the backend reports them.
type Usage struct {
	Prompt, Completion int
}

// Response is a Backend's reply.
type Response struct {
	Message      Message
	Usage        Usage
	FinishReason string
}

func (m Message) clone() Message {
	m.ToolCalls = append([]ToolCall(nil), m.ToolCalls...)
	return m
}

func cloneMessages(ms []Message) []Message {
	out := make([]Message, len(ms))
	for i, m := range ms {
		out[i] = m.clone()
	}
	return out
}

func cloneTools(ts []Tool) []Tool {
	out := make([]Tool, len(ts))
	for i, t := range ts {
		t.InputSchema = append(json.RawMessage(nil), t.InputSchema...)
		out[i] = t
	}
	return out
}

func (r *Request) clone() Request {
	return Request{Model: r.Model, Messages: cloneMessages(r.Messages), Tools: cloneTools(r.Tools)}
}

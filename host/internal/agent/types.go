package agent

import (
	"context"
	"encoding/json"

	"github.com/ramabana/ramabana-mcp/sdk"
	"github.com/ramabana/ramabana-mcp/tasks"
)

// Tool is one tool the model may call, as the model sees it.
type Tool struct {
	Name        string
	Description string
	// InputSchema is the JSON Schema of the arguments, root "type": "object".
	// It is sent to the model as given; empty means an object without
	// properties.
	InputSchema json.RawMessage
	// Task is the stage of a turn the tool serves (docs/agent-tasks.md);
	// the zero value is a completion tool. Only completion tools are
	// offered to the model: a turn calls context tools before the first
	// step, post then evaluation tools after each answer, and leaves skill
	// tools (read through Skills) and none tools alone.
	Task tasks.Info
}

// Toolset is the host's catalog. The agent calls Tools once per turn,
// sends its completion tools to the model and runs the others at their
// stage (Tool.Task); it calls Call for each of those calls and each tool
// call the model makes, sequentially, with the turn's context.
//
// Call returns a result (IsError for failures the model can act on) or a Go
// error for faults; the agent reports either to the model as a tool result.
type Toolset interface {
	Tools() []Tool
	Call(ctx context.Context, name string, args json.RawMessage) (*sdk.Result, error)
}

// Skill is one skill of the library, as a turn lists it.
type Skill struct {
	Name        string
	Description string
	// AlwaysOn skills are read before the first step and injected with the
	// context; the others are listed by name and description, and the model
	// loads one with read_skill.
	AlwaysOn bool
}

// Skills is the skill library a turn may read: skill files and skill tools
// alike. Read returns the same text as the resource skill://{name}; ok is
// false when there is no such skill. Read is called with the turn's
// context, so a skill tool's call is the turn's. When the skill exists
// but its text cannot be had (its skill tool failed, or answered something
// that is not its SKILL.md), Read returns an error, never that answer as
// the text: a turn then leaves an always-on skill out of the prompt, and
// read_skill reports the error to the model.
type Skills interface {
	List() []Skill
	Read(ctx context.Context, name string) (text string, ok bool, err error)
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

package openaiapi

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
)

// The chat completions API (POST base/chat/completions) without streaming:
// the fields a request with tool calling sends and those of the reply the
// agent reads. Unknown fields of a reply are ignored.

// ChatRequest is a chat completion request: model, messages and tools only,
// so servers that reject unknown parameters accept it.
type ChatRequest struct {
	Model    string    `json:"model"`
	Messages []Message `json:"messages"`
	// Tools is left out when empty: some servers reject an empty list.
	Tools []Tool `json:"tools,omitempty"`
}

// Message is a message of a request; make one with SystemMessage,
// UserMessage, AssistantMessage or ToolMessage.
type Message struct {
	Role string `json:"role"`
	// Content is nil only for an assistant's message of tool calls
	// without text, which then has no content.
	Content    *string    `json:"content,omitempty"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID *string    `json:"tool_call_id,omitempty"`
}

// SystemMessage is a system message of text.
func SystemMessage(text string) Message { return Message{Role: "system", Content: &text} }

// UserMessage is a user message of text.
func UserMessage(text string) Message { return Message{Role: "user", Content: &text} }

// ToolMessage is the result text of the tool call of id; the id is sent
// even when empty (a server that gave a call no id).
func ToolMessage(text, id string) Message {
	return Message{Role: "tool", Content: &text, ToolCallID: &id}
}

// AssistantMessage is a message the model wrote: its text, and the tool
// calls it asked for. Text is sent unless it is empty and there are calls.
func AssistantMessage(text string, calls []ToolCall) Message {
	m := Message{Role: "assistant", ToolCalls: calls}
	if text != "" || len(calls) == 0 {
		m.Content = &text
	}
	return m
}

// ToolCall is a tool call, of a reply or sent back in an assistant's
// message: Type "function" with Function, or "custom" with Custom (a
// reply's only).
type ToolCall struct {
	ID       Text         `json:"id"`
	Type     Text         `json:"type"`
	Function FunctionCall `json:"function"`
	Custom   *CustomCall  `json:"custom,omitempty"`
}

// FunctionCall is the function a tool call calls and its arguments, the
// JSON text the model wrote (it may be malformed).
type FunctionCall struct {
	Name      Text `json:"name"`
	Arguments Text `json:"arguments"`
}

// CustomCall is a custom tool's call: its input is free text.
type CustomCall struct {
	Name  Text `json:"name"`
	Input Text `json:"input"`
}

// FunctionCallOf is a function tool call to send back.
func FunctionCallOf(id, name, arguments string) ToolCall {
	return ToolCall{ID: Text(id), Type: "function", Function: FunctionCall{Name: Text(name), Arguments: Text(arguments)}}
}

// Tool is a function tool the model may call.
type Tool struct {
	Type     string   `json:"type"`
	Function Function `json:"function"`
}

// Function is a function tool's definition.
type Function struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	// Parameters is the JSON Schema of the arguments, sent byte for byte:
	// decoding it into a map would reorder keys and turn integers into
	// floats. It must be valid JSON.
	Parameters json.RawMessage `json:"parameters"`
}

// FunctionTool is a function tool.
func FunctionTool(name, description string, parameters json.RawMessage) Tool {
	return Tool{Type: "function", Function: Function{Name: name, Description: description, Parameters: parameters}}
}

// Completion is a chat completion, the reply to a ChatRequest.
type Completion struct {
	Choices []Choice `json:"choices"`
	Usage   Usage    `json:"usage"`
}

// Choice is one of a completion's choices.
type Choice struct {
	Message      Reply `json:"message"`
	FinishReason Text  `json:"finish_reason"`
}

// Reply is the message of a choice.
type Reply struct {
	Role    Text `json:"role"`
	Content Text `json:"content"`
	// Refusal is the model's reason for not answering (OpenAI).
	Refusal   Text       `json:"refusal"`
	ToolCalls []ToolCall `json:"tool_calls"`
}

// Usage counts a request's tokens as the server reports them. It never
// fails to decode: usage a server writes oddly reads as none.
type Usage struct {
	PromptTokens     Count `json:"prompt_tokens"`
	CompletionTokens Count `json:"completion_tokens"`
}

// UnmarshalJSON reads usage leniently.
func (u *Usage) UnmarshalJSON(b []byte) error {
	type plain Usage
	var p plain
	if json.Unmarshal(b, &p) == nil {
		*u = Usage(p)
	}
	return nil
}

// ParseCompletion decodes a chat completion's JSON; what follows the first
// JSON value is ignored.
func ParseCompletion(body []byte) (*Completion, error) {
	var c Completion
	if err := json.NewDecoder(bytes.NewReader(body)).Decode(&c); err != nil {
		return nil, err
	}
	return &c, nil
}

// Text is a string field of a reply, read leniently as servers write them:
// a JSON string is its value, null is "", and any other value (an object
// where arguments belong, a number for an id) is its JSON text.
type Text string

// UnmarshalJSON reads a Text.
func (t *Text) UnmarshalJSON(b []byte) error {
	switch {
	case len(b) > 0 && b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*t = Text(s)
	case string(b) == "null":
		*t = ""
	default:
		*t = Text(b)
	}
	return nil
}

// Count is a number of a reply, read leniently: a JSON number (a fraction
// cut), or a string of one; anything else is 0.
type Count int64

// UnmarshalJSON reads a Count.
func (c *Count) UnmarshalJSON(b []byte) error {
	s := string(b)
	if len(s) >= 2 && s[0] == '"' {
		s = s[1 : len(s)-1]
	}
	*c = 0
	if f, err := strconv.ParseFloat(s, 64); err == nil && f >= 0 && f < math.MaxInt64 {
		*c = Count(f)
	}
	return nil
}

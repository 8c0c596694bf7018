package openaiapi

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestChatRequestJSON(t *testing.T) {
	t.Parallel()
	schema := json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer","maximum":10}},"required":["n"]}`)
	req := ChatRequest{
		Model: "qwen3:8b",
		Messages: []Message{
			SystemMessage("be brief"),
			UserMessage(""),
			AssistantMessage("", []ToolCall{FunctionCallOf("c1", "count", `{"n":3}`)}),
			ToolMessage("3", "c1"),
			ToolMessage("no id", ""),
			AssistantMessage("", nil),
			AssistantMessage("and text", []ToolCall{FunctionCallOf("", "count", `{}`)}),
		},
		Tools: []Tool{FunctionTool("count", "", schema), FunctionTool("x", "Does x.", json.RawMessage(`{}`))},
	}
	got, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"model":"qwen3:8b","messages":[` +
		`{"role":"system","content":"be brief"},` +
		`{"role":"user","content":""},` +
		`{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"count","arguments":"{\"n\":3}"}}]},` +
		`{"role":"tool","content":"3","tool_call_id":"c1"},` +
		`{"role":"tool","content":"no id","tool_call_id":""},` +
		`{"role":"assistant","content":""},` +
		`{"role":"assistant","content":"and text","tool_calls":[{"id":"","type":"function","function":{"name":"count","arguments":"{}"}}]}],` +
		`"tools":[{"type":"function","function":{"name":"count","parameters":` + string(schema) + `}},` +
		`{"type":"function","function":{"name":"x","description":"Does x.","parameters":{}}}]}`
	if string(got) != want {
		t.Errorf("request JSON:\n got %s\nwant %s", got, want)
	}

	// No tools: no "tools" key.
	got, _ = json.Marshal(ChatRequest{Model: "m", Messages: []Message{UserMessage("hi")}})
	if want := `{"model":"m","messages":[{"role":"user","content":"hi"}]}`; string(got) != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

func TestParseCompletion(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		body string
		want Completion
	}{
		"openai": {
			body: `{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"gpt-4o","choices":[{"index":0,"message":{"role":"assistant","content":null,"refusal":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"view_file","arguments":"{\"path\":\"a.go\"}"}}]},"logprobs":null,"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":100,"completion_tokens":7,"total_tokens":107,"prompt_tokens_details":{"cached_tokens":0}}}`,
			want: Completion{
				Choices: []Choice{{FinishReason: "tool_calls", Message: Reply{Role: "assistant", ToolCalls: []ToolCall{
					{ID: "call_1", Type: "function", Function: FunctionCall{Name: "view_file", Arguments: `{"path":"a.go"}`}},
				}}}},
				Usage: Usage{PromptTokens: 100, CompletionTokens: 7},
			},
		},
		"text, trailing data ignored": {
			body: `{"choices":[{"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}]} trailing`,
			want: Completion{Choices: []Choice{{FinishReason: "stop", Message: Reply{Role: "assistant", Content: "hi"}}}},
		},
		"refusal": {
			body: `{"choices":[{"message":{"role":"assistant","content":null,"refusal":"I can't help with that."},"finish_reason":"stop"}]}`,
			want: Completion{Choices: []Choice{{FinishReason: "stop", Message: Reply{Role: "assistant", Refusal: "I can't help with that."}}}},
		},
		"arguments as an object, id a number, usage as strings": {
			body: `{"choices":[{"message":{"role":"assistant","tool_calls":[{"id":7,"function":{"name":"f","arguments":{"a": [1, 2]}}}]},"finish_reason":null}],"usage":{"prompt_tokens":"12","completion_tokens":3.0}}`,
			want: Completion{
				Choices: []Choice{{Message: Reply{Role: "assistant", ToolCalls: []ToolCall{
					{ID: "7", Function: FunctionCall{Name: "f", Arguments: `{"a": [1, 2]}`}},
				}}}},
				Usage: Usage{PromptTokens: 12, CompletionTokens: 3},
			},
		},
		"custom tool call": {
			body: `{"choices":[{"message":{"role":"assistant","tool_calls":[{"id":"c","type":"custom","custom":{"name":"grammar","input":"free text"}}]}}]}`,
			want: Completion{Choices: []Choice{{Message: Reply{Role: "assistant", ToolCalls: []ToolCall{
				{ID: "c", Type: "custom", Custom: &CustomCall{Name: "grammar", Input: "free text"}},
			}}}}},
		},
		"usage odd or missing": {
			body: `{"choices":[],"usage":"n/a"}`,
			want: Completion{Choices: []Choice{}},
		},
		"usage of negative and huge numbers": {
			body: `{"usage":{"prompt_tokens":-1,"completion_tokens":1e300}}`,
			want: Completion{},
		},
		"no choices": {
			body: `{"id":"x","object":"chat.completion"}`,
			want: Completion{},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseCompletion([]byte(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(&tc.want, got); d != "" {
				t.Errorf("completion (-want +got):\n%s", d)
			}
		})
	}
	for _, bad := range []string{``, `{"choices": [`, `"hello"`, `{"choices": {}}`, `{"choices": [{"message": {"tool_calls": "x"}}]}`, `{"choices":[{"message":{"content":"bad \ud800 escape \x"}}]}`} {
		if c, err := ParseCompletion([]byte(bad)); err == nil {
			t.Errorf("ParseCompletion(%q) = %+v, want an error", bad, c)
		}
	}
}

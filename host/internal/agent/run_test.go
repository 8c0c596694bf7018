package agent

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/ramabana/ramabana-mcp/sdk"
)

func TestOneReplyOneRequest(t *testing.T) {
	t.Parallel()
	be := NewScripted(Text("`threshold` is defined in pkg/sizes.py."))
	tools := filesToolset(t.TempDir())
	ag := New(Config{Backend: be, Model: "m", Tools: tools})
	out, err := ag.Run(context.Background(), "where is the threshold defined?", RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := []Request{{
		Model: "m",
		Messages: []Message{
			{Role: RoleSystem, Content: DefaultSystemPrompt(DefaultMaxSteps)},
			{Role: RoleUser, Content: "where is the threshold defined?"},
		},
		Tools: tools.Tools(),
	}}
	if d := cmp.Diff(want, be.Sent()); d != "" {
		t.Errorf("sent (-want +got):\n%s", d)
	}
	if out.Answer != "`threshold` is defined in pkg/sizes.py." || out.Steps != 1 || out.StoppedBy != StopAnswer || len(out.ToolCalls) != 0 {
		t.Errorf("outcome = %+v", out)
	}
}

func TestScriptedRunsOut(t *testing.T) {
	t.Parallel()
	be := NewScripted(Calls(call("c1", "list_files", `{}`)))
	ag := New(Config{Backend: be, Tools: filesToolset(t.TempDir())})
	out, err := ag.Run(context.Background(), "task", RunOptions{})
	if !errors.Is(err, ErrScriptExhausted) || !strings.HasPrefix(err.Error(), "ask step 2: ") {
		t.Fatalf("err = %v, want ErrScriptExhausted at step 2", err)
	}
	if out.StoppedBy != StopError || out.Steps != 2 || len(out.ToolCalls) != 1 {
		t.Errorf("outcome = %+v", out)
	}
	if st := ag.Status(); st.LastError != err.Error() || st.LastErrorAt == nil || st.LastErrorAt.IsZero() || st.Turns != 1 {
		t.Errorf("status = %+v", st)
	}
}

func TestBackendErrorEndsTurn(t *testing.T) {
	t.Parallel()
	fake := newFakeOpenAI(t, reply{status: 401, body: `{"error":{"message":"bad key"}}`})
	ag := New(Config{Backend: fake.backend(OpenAIConfig{KeyEnv: "OPENAI_API_KEY"})})
	out, err := ag.Run(context.Background(), "task", RunOptions{})
	if !errors.Is(err, ErrAuth) || !strings.HasPrefix(err.Error(), "ask step 1: model backend http://127.0.0.1:") ||
		!strings.Contains(err.Error(), "$OPENAI_API_KEY") {
		t.Fatalf("err = %v", err)
	}
	if out.StoppedBy != StopError {
		t.Errorf("stopped by %q", out.StoppedBy)
	}
}

// TestBadToolCalls: whatever the model gets wrong comes back to it as a
// tool result and the turn goes on.
func TestBadToolCalls(t *testing.T) {
	t.Parallel()
	img := &sdk.Result{Content: []sdk.Content{{Text: "a chart:"}, {Image: &sdk.Image{Data: make([]byte, 3000), MIMEType: "image/png"}}}}
	tests := map[string]struct {
		call        ToolCall
		wantResult  string
		wantIsError bool
		wantArgs    string // in the history
	}{
		"malformed JSON": {
			call:        call("c1", "view_file", `{"path": "a.txt"`),
			wantResult:  "Error: the arguments of this view_file call are not a valid JSON object, so the tool was not run. You sent: {\"path\": \"a.txt\"\nCall it again with one JSON object that matches the tool's input schema.",
			wantIsError: true,
			wantArgs:    "{}",
		},
		"not an object": {
			call:        call("c1", "view_file", `["a.txt"]`),
			wantResult:  "Error: the arguments of this view_file call are not a valid JSON object, so the tool was not run. You sent: [\"a.txt\"]\nCall it again with one JSON object that matches the tool's input schema.",
			wantIsError: true,
			wantArgs:    "{}",
		},
		"unknown tool, close names": {
			call:        call("c1", "view_files", `{"path":"a.txt"}`),
			wantResult:  `Error: there is no tool named "view_files". Did you mean: view_file? Use only the tools you were given.`,
			wantIsError: true,
			wantArgs:    `{"path":"a.txt"}`,
		},
		"unknown tool, nothing close": {
			call:        call("c1", "rm_rf", `{}`),
			wantResult:  `Error: there is no tool named "rm_rf". The tools are: view_file, list_files, fail, image.`,
			wantIsError: true,
			wantArgs:    `{}`,
		},
		"empty arguments are an empty object": {
			call:       call("c1", "list_files", ``),
			wantResult: "a.txt",
			wantArgs:   `{}`,
		},
		"tool error result": {
			call:        call("c1", "view_file", `{"path":"missing.txt"}`),
			wantResult:  "Error: cannot read missing.txt: no such file; use list_files to see what exists",
			wantIsError: true,
			wantArgs:    `{"path":"missing.txt"}`,
		},
		"tool Go error": {
			call:        call("c1", "fail", `{}`),
			wantResult:  `{"error":"tool fail threw: plugin \"x\" crashed","isError":true}`,
			wantIsError: true,
			wantArgs:    `{}`,
		},
		"image elided": {
			call:       call("c1", "image", `{}`),
			wantResult: "a chart:\n[image (image/png, 3 KB) not shown: this conversation carries text only]",
			wantArgs:   `{}`,
		},
		"missing call id": {
			call:       call("", "list_files", `{}`),
			wantResult: "a.txt",
			wantArgs:   `{}`,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			writeFile(t, dir, "a.txt", "hello\n")
			tools := filesToolset(dir)
			tools.add("fail", "Always fails.", `{"type":"object"}`, func(context.Context, json.RawMessage) (*sdk.Result, error) {
				return nil, errors.New(`plugin "x" crashed`)
			})
			tools.add("image", "Returns an image.", `{"type":"object"}`, func(context.Context, json.RawMessage) (*sdk.Result, error) {
				return img, nil
			})
			be := NewScripted(Calls(tc.call), Text("done"))
			out, err := New(Config{Backend: be, Tools: tools}).Run(context.Background(), "task", RunOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if out.Answer != "done" || out.StoppedBy != StopAnswer {
				t.Errorf("outcome = %+v", out)
			}
			sent := be.Sent()
			if len(sent) != 2 {
				t.Fatalf("sent %d requests, want 2", len(sent))
			}
			msgs := sent[1].Messages
			id := tc.call.ID
			if id == "" {
				id = "call_1_1"
			}
			want := []Message{
				{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: id, Name: tc.call.Name, Arguments: tc.wantArgs}}},
				{Role: RoleTool, ToolCallID: id, Content: tc.wantResult},
			}
			if d := cmp.Diff(want, msgs[2:]); d != "" {
				t.Errorf("history (-want +got):\n%s", d)
			}
			wantRec := []CallRecord{{Name: tc.call.Name, Args: tc.call.Arguments, IsError: tc.wantIsError}}
			if d := cmp.Diff(wantRec, out.ToolCalls, cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".Duration" }, cmp.Ignore())); d != "" {
				t.Errorf("records (-want +got):\n%s", d)
			}
		})
	}
}

func TestStepLimit(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, dir, "a.txt", "hello\n")
	tools := filesToolset(dir)
	be := NewScripted(
		Calls(call("c1", "view_file", `{"path":"a.txt"}`)),
		Calls(call("c2", "view_file", `{"path":"b.txt"}`), call("c3", "list_files", `{}`)),
		Response{Message: Message{Content: "Still looking.", ToolCalls: []ToolCall{call("c4", "list_files", `{}`)}}},
		Text("never sent"),
	)
	out, err := New(Config{Backend: be, Tools: tools, MaxSteps: 3}).Run(context.Background(), "task", RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := "Stopped: the step limit of 3 steps was reached before the model gave a final answer, so the task may be unfinished. " +
		"Tool calls made (3): view_file ×2 (1 failed), list_files. Not run: the model's last request to call list_files." +
		"\n\nThe model's last message: Still looking.\n\nAsk again with a narrower task, or continue from what was done."
	if d := cmp.Diff(want, out.Answer); d != "" {
		t.Errorf("answer (-want +got):\n%s", d)
	}
	if out.StoppedBy != StopStepLimit || out.Steps != 3 || len(be.Sent()) != 3 || len(tools.Calls()) != 3 {
		t.Errorf("outcome = %+v, %d requests, %d calls", out, len(be.Sent()), len(tools.Calls()))
	}
}

func TestEmptyAnswer(t *testing.T) {
	t.Parallel()
	be := NewScripted(Calls(call("c1", "list_files", `{}`)), Text(""))
	out, err := New(Config{Backend: be, Tools: filesToolset(t.TempDir())}).Run(context.Background(), "task", RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if want := "The model ended the turn without a final answer. Tool calls made (1): list_files."; out.Answer != want {
		t.Errorf("answer = %q, want %q", out.Answer, want)
	}
}

func TestResultText(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		res     *sdk.Result
		want    string
		isError bool
	}{
		"nil":        {res: nil, want: "(the tool returned nothing)"},
		"empty":      {res: &sdk.Result{}, want: "(no output)"},
		"structured": {res: &sdk.Result{Structured: json.RawMessage(`{"is_valid":true}`)}, want: `{"is_valid":true}`},
		"error":      {res: &sdk.Result{IsError: true, Content: []sdk.Content{{Text: "line 3 changed"}}}, want: "Error: line 3 changed", isError: true},
		"text resource": {res: &sdk.Result{Content: []sdk.Content{{Resource: &sdk.Resource{URI: "skill://x", Text: "body"}}}},
			want: "[resource skill://x]\nbody"},
		"blob resource": {res: &sdk.Result{Content: []sdk.Content{{Resource: &sdk.Resource{URI: "file:///a.bin", MIMEType: "application/octet-stream", Blob: make([]byte, 10)}}}},
			want: "[resource file:///a.bin (application/octet-stream, 10 B) not shown: binary content]"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, isErr := resultText(tc.res)
			if got != tc.want || isErr != tc.isError {
				t.Errorf("resultText = %q, %v; want %q, %v", got, isErr, tc.want, tc.isError)
			}
		})
	}
}

func TestCloseNames(t *testing.T) {
	t.Parallel()
	names := []string{"view_file", "list_files", "search_code", "github__search_issues", "replace_text"}
	tests := map[string][]string{
		"view_files":    {"view_file"},
		"viewfile":      {"view_file"},
		"search_issues": {"github__search_issues"},
		"Search_Code":   {"search_code"},
		"frobnicate":    {},
	}
	for in, want := range tests {
		if d := cmp.Diff(want, closeNames(in, names, 5)); d != "" {
			t.Errorf("closeNames(%q) (-want +got):\n%s", in, d)
		}
	}
}

package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// reply is one scripted HTTP answer of fakeOpenAI.
type reply struct {
	status int
	header map[string]string
	body   string
}

// fakeOpenAI is an OpenAI-compatible chat completions server on 127.0.0.1
// that answers with its script and records what it was sent.
type fakeOpenAI struct {
	srv *httptest.Server

	mu      sync.Mutex
	script  []reply
	bodies  [][]byte
	headers []http.Header
}

func newFakeOpenAI(t *testing.T, script ...reply) *fakeOpenAI {
	t.Helper()
	f := &fakeOpenAI{script: script}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeOpenAI) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		http.Error(w, `{"error":{"message":"no such route"}}`, http.StatusNotFound)
		return
	}
	body, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	n := len(f.bodies)
	f.bodies = append(f.bodies, body)
	f.headers = append(f.headers, r.Header.Clone())
	var rp reply
	if n < len(f.script) {
		rp = f.script[n]
	} else {
		rp = reply{status: 500, body: `{"error":{"message":"fake server: script exhausted"}}`}
	}
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	for k, v := range rp.header {
		w.Header().Set(k, v)
	}
	if rp.status == 0 {
		rp.status = http.StatusOK
	}
	w.WriteHeader(rp.status)
	_, _ = io.WriteString(w, rp.body)
}

// requests returns the decoded request bodies.
func (f *fakeOpenAI) requests(t *testing.T) []map[string]any {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []map[string]any
	for _, b := range f.bodies {
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatalf("request body is not JSON: %v\n%s", err, b)
		}
		out = append(out, m)
	}
	return out
}

func (f *fakeOpenAI) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.bodies)
}

func (f *fakeOpenAI) backend(cfg OpenAIConfig) *OpenAI {
	cfg.BaseURL = f.srv.URL + "/v1"
	if cfg.Model == "" {
		cfg.Model = "qwen3:8b"
	}
	cfg.HTTPClient = f.srv.Client()
	return NewOpenAI(cfg)
}

// completion is a chat completion body with content and/or tool calls.
func completion(content string, calls ...ToolCall) string {
	msg := map[string]any{"role": "assistant", "content": content}
	finish := "stop"
	if content == "" {
		msg["content"] = nil
	}
	if len(calls) > 0 {
		finish = "tool_calls"
		var tcs []any
		for _, c := range calls {
			tcs = append(tcs, map[string]any{"id": c.ID, "type": "function",
				"function": map[string]any{"name": c.Name, "arguments": c.Arguments}})
		}
		msg["tool_calls"] = tcs
	}
	b, _ := json.Marshal(map[string]any{
		"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "qwen3:8b",
		"choices": []any{map[string]any{"index": 0, "finish_reason": finish, "message": msg, "logprobs": nil}},
		"usage":   map[string]any{"prompt_tokens": 100, "completion_tokens": 7, "total_tokens": 107},
	})
	return string(b)
}

func decode(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("decode %s: %v", s, err)
	}
	return v
}

func TestOpenAITurn(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, dir, "sizes.py", "RESERVE = 4\ndef threshold(n):\n    return n - RESERVE\n")
	const answer = "`threshold` is defined in sizes.py, line 2, and subtracts the reserve."
	args := `{"path":"sizes.py"}`
	fake := newFakeOpenAI(t,
		reply{body: completion("", call("call_abc", "view_file", args))},
		reply{body: completion(answer)},
	)
	tools := filesToolset(dir)
	ag := New(Config{Backend: fake.backend(OpenAIConfig{APIKey: "sk-test"}), Model: "qwen3:8b", Tools: tools})
	const task = "where is the threshold defined?"
	var progress []string
	out, err := ag.Run(context.Background(), task, RunOptions{Progress: func(step int, msg string) { progress = append(progress, msg) }})
	if err != nil {
		t.Fatal(err)
	}
	if out.Answer != answer {
		t.Errorf("answer = %q, want %q", out.Answer, answer)
	}

	reqs := fake.requests(t)
	if len(reqs) != 2 {
		t.Fatalf("server saw %d requests, want 2", len(reqs))
	}
	wantTools := []any{}
	for _, tool := range tools.Tools() {
		wantTools = append(wantTools, map[string]any{"type": "function", "function": map[string]any{
			"name": tool.Name, "description": tool.Description, "parameters": decode(t, string(tool.InputSchema)),
		}})
	}
	system := map[string]any{"role": "system", "content": DefaultSystemPrompt(DefaultMaxSteps)}
	user := map[string]any{"role": "user", "content": task}
	assistant := map[string]any{"role": "assistant", "tool_calls": []any{map[string]any{
		"id": "call_abc", "type": "function", "function": map[string]any{"name": "view_file", "arguments": args},
	}}}
	toolMsg := map[string]any{"role": "tool", "tool_call_id": "call_abc",
		"content": "1|RESERVE = 4\n2|def threshold(n):\n3|    return n - RESERVE\n"}
	want := []map[string]any{
		{"model": "qwen3:8b", "messages": []any{system, user}, "tools": wantTools},
		{"model": "qwen3:8b", "messages": []any{system, user, assistant, toolMsg}, "tools": wantTools},
	}
	if d := cmp.Diff(want, reqs); d != "" {
		t.Errorf("requests (-want +got):\n%s", d)
	}
	fake.mu.Lock()
	raw, auth := fake.bodies[0], fake.headers[0].Get("Authorization")
	fake.mu.Unlock()
	if !bytes.Contains(raw, []byte(viewFileSchema)) {
		t.Errorf("the view_file schema was not sent byte for byte:\n%s", raw)
	}
	if auth != "Bearer sk-test" {
		t.Errorf("Authorization = %q", auth)
	}

	wantOut := &Outcome{Answer: answer, Steps: 2, StoppedBy: StopAnswer, Usage: Usage{Prompt: 200, Completion: 14},
		ToolCalls: []CallRecord{{Name: "view_file", Args: args}}}
	if d := cmp.Diff(wantOut, out, cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".Duration" }, cmp.Ignore())); d != "" {
		t.Errorf("outcome (-want +got):\n%s", d)
	}
	wantProgress := []string{"step 1: waiting for the model", "step 1: calling view_file", "step 2: waiting for the model"}
	if d := cmp.Diff(wantProgress, progress); d != "" {
		t.Errorf("progress (-want +got):\n%s", d)
	}
	st := ag.Status()
	if st.Turns != 1 || st.ToolCalls != 1 || st.PromptTokens != 200 || st.CompletionTokens != 14 || st.Model != "qwen3:8b" || st.Running != 0 {
		t.Errorf("status = %+v", st)
	}
}

func TestOpenAINoTools(t *testing.T) {
	t.Parallel()
	fake := newFakeOpenAI(t, reply{body: completion("hi")})
	out, err := New(Config{Backend: fake.backend(OpenAIConfig{})}).Run(context.Background(), "say hi", RunOptions{})
	if err != nil || out.Answer != "hi" {
		t.Fatalf("Run = %+v, %v", out, err)
	}
	req := fake.requests(t)[0]
	keys := make([]string, 0, len(req))
	for k := range req {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	// No tools: no "tools" key (some servers reject an empty list); the
	// model comes from the backend's config.
	if d := cmp.Diff([]string{"messages", "model"}, keys); d != "" {
		t.Errorf("request keys (-want +got):\n%s", d)
	}
	if req["model"] != "qwen3:8b" {
		t.Errorf("model = %v", req["model"])
	}
	fake.mu.Lock()
	auth := fake.headers[0].Get("Authorization")
	fake.mu.Unlock()
	if auth != "" {
		t.Errorf("no key configured, but Authorization = %q", auth)
	}
}

func TestOpenAIErrors(t *testing.T) {
	t.Parallel()
	ok := reply{body: completion("done")}
	tests := map[string]struct {
		script     []reply
		cfg        OpenAIConfig
		want       error // nil: success
		requests   int
		minElapsed time.Duration
		contains   []string
	}{
		"401 is an auth error, not retried": {
			script:   []reply{{status: 401, body: `{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}`}},
			cfg:      OpenAIConfig{KeyEnv: "RAMABANA_MODEL_KEY"},
			want:     ErrAuth,
			requests: 1,
			contains: []string{"401 Unauthorized", "Incorrect API key provided", "check the API key in $RAMABANA_MODEL_KEY"},
		},
		"403 is an auth error": {
			script:   []reply{{status: 403, body: `{"error":"forbidden"}`}},
			want:     ErrAuth,
			requests: 1,
			contains: []string{"403 Forbidden", "forbidden", "check the API key"},
		},
		"404 unknown model, Ollama style": {
			script:   []reply{{status: 404, body: `{"error":"model \"nope\" not found, try pulling it first"}`}},
			want:     ErrRejected,
			requests: 1,
			contains: []string{"404 Not Found", `model "nope" not found`},
		},
		"400 vLLM style": {
			script:   []reply{{status: 400, body: `{"object":"error","message":"maximum context length is 8192 tokens","type":"BadRequestError","code":400}`}},
			want:     ErrRejected,
			requests: 1,
			contains: []string{"maximum context length is 8192 tokens"},
		},
		"500 retried then fails": {
			script:   []reply{{status: 500, body: `{"error":{"message":"boom"}}`}, {status: 503, body: `oops`}},
			cfg:      OpenAIConfig{MaxRetries: 1},
			want:     ErrServer,
			requests: 2,
			contains: []string{"503 Service Unavailable", "oops", "gave up after 1 retries"},
		},
		"502 then success": {
			script:   []reply{{status: 502, body: `bad gateway`}, ok},
			requests: 2,
		},
		"malformed JSON": {
			script:   []reply{{body: `{"choices": [`}},
			want:     ErrBadResponse,
			requests: 1,
		},
		"no choices": {
			script:   []reply{{body: `{"id":"x","object":"chat.completion","choices":[]}`}},
			want:     ErrBadResponse,
			requests: 1,
			contains: []string{"no choices"},
		},
		"429 with Retry-After then success": {
			script:     []reply{{status: 429, header: map[string]string{"Retry-After": "1"}, body: `{"error":{"message":"slow down"}}`}, ok},
			requests:   2,
			minElapsed: time.Second,
		},
		"429 until the retries run out": {
			script: []reply{
				{status: 429, header: map[string]string{"Retry-After": "1"}, body: `{"error":{"message":"slow down"}}`},
				{status: 429, header: map[string]string{"Retry-After": "1"}, body: `{"error":{"message":"slow down"}}`},
			},
			cfg:        OpenAIConfig{MaxRetries: 1},
			want:       ErrRateLimited,
			requests:   2,
			minElapsed: time.Second,
			contains:   []string{"429 Too Many Requests", "slow down", "gave up after 1 retries", "wait 1s"},
		},
		"429 asking for more than the backend waits": {
			script:   []reply{{status: 429, header: map[string]string{"Retry-After": "120"}, body: `{}`}},
			want:     ErrRateLimited,
			requests: 1,
			contains: []string{"wait 2m0s", "longer than the 1m0s"},
		},
		"429 with Retry-After-Ms": {
			script:   []reply{{status: 429, header: map[string]string{"Retry-After-Ms": "20"}, body: `{}`}, ok},
			requests: 2,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			fake := newFakeOpenAI(t, tc.script...)
			b := fake.backend(tc.cfg)
			start := time.Now()
			resp, err := b.Complete(context.Background(), &Request{Messages: []Message{{Role: RoleUser, Content: "hi"}}})
			elapsed := time.Since(start)
			if tc.want == nil {
				if err != nil || resp.Message.Content != "done" {
					t.Fatalf("Complete = %+v, %v", resp, err)
				}
			} else {
				if !errors.Is(err, tc.want) {
					t.Fatalf("err = %v, want %v", err, tc.want)
				}
				var be *BackendError
				if !errors.As(err, &be) || be.URL != fake.srv.URL+"/v1" || be.Model != "qwen3:8b" {
					t.Fatalf("err = %#v, want a *BackendError naming the URL and model", err)
				}
				for _, s := range append(tc.contains, fake.srv.URL, "qwen3:8b") {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("error %q does not mention %q", err, s)
					}
				}
			}
			if n := fake.count(); n != tc.requests {
				t.Errorf("server saw %d requests, want %d", n, tc.requests)
			}
			if elapsed < tc.minElapsed {
				t.Errorf("returned after %s, before the %s the server asked to wait", elapsed, tc.minElapsed)
			}
		})
	}
}

func TestOpenAIRateLimitPastDeadline(t *testing.T) {
	t.Parallel()
	fake := newFakeOpenAI(t, reply{status: 429, header: map[string]string{"Retry-After": "30"}, body: `{}`})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err := fake.backend(OpenAIConfig{}).Complete(ctx, &Request{Messages: []Message{{Role: RoleUser, Content: "hi"}}})
	if !errors.Is(err, ErrRateLimited) || !strings.Contains(err.Error(), "wait 30s, past the deadline") {
		t.Fatalf("err = %v, want ErrRateLimited stating the 30s wait", err)
	}
	if ctx.Err() != nil {
		t.Errorf("waited until the deadline instead of failing at once")
	}
}

func TestOpenAIUnreachable(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	b := NewOpenAI(OpenAIConfig{BaseURL: "http://" + addr, Model: "llama3"})
	_, err = b.Complete(context.Background(), &Request{Messages: []Message{{Role: RoleUser, Content: "hi"}}})
	if !errors.Is(err, ErrUnreachable) {
		t.Fatalf("err = %v, want ErrUnreachable", err)
	}
	for _, s := range []string{"http://" + addr + "/v1", "llama3", "connection refused"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not mention %q", err, s)
		}
	}
}

func TestNormalizeBaseURL(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		in, want string
		bad      bool
	}{
		"default":           {in: "", want: "https://api.openai.com/v1"},
		"bare host gets v1": {in: "http://127.0.0.1:11434", want: "http://127.0.0.1:11434/v1"},
		"slash gets v1":     {in: "http://127.0.0.1:11434/", want: "http://127.0.0.1:11434/v1"},
		"path kept":         {in: "http://h:8000/openai/v1/", want: "http://h:8000/openai/v1"},
		"not http":          {in: "localhost:11434", bad: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := normalizeBaseURL(tc.in)
			if (err != nil) != tc.bad {
				t.Fatalf("err = %v", err)
			}
			if !tc.bad && got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestRetryAfter(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := map[string]struct {
		header map[string]string
		want   time.Duration
		ok     bool
	}{
		"seconds":      {header: map[string]string{"Retry-After": "3"}, want: 3 * time.Second, ok: true},
		"fraction":     {header: map[string]string{"Retry-After": "0.5"}, want: 500 * time.Millisecond, ok: true},
		"milliseconds": {header: map[string]string{"Retry-After-Ms": "250", "Retry-After": "9"}, want: 250 * time.Millisecond, ok: true},
		"date":         {header: map[string]string{"Retry-After": now.Add(7 * time.Second).Format(http.TimeFormat)}, want: 7 * time.Second, ok: true},
		"past date":    {header: map[string]string{"Retry-After": now.Add(-time.Hour).Format(http.TimeFormat)}, want: 0, ok: true},
		"garbage":      {header: map[string]string{"Retry-After": "soon"}},
		"negative":     {header: map[string]string{"Retry-After": "-1"}},
		"none":         {},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			h := http.Header{}
			for k, v := range tc.header {
				h.Set(k, v)
			}
			got, ok := retryAfter(h, now)
			if got != tc.want || ok != tc.ok {
				t.Errorf("retryAfter = %s, %v; want %s, %v", got, ok, tc.want, tc.ok)
			}
		})
	}
}

// A server that echoes the key in its message: the error hides it.
func TestOpenAIHidesAnEchoedKey(t *testing.T) {
	t.Parallel()
	const key = "sk-THISISASECRETKEY0123456789"
	fake := newFakeOpenAI(t, reply{status: 401, body: `{"error":{"message":"Incorrect API key provided: ` + key + `"}}`})
	_, err := fake.backend(OpenAIConfig{APIKey: key}).Complete(context.Background(), &Request{Messages: []Message{{Role: RoleUser, Content: "hi"}}})
	if !errors.Is(err, ErrAuth) || !strings.Contains(err.Error(), "Incorrect API key provided: [redacted]") || strings.Contains(err.Error(), key[:8]) {
		t.Errorf("err = %v, want ErrAuth with the key hidden", err)
	}
}

// Replies as some servers write them: arguments as a JSON object, null
// content, usage missing, a refusal instead of content.
func TestOpenAILenientReplies(t *testing.T) {
	t.Parallel()
	fake := newFakeOpenAI(t,
		reply{body: `{"choices":[{"message":{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"view_file","arguments":{"path":"a.go"}}}]},"finish_reason":"tool_calls"}]}`},
		reply{body: `{"choices":[{"message":{"role":"assistant","content":"","refusal":"I can't help with that."},"finish_reason":"stop"}],"usage":{"prompt_tokens":5,"completion_tokens":2}}`},
	)
	b := fake.backend(OpenAIConfig{})
	req := &Request{Messages: []Message{{Role: RoleUser, Content: "hi"}}}
	resp, err := b.Complete(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	want := &Response{Message: Message{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "c1", Name: "view_file", Arguments: `{"path":"a.go"}`}}}, FinishReason: "tool_calls"}
	if d := cmp.Diff(want, resp); d != "" {
		t.Errorf("response (-want +got):\n%s", d)
	}
	resp, err = b.Complete(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	want = &Response{Message: Message{Role: RoleAssistant, Content: "I can't help with that."}, FinishReason: "stop", Usage: Usage{Prompt: 5, Completion: 2}}
	if d := cmp.Diff(want, resp); d != "" {
		t.Errorf("response (-want +got):\n%s", d)
	}
}

// A redirect the HTTP client does not follow is not a chat completion.
func TestOpenAINotModified(t *testing.T) {
	t.Parallel()
	fake := newFakeOpenAI(t, reply{status: http.StatusNotModified})
	_, err := fake.backend(OpenAIConfig{}).Complete(context.Background(), &Request{Messages: []Message{{Role: RoleUser, Content: "hi"}}})
	var be *BackendError
	if !errors.Is(err, ErrBadResponse) || !errors.As(err, &be) || be.Status != http.StatusNotModified || fake.count() != 1 {
		t.Errorf("err = %v after %d requests, want ErrBadResponse with status 304 after 1", err, fake.count())
	}
}

// A connection dropped in the middle of a reply's body is retried, then
// reported as unreachable.
func TestOpenAIDroppedReply(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	n := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		n++
		first := n == 1
		mu.Unlock()
		if !first {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, completion("done"))
			return
		}
		w.Header().Set("Content-Length", "1000")
		_, _ = io.WriteString(w, `{"choices": [`)
		w.(http.Flusher).Flush()
		conn, _, _ := w.(http.Hijacker).Hijack()
		_ = conn.Close()
	}))
	t.Cleanup(srv.Close)
	b := NewOpenAI(OpenAIConfig{BaseURL: srv.URL, Model: "m", HTTPClient: srv.Client()})
	resp, err := b.Complete(context.Background(), &Request{Messages: []Message{{Role: RoleUser, Content: "hi"}}})
	if err != nil || resp.Message.Content != "done" {
		t.Fatalf("Complete = %+v, %v; want the retry's answer", resp, err)
	}

	mu.Lock()
	n = 0
	mu.Unlock()
	b = NewOpenAI(OpenAIConfig{BaseURL: srv.URL, Model: "m", HTTPClient: srv.Client(), MaxRetries: -1})
	if _, err := b.Complete(context.Background(), &Request{Messages: []Message{{Role: RoleUser, Content: "hi"}}}); !errors.Is(err, ErrUnreachable) {
		t.Errorf("err = %v, want ErrUnreachable", err)
	}
}

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ramabana/ramabana-mcp/internal/proctest"
)

// fakeModel is an OpenAI-compatible chat completions server on 127.0.0.1
// that answers from a script and records every request it was sent.
type fakeModel struct {
	mu       sync.Mutex
	replies  []string // assistant messages as JSON
	requests []map[string]any
	srv      *httptest.Server
}

func newFakeModel(t *testing.T, replies ...string) *fakeModel {
	f := &fakeModel{replies: replies}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" {
			http.NotFound(w, r)
			return
		}
		var body map[string]any
		b, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(b, &body)
		f.mu.Lock()
		n := len(f.requests)
		f.requests = append(f.requests, body)
		f.mu.Unlock()
		if n >= len(f.replies) {
			http.Error(w, `{"error":{"message":"script exhausted"}}`, http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":"c%d","object":"chat.completion","created":0,"model":"fake","choices":[{"index":0,"message":%s,"finish_reason":"stop"}],"usage":{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15}}`, n, f.replies[n])
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeModel) sent() []map[string]any {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]map[string]any(nil), f.requests...)
}

func toolCall(id, name, args string) string {
	a, _ := json.Marshal(args)
	return fmt.Sprintf(`{"role":"assistant","content":null,"tool_calls":[{"id":%q,"type":"function","function":{"name":%q,"arguments":%s}}]}`, id, name, a)
}

func finalText(text string) string {
	b, _ := json.Marshal(text)
	return fmt.Sprintf(`{"role":"assistant","content":%s}`, b)
}

// toolsSent maps the function tools of one request by name.
func toolsSent(req map[string]any) map[string]map[string]any {
	out := map[string]map[string]any{}
	tools, _ := req["tools"].([]any)
	for _, t := range tools {
		fn, _ := t.(map[string]any)["function"].(map[string]any)
		out[fn["name"].(string)] = fn
	}
	return out
}

func TestAskRunsATurnOverTheCatalog(t *testing.T) {
	t.Parallel()
	model := newFakeModel(t,
		toolCall("call_1", "view_file", `{"path": "pkg/sizes.py"}`),
		finalText("threshold is defined in pkg/sizes.py and subtracts the reserve."),
	)
	s := startStdio(t, project(t), "--model", "fake-model", "--model-url", model.srv.URL)
	ts := tools(t, s.session)
	askTool, ok := ts["ask"]
	if !ok {
		t.Fatal("ask not listed with --model")
	}
	if askTool.Annotations.ReadOnlyHint {
		t.Error("ask is marked read-only")
	}
	res, err := call(t, s.session, "ask", map[string]any{"task": "where is the threshold defined?"})
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError || text(res) != "threshold is defined in pkg/sizes.py and subtracts the reserve." {
		t.Fatalf("ask = %q (isError %v)", text(res), res.IsError)
	}

	reqs := model.sent()
	if len(reqs) != 2 {
		t.Fatalf("the model was sent %d requests, want 2", len(reqs))
	}
	if reqs[0]["model"] != "fake-model" {
		t.Errorf("model = %v", reqs[0]["model"])
	}
	msgs, _ := reqs[0]["messages"].([]any)
	if len(msgs) != 2 || msgs[1].(map[string]any)["content"] != "where is the threshold defined?" {
		t.Errorf("first request's messages = %v, want system + the task", msgs)
	}
	sentTools := toolsSent(reqs[0])
	view, ok := sentTools["view_file"]
	if !ok {
		t.Fatalf("view_file not offered to the model; offered %v", keys(sentTools))
	}
	want := ts["view_file"]
	if want == nil {
		t.Fatalf("view_file not in the client's tools/list: %v", keys(ts))
	}
	if view["description"] != want.Description {
		t.Errorf("the model read another description of view_file than the client")
	}
	gotSchema, _ := json.Marshal(view["parameters"])
	wantSchema, _ := json.Marshal(want.InputSchema)
	if string(gotSchema) != string(wantSchema) {
		t.Errorf("view_file schema sent to the model:\n%s\nwant the catalog's:\n%s", gotSchema, wantSchema)
	}
	if _, ok := sentTools["create_file"]; !ok {
		t.Error("the agent is not offered write tools on a read-only server (it has no approval gate)")
	}
	if _, ok := sentTools["ask"]; ok {
		t.Error("the agent is offered ask itself")
	}
	second, _ := reqs[1]["messages"].([]any)
	last := second[len(second)-1].(map[string]any)
	if last["role"] != "tool" || !strings.Contains(fmt.Sprint(last["content"]), "|RESERVE = 16_384") {
		t.Errorf("second request does not end with view_file's result: %v", last)
	}

	act, err := call(t, s.session, "activity", map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	var viewLine string
	for _, line := range strings.Split(text(act), "\n") {
		if strings.Contains(line, "view_file") {
			viewLine = line
		}
	}
	if !strings.Contains(viewLine, "agent:") {
		t.Errorf("the agent's view_file call is not in the activity feed as the agent's:\n%s", text(act))
	}

	st, err := readResource(t, s.session, "ramabana://status")
	if err != nil || !strings.Contains(st, `"agent"`) || !strings.Contains(st, "fake-model") {
		t.Errorf("status does not show the agent: %v\n%s", err, st)
	}
	// In the status's one naming style, and no zero time for an error
	// that never was.
	var status struct {
		Agent map[string]any `json:"agent"`
	}
	if err := json.Unmarshal([]byte(st), &status); err != nil {
		t.Fatal(err)
	}
	for key := range status.Agent {
		if key != strings.ToLower(key) {
			t.Errorf("status.agent has key %q, not snake_case: %v", key, status.Agent)
		}
	}
	if status.Agent["turns"] != float64(1) || status.Agent["tool_calls"] != float64(1) {
		t.Errorf("status.agent = %v, want one turn with one tool call", status.Agent)
	}
	if _, ok := status.Agent["last_error_at"]; ok {
		t.Errorf("status.agent = %v: a last error time without an error", status.Agent)
	}
}

func TestAskIsLeftOutWithoutModelOrWithDelegateFalse(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{nil, {"--model", "m", "--delegate=false"}} {
		if _, ok := tools(t, startStdio(t, project(t), args...).session)["ask"]; ok {
			t.Errorf("ask listed with %v", args)
		}
	}
}

func TestAskReportsAnUnreachableModelClearly(t *testing.T) {
	t.Parallel()
	s := startStdio(t, project(t), "--model", "m", "--model-url", "http://127.0.0.1:1/v1")
	res, err := call(t, s.session, "ask", map[string]any{"task": "anything"})
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || !strings.Contains(text(res), "connection refused; is the model server running") {
		t.Errorf("ask with no model server = %q, want a clear unreachable error", text(res))
	}
}

func TestAskConnectsToAnUpstreamServer(t *testing.T) {
	t.Parallel()
	upstreamRoot := project(t)
	cfg := t.TempDir()
	conf := map[string]any{"mcpServers": map[string]any{
		"other": map[string]any{
			"command":     binary,
			"args":        []string{"--root", upstreamRoot, "--cfg", t.TempDir(), "--groups", "-code,-git,-memory,-notebook,-shell,-web"},
			"description": "another ramabana over a second project",
			"lazy":        true,
		},
	}}
	b, _ := json.Marshal(conf)
	if err := os.WriteFile(filepath.Join(cfg, "mcp.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	model := newFakeModel(t,
		toolCall("c1", "mcp_connect", `{"id": "other"}`),
		toolCall("c2", "other__view_file", `{"path": "pkg/sizes.py"}`),
		finalText("done"),
	)
	s := startStdio(t, project(t), "--cfg", cfg, "--model", "m", "--model-url", model.srv.URL)
	res, err := call(t, s.session, "ask", map[string]any{"task": "read the other project's sizes"})
	if err != nil || res.IsError || text(res) != "done" {
		t.Fatalf("ask = %v, %v", res, err)
	}
	reqs := model.sent()
	if len(reqs) != 3 {
		t.Fatalf("model got %d requests, want 3", len(reqs))
	}
	system := fmt.Sprint(reqs[0]["messages"].([]any)[0].(map[string]any)["content"])
	if !strings.Contains(system, "<available_mcps>") || !strings.Contains(system, "other") {
		t.Errorf("system prompt lacks the available MCP servers:\n%s", system)
	}
	if _, ok := toolsSent(reqs[0])["other__view_file"]; ok {
		t.Error("upstream tools offered before mcp_connect")
	}
	if _, ok := toolsSent(reqs[1])["other__view_file"]; !ok {
		t.Error("upstream tools not offered after mcp_connect")
	}
	msgs := reqs[2]["messages"].([]any)
	last := msgs[len(msgs)-1].(map[string]any)
	if !strings.Contains(fmt.Sprint(last["content"]), "|RESERVE = 16_384") {
		t.Errorf("the upstream tool's result did not reach the model: %v", last)
	}
	act, err := call(t, s.session, "activity", map[string]any{})
	if err != nil || !strings.Contains(text(act), "other__view_file") {
		t.Errorf("the upstream call is not in the activity feed:\n%s", text(act))
	}
}

// TestAskStepsAreProgressNotifications: through the real binary, every
// step of a turn reaches the client as its own progress notification,
// with strictly increasing progress values.
func TestAskStepsAreProgressNotifications(t *testing.T) {
	t.Parallel()
	model := newFakeModel(t,
		toolCall("call_1", "view_file", `{"path": "pkg/sizes.py"}`),
		finalText("done"),
	)
	s := startStdio(t, project(t), "--model", "m", "--model-url", model.srv.URL, "--max-retries", "2")
	if _, ok := tools(t, s.session)["view_file"]; !ok { // the first listing waits for the plugins
		t.Fatal("view_file not listed")
	}
	params := &mcp.CallToolParams{Name: "ask", Arguments: map[string]any{"task": "read sizes.py"}}
	params.SetProgressToken("ask-1")
	ctx, cancel := context.WithTimeout(context.Background(), proctest.Patience)
	defer cancel()
	res, err := s.session.CallTool(ctx, params)
	if err != nil || res.IsError || text(res) != "done" {
		t.Fatalf("ask = %v, %v", res, err)
	}
	want := []string{"step 1: waiting for the model", "step 1: calling view_file", "step 2: waiting for the model"}
	var got []string
	var last float64
	for len(got) < len(want) {
		select {
		case p := <-s.progress:
			if p.ProgressToken != "ask-1" {
				continue
			}
			if p.Progress <= last {
				t.Errorf("progress %g after %g: not strictly increasing", p.Progress, last)
			}
			last = p.Progress
			got = append(got, p.Message)
		case <-ctx.Done():
			t.Fatalf("progress notifications %q, want %q", got, want)
		}
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("progress (-want +got):\n%s", d)
	}
}

// TestAskReadsSkills: read_skill gives the model the same text as
// skill://{name}, of a skill file and of a plugin's skill tool alike, and
// the skill tool's call is the agent's in the activity feed.
func TestAskReadsSkills(t *testing.T) {
	t.Parallel()
	root := project(t)
	writeSkill(t, filepath.Join(root, ".agents", "skills"), "deploy", "Use when deploying this project.", "# Project deploy\n")
	model := newFakeModel(t,
		toolCall("c1", "read_skill", `{"name": "deploy"}`),
		toolCall("c2", "read_skill", `{"name": "house-style"}`),
		finalText("read both"),
	)
	s := startStdio(t, root, "--plugins", pluginDir(t, "skill"), "--model", "m", "--model-url", model.srv.URL)
	if _, ok := tools(t, s.session)["house_style"]; !ok { // the first listing waits for the plugins
		t.Fatal("house_style not listed")
	}
	res, err := call(t, s.session, "ask", map[string]any{"task": "read the skills"})
	if err != nil || res.IsError || text(res) != "read both" {
		t.Fatalf("ask = %v, %v", res, err)
	}
	reqs := model.sent()
	if len(reqs) != 3 {
		t.Fatalf("the model was sent %d requests, want 3", len(reqs))
	}
	system := fmt.Sprint(reqs[0]["messages"].([]any)[0].(map[string]any)["content"])
	for _, want := range []string{"- deploy: Use when deploying this project.", "- house-style: Use when writing user-facing text."} {
		if !strings.Contains(system, want) {
			t.Errorf("the system prompt does not list %q:\n%s", want, system)
		}
	}
	sent := toolsSent(reqs[0])
	if _, ok := sent["read_skill"]; !ok {
		t.Error("read_skill not offered")
	}
	if _, ok := sent["house_style"]; ok {
		t.Error("the skill tool is offered to the model")
	}
	for i, name := range []string{"deploy", "house-style"} {
		msgs := reqs[i+1]["messages"].([]any)
		got := fmt.Sprint(msgs[len(msgs)-1].(map[string]any)["content"])
		want, err := readResource(t, s.session, "skill://"+name)
		if err != nil || got != want {
			t.Errorf("read_skill(%s) = %q, want skill://%s: %q (%v)", name, got, name, want, err)
		}
	}
	act, err := call(t, s.session, "activity", map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	var agentRead bool
	for _, line := range strings.Split(text(act), "\n") {
		agentRead = agentRead || strings.Contains(line, "house_style") && strings.Contains(line, "agent:")
	}
	if !agentRead {
		t.Errorf("the skill tool's call is not in the activity feed as the agent's:\n%s", text(act))
	}
}

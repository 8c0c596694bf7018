package host

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ramabana/ramabana-mcp/sdk"
	"github.com/ramabana/ramabana-mcp/sdk/sdktest"
)

// An ask turn's tool calls take the host's one call path: its unknown
// tools say why by the agent's policy (write tools are its to call, an
// opted-out group's are not), and its argument errors are in words.
func TestAgentCallSaysWhy(t *testing.T) {
	t.Parallel()
	h, err := New(Config{Roots: []string{t.TempDir()}, Agent: true, Groups: []string{"-git"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.Close() })
	schema := json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"},"mode":{"type":"string","enum":["a","b"]}},"required":["path"],"additionalProperties":false}`)
	ok := func(context.Context, *sdk.Request) (*sdk.Result, error) { return sdk.TextResult("ok"), nil }
	box := sdk.NewToolbox("box", sdk.WithVersion("1"), sdk.WithDescription("tools"))
	box.AddGroup(sdk.GroupSpec{Name: "files"}, sdk.Tool{Spec: sdk.ToolSpec{Name: "create_file", Kind: sdk.KindWrite, InputSchema: schema}, Handler: ok})
	box.AddGroup(sdk.GroupSpec{Name: "git"}, sdk.Tool{Spec: sdk.ToolSpec{Name: "git_log", Kind: sdk.KindRead, InputSchema: schema}, Handler: ok})
	client, desc := sdktest.Connect(t, box, sdk.Host{})
	if err := h.AddGroup(desc.Name, client); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for name, tc := range map[string]struct {
		tool, args string
		want       string // the error, or the result's text
	}{
		"write tool is the agent's": {"create_file", `{"path":"a"}`, "ok"},
		"bad argument":              {"create_file", `{"path":"a","mode":"c"}`, `invalid arguments for create_file: "mode" must be one of "a", "b" (got "c")`},
		"opted out":                 {"git_log", `{"path":"a"}`, `Unknown tool: git_log (its group "git" is opted out with --groups -git; start it without that)`},
		"misspelt":                  {"create_files", `{}`, "Unknown tool: create_files (no tool has that name; did you mean create_file?)"},
	} {
		res, err := h.AgentCall(ctx, tc.tool, json.RawMessage(tc.args), nil)
		got := ""
		switch {
		case errors.Is(err, sdk.ErrUnknownTool):
			got = err.Error()
		case err != nil:
			t.Fatalf("%s: %v", name, err)
		default:
			got = res.Text()
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", name, diff)
		}
	}
	// The client, read-only, may not call the write tool; the agent may.
	if _, err := h.Call(ctx, "create_file", json.RawMessage(`{"path":"a"}`), nil); err == nil ||
		err.Error() != "Unknown tool: create_file (a write tool: this server runs read-only; start it with --write)" {
		t.Errorf("client call of a write tool: %v", err)
	}
}

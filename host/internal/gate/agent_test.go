package gate_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ramabana/ramabana-mcp/host/internal/agent"
	"github.com/ramabana/ramabana-mcp/host/internal/gate"
	"github.com/ramabana/ramabana-mcp/host/internal/pii"
	"github.com/ramabana/ramabana-mcp/host/internal/vault/vaulttest"
	"github.com/ramabana/ramabana-mcp/sdk"
)

// capture is a model that keeps what it was sent.
type capture struct{ got *agent.Request }

func (c *capture) Complete(_ context.Context, req *agent.Request) (*agent.Response, error) {
	c.got = req
	return &agent.Response{Message: agent.Message{Role: agent.RoleAssistant, Content: "done"}}, nil
}

// TestBackend: under --vault, a request to the ask agent's model leaves
// with every value as its placeholder (system prompt, task, tool results,
// tool descriptions and schemas), placeholder-shaped text from outside
// hidden, and the model's own placeholders (its messages and tool calls)
// kept; the agent's request is not changed.
func TestBackend(t *testing.T) {
	t.Parallel()
	v := vaulttest.Open(t)
	g := gate.New(pii.ModeRedact, false, v)
	holder := g.Text(email) // the vault's placeholder for the address
	if !strings.HasPrefix(holder, "⟦email:") {
		t.Fatalf("the vault gave %q for an address", holder)
	}
	req := &agent.Request{
		Model: "m",
		Messages: []agent.Message{
			{Role: agent.RoleSystem, Content: "servers: hostile (write to " + email + ")"},
			{Role: agent.RoleUser, Content: "mail " + email},
			{Role: agent.RoleAssistant, Content: "I will mail " + holder, ToolCalls: []agent.ToolCall{{ID: "1", Name: "view_file", Arguments: `{"path":"` + holder + `.txt"}`}}},
			{Role: agent.RoleTool, ToolCallID: "1", Content: "card " + card + "; the docs write " + holder},
		},
		Tools: []agent.Tool{{Name: "lookup", Description: "ask " + email, InputSchema: json.RawMessage(`{"type":"object","properties":{"to":{"type":"string","default":"` + email + `"}}}`)}},
	}
	before, _ := json.Marshal(req)
	model := &capture{}
	if _, err := g.Backend(model).Complete(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if after, _ := json.Marshal(req); string(after) != string(before) {
		t.Errorf("the agent's request was changed:\n%s", after)
	}
	sent, _ := json.Marshal(model.got)
	for _, value := range []string{email, card, "4111111111111111"} {
		if strings.Contains(string(sent), value) {
			t.Errorf("the model was sent %q:\n%s", value, sent)
		}
	}
	got := model.got.Messages
	if want := "I will mail " + holder; got[2].Content != want {
		t.Errorf("the model's own message = %q, want %q", got[2].Content, want)
	}
	if want := `{"path":"` + holder + `.txt"}`; got[2].ToolCalls[0].Arguments != want {
		t.Errorf("the model's own tool call = %q, want %q", got[2].ToolCalls[0].Arguments, want)
	}
	if strings.Contains(got[3].Content, holder) || !strings.Contains(got[3].Content, "⟦literal:") {
		t.Errorf("placeholder-shaped text in a tool result reached the model as %q", got[3].Content)
	}
	if diff := cmp.Diff("mail "+holder, got[1].Content); diff != "" {
		t.Errorf("the task (-want +got):\n%s", diff)
	}
	if !strings.Contains(model.got.Tools[0].Description, holder) || !strings.Contains(string(model.got.Tools[0].InputSchema), holder) {
		t.Errorf("the tool as sent: %+v", model.got.Tools[0])
	}
}

// TestWithholdAndInward: under refuse without a vault, a read tool's result
// with a finding is withheld whole, an error or a write tool's result is
// not; Inward turns the vault's own placeholders back into values and
// leaves any other text as it is.
func TestWithholdAndInward(t *testing.T) {
	t.Parallel()
	res := sdk.TextResult("contact " + email)
	refuse := gate.New(pii.ModeRefuse, false, nil)
	if w := refuse.Withhold("view_file", true, res); w == nil || !w.IsError || strings.Contains(w.Text(), email) {
		t.Errorf("refuse: %+v, want the result withheld", w)
	}
	if w := refuse.Withhold("create_file", false, res); w != nil {
		t.Errorf("a write tool's result was withheld: %q", w.Text())
	}
	if w := refuse.Withhold("view_file", true, &sdk.Result{IsError: true, Content: res.Content}); w != nil {
		t.Errorf("an error was withheld: %q", w.Text())
	}
	if w := refuse.Withhold("view_file", true, sdk.TextResult("nothing personal")); w != nil {
		t.Errorf("a clean result was withheld: %q", w.Text())
	}
	if w := gate.New(pii.ModeRedact, false, nil).Withhold("view_file", true, res); w != nil {
		t.Errorf("redact withheld a result: %q", w.Text())
	}
	if w := gate.New(pii.ModeRefuse, false, vaulttest.Open(t)).Withhold("view_file", true, res); w != nil {
		t.Errorf("refuse with a vault withheld a result (placeholders instead): %q", w.Text())
	}
	var off *gate.Gate
	if off.On() || off.Text(email) != email || off.Withhold("view_file", true, res) != nil || off.Inward("⟦email:1⟧") != "⟦email:1⟧" {
		t.Error("a nil gate does not pass everything as it is")
	}

	g := gate.New(pii.ModeRedact, false, vaulttest.Open(t))
	holder := g.Text(email)
	if got := g.Inward("write to " + holder + ", not ⟦email:99⟧"); got != "write to "+email+", not ⟦email:99⟧" {
		t.Errorf("Inward = %q", got)
	}
	if got := string(g.InwardJSON(json.RawMessage(`{"to":"` + holder + `"}`))); got != `{"to":"`+email+`"}` {
		t.Errorf("InwardJSON = %q", got)
	}
}

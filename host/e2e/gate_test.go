package e2e

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ramabana/ramabana-mcp/internal/proctest"
)

// The data planted on every channel by the hostile parts of
// TestOutboundGate: internal/testplugin's memory mode (its Planted), its
// upstream server's instructions, the configs, a skill, a file.
const (
	plantedEmail = "mallory.owner@evil-corp.net"
	plantedCard  = "5555 5555 5555 4444"
	planted      = plantedEmail + ", card " + plantedCard
)

// plantedValues are the planted data as a client could find them in the
// bytes it reads.
var plantedValues = []string{plantedEmail, plantedCard, "5555555555554444"}

// TestOutboundGate: a hostile third-party plugin that shadows the bundled
// memory group and claims its privilege, a hostile upstream server, a
// broken one and a lazy one whose failure quotes a path, a skill and a
// file all carry an e-mail address and a card number, on every channel the
// server sends on: tool lists (descriptions, titles, schemas), results
// (text, an embedded resource's blob, structured content), errors,
// progress, the status resource (an upstream's instructions and error, a
// plugin's last error), the skills, mcp_connect's and search's answers,
// and what the ask agent sends its model. Under --pii redact and refuse,
// with and without --vault, no byte the server writes to stdout holds
// them, nor its log, nor any request the agent's model gets; the
// shadowing plugin is never handed a value behind a placeholder. Without
// --pii every channel carries them: the test sees each.
func TestOutboundGate(t *testing.T) {
	t.Parallel()
	cases := map[string][]string{
		"off":          {"--pii", "off"},
		"redact":       {"--pii", "redact"},
		"refuse":       {"--pii", "refuse"},
		"redact+vault": {"--pii", "redact", "--vault"},
		"refuse+vault": {"--pii", "refuse", "--vault"},
	}
	for name, args := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			outboundGate(t, args)
		})
	}
}

// channel is one thing the client got, and what it was.
type channel struct {
	what string
	text string
}

func outboundGate(t *testing.T, args []string) {
	off := args[1] == "off"
	vault := len(args) > 2
	root := project(t)
	if err := os.WriteFile(filepath.Join(root, "owners.txt"), []byte("owner: "+planted+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	writeSkill(t, filepath.Join(root, ".agents", "skills"), "escalate", "Use when paging "+plantedEmail+".", "Page "+planted+".\n")
	plugins := pluginDir(t, "memory")
	cfg := mcpConfig(t, map[string]any{
		"hostile": upstreamServer("hostile", map[string]any{"args": []string{"-mode", "hostile", "-instructions", "Ask " + planted}}),
		"broken":  map[string]any{"command": filepath.Join(t.TempDir(), plantedEmail, "server")},
		"later": map[string]any{"command": filepath.Join(t.TempDir(), plantedEmail, "lazy-server"), "lazy": true,
			"description": "the notes of " + planted},
	})
	model := newFakeModel(t,
		toolCall("call_1", "recall", `{"query": "owners"}`),
		finalText("The owner is on file."),
	)
	spyFile := filepath.Join(t.TempDir(), "spy.jsonl") // what the hostile plugin was handed
	s := startStdioEnv(t, []string{"HOSTILE_SPY=" + spyFile}, root, append([]string{"--plugins", plugins, "--plugin-env", "HOSTILE_SPY",
		"--mcp-config", cfg, "--write", "--model", "fake-model", "--model-url", model.srv.URL}, args...)...)
	ctx, cancel := context.WithTimeout(context.Background(), proctest.Patience)
	defer cancel()

	var got []channel
	add := func(what, text string) { got = append(got, channel{what, text}) }
	res, err := s.session.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var listed strings.Builder
	for _, tool := range res.Tools {
		b, _ := json.Marshal(tool)
		listed.Write(b)
	}
	add("tools/list", listed.String())

	callText := func(name string, a map[string]any) string {
		t.Helper()
		params := &mcp.CallToolParams{Name: name, Arguments: a}
		params.SetProgressToken("gate-" + name)
		r, err := s.session.CallTool(ctx, params)
		if err != nil {
			return "error: " + err.Error()
		}
		b, _ := json.Marshal(r)
		var blobs []string
		for _, c := range r.Content {
			if e, ok := c.(*mcp.EmbeddedResource); ok && len(e.Resource.Blob) > 0 {
				blobs = append(blobs, string(e.Resource.Blob))
			}
		}
		return string(b) + " blobs: " + strings.Join(blobs, " | ")
	}
	recall := callText("recall", map[string]any{"query": "owners"})
	add("a result (text, blob, structured)", recall)
	// The address as the client's model was shown it, for the task it
	// hands ask: the turn's context and post tools (the hostile plugin's)
	// get the task.
	shown := "[REDACTED:email]"
	switch {
	case off:
		shown = plantedEmail
	case vault:
		shown = placeholderRE.FindString(recall)
		if shown == "" {
			t.Fatalf("no placeholder in recall's result: %s", recall)
		}
	}
	add("a tool error", callText("fail_note", map[string]any{}))
	progress := func(tool string) string {
		t.Helper()
		callText(tool, map[string]any{})
		var got []string
		for len(got) < 2 {
			select {
			case p := <-s.progress:
				got = append(got, p.Message)
			case <-ctx.Done():
				t.Fatalf("%s's progress: got %q", tool, got)
			}
		}
		return strings.Join(got, " | ")
	}
	add("a plugin's progress", progress("progress_note"))
	// whois also sends progress just before its result; the host may take
	// the result first and drop them (the call is over), so they are
	// checked with the rest of stdout, not waited for.
	add("an upstream's result (text, blob)", callText("hostile__whois", map[string]any{"name": "x"}))
	add("an upstream's JSON-RPC error", callText("hostile__reject", map[string]any{}))
	add("a file", callText("view_file", map[string]any{"path": "owners.txt"}))
	add("mcp_connect's failure", callText("mcp_connect", map[string]any{"id": "later"}))
	add("search_capabilities", callText("search_capabilities", map[string]any{"query": "ask recall notes owner"}))
	if out := callText("ask", map[string]any{"task": "who owns the notes of " + shown + "?"}); !strings.Contains(out, "The owner is on file.") {
		t.Errorf("ask: %s", out)
	}
	for _, uri := range []string{"ramabana://status", "ramabana://skills", "skill://escalate"} {
		text, err := readResource(t, s.session, uri)
		if err != nil {
			t.Fatalf("%s: %v", uri, err)
		}
		add(uri, text)
	}
	rl, err := s.session.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(rl)
	add("resources/list", string(b))

	// Trust by provenance: the plugin calls itself memory and claims
	// local_data, but it is a third party's: under --vault it is not
	// handed the value behind a placeholder.
	if vault {
		for _, name := range []string{"recall", "remember"} {
			key := map[string]string{"recall": "query", "remember": "text"}[name]
			out := callText(name, map[string]any{key: "note " + shown})
			if !strings.Contains(out, name+" does not take vault placeholders") || strings.Contains(out, "you asked for") || strings.Contains(out, "remembered") {
				t.Errorf("the shadowing plugin's %s given a placeholder: %s", name, out)
			}
		}
	}

	sent, err := json.Marshal(model.sent())
	if err != nil {
		t.Fatal(err)
	}
	add("the agent's model's requests", string(sent))
	s.stop(t)
	add("the log", s.stderr.String())
	spied, err := os.ReadFile(spyFile)
	if err != nil {
		t.Fatal(err)
	}
	add("what the hostile plugin was handed", string(spied))
	for _, stage := range []string{`"tool":"memory_context"`, `"tool":"memory_post"`} {
		if !strings.Contains(string(spied), stage) {
			t.Errorf("the ask turn did not call %s:\n%s", stage, spied)
		}
	}
	stdout := s.stdout.String()

	if off {
		// Without the gate every channel carries the data: each is
		// exercised. (The refusal of mcp_connect quotes the path.)
		for _, c := range got {
			if !holdsPlanted(c.text) {
				t.Errorf("without --pii, %s does not carry the planted data, so this test does not exercise it:\n%s", c.what, c.text)
			}
		}
		return
	}
	for _, c := range got {
		if holdsPlanted(c.text) {
			t.Errorf("under %s, %s holds planted data:\n%s", strings.Join(args, " "), c.what, c.text)
		}
	}
	if holdsPlanted(stdout) {
		t.Errorf("under %s, the server's stdout holds planted data", strings.Join(args, " "))
	}
	switch {
	case args[1] == "refuse" && !vault:
		if !strings.Contains(recall, "the result of recall contains") || !strings.Contains(recall, "withheld") {
			t.Errorf("refuse: recall's result = %s, want it withheld", recall)
		}
	case vault:
		if !placeholderRE.MatchString(recall) {
			t.Errorf("vault: recall's result = %s, want placeholders", recall)
		}
	default:
		if !strings.Contains(recall, "[REDACTED:email]") {
			t.Errorf("redact: recall's result = %s, want the address redacted", recall)
		}
	}
	var st string
	for _, c := range got {
		if c.what == "ramabana://status" {
			st = c.text
		}
	}
	if !strings.Contains(st, `"memory"`) {
		t.Errorf("status does not show the shadowing plugin:\n%s", st)
	}
}

// holdsPlanted says whether text holds any planted value.
func holdsPlanted(text string) bool {
	for _, v := range plantedValues {
		if strings.Contains(text, v) {
			return true
		}
	}
	return false
}

package upstream

import "testing"

func TestAvailableMCPsPrompt(t *testing.T) {
	t.Parallel()
	if got := AvailableMCPsPrompt(nil); got != "" {
		t.Errorf("no servers: %q", got)
	}
	got := AvailableMCPsPrompt([]Server{
		{ID: "everything", Description: "Reference server:\n  every MCP feature."},
		{ID: "files"},
	})
	want := `<available_mcps>
MCP servers you can connect to. Call the mcp_connect tool with one id below to add that server's tools to your toolset for the rest of this conversation, named <id>__<tool_name>. Connect a server only when the task needs it, and only once.
- everything: Reference server: every MCP feature.
- files: (no description)
</available_mcps>`
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

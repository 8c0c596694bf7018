package upstream

import (
	"encoding/json"
	"errors"
	"testing"
)

// The mcp_connect wording is docs/upstream.md's, word for word.
func TestConnectMessages(t *testing.T) {
	t.Parallel()
	tests := map[string]struct{ got, want string }{
		"unknown": {UnknownServerMessage("gitlab", []string{"github", "maven-tools"}), `Error: unknown MCP server id "gitlab". Available: github, maven-tools.`},
		"none":    {UnknownServerMessage("x", nil), `Error: unknown MCP server id "x". Available: none.`},
		"already": {AlreadyConnectedMessage("github"), "Error: server 'github' is already connected; its tools are in your toolset, call them directly."},
		"one":     {ConnectedMessage("github", 1), "Connected to MCP server 'github'. Added 1 tool to your toolset."},
		"many":    {ConnectedMessage("github", 0), "Connected to MCP server 'github'. Added 0 tools to your toolset."},
		"failed":  {ConnectFailedMessage("github", errors.New("boom")), "Error: connecting to MCP server 'github' failed: boom. Work without it, or try once more if the failure looks temporary."},
		"description": {ConnectToolDescription, "Connect to an MCP (Model Context Protocol) server, adding its tools to your toolset for the rest of this conversation.\n\nUsage:\n" +
			"- The list of available server ids and their descriptions is in your system prompt under `<available_mcps>`.\n" +
			"- Call with a single `id` that matches one of those entries. The server's tools become callable immediately after, namespaced as `<id>__<tool_name>` in your toolset.\n" +
			"- On `Error: server '...' is already connected`, do NOT retry — the tools are already in your toolset; call them directly.\n" +
			"- On `Error: unknown MCP server id ...`, pick an id that actually appears in `<available_mcps>`.\n"},
		"block": {AvailableMCPs([]Server{{ID: "everything", Description: "Reference server:\n  every MCP feature."}, {ID: "files"}}),
			"<available_mcps>\n- everything: Reference server: every MCP feature.\n- files: (no description)\n</available_mcps>"},
		"no block": {AvailableMCPs(nil), ""},
	}
	for name, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s:\ngot  %q\nwant %q", name, tt.got, tt.want)
		}
	}
	var schema struct {
		Properties struct {
			ID struct{ Description string } `json:"id"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	if err := json.Unmarshal(ConnectInputSchema("maven-tools"), &schema); err != nil {
		t.Fatal(err)
	}
	if want := "Id of the MCP server to connect to. Must match one of the ids listed under `<available_mcps>` in the system prompt, e.g. \"maven-tools\"."; schema.Properties.ID.Description != want || len(schema.Required) != 1 {
		t.Errorf("schema = %+v", schema)
	}
}

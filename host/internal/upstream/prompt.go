package upstream

import (
	"encoding/json"
	"fmt"
	"strings"
)

// The mcp_connect tool, word for word as docs/upstream.md ("Lazy servers
// and mcp_connect") gives it, for the ask agent and MCP clients alike.

// ConnectToolName is the name of the tool that connects a server.
const ConnectToolName = "mcp_connect"

// ConnectToolDescription is mcp_connect's description. A client's copy
// has the <available_mcps> block appended (ConnectToolDescriptionWith),
// since a client's system prompt is not the server's to write.
const ConnectToolDescription = "Connect to an MCP (Model Context Protocol) server, adding its tools to your toolset for the rest of this conversation.\n\n" +
	"Usage:\n" +
	"- The list of available server ids and their descriptions is in your system prompt under `<available_mcps>`.\n" +
	"- Call with a single `id` that matches one of those entries. The server's tools become callable immediately after, namespaced as `<id>__<tool_name>` in your toolset.\n" +
	"- On `Error: server '...' is already connected`, do NOT retry — the tools are already in your toolset; call them directly.\n" +
	"- On `Error: unknown MCP server id ...`, pick an id that actually appears in `<available_mcps>`.\n"

// ConnectToolDescriptionWith is ConnectToolDescription followed by the
// <available_mcps> block of servers, for a client: there the block is in
// the tool's description.
func ConnectToolDescriptionWith(servers []Server) string {
	return ConnectToolDescription + "\n" + AvailableMCPs(servers)
}

// ConnectInputSchema is mcp_connect's input schema; example is an id the
// description of its one argument gives as an example.
func ConnectInputSchema(example string) json.RawMessage {
	desc, _ := json.Marshal("Id of the MCP server to connect to. Must match one of the ids listed under `<available_mcps>` in the system prompt, e.g. " + quote(example) + ".")
	return json.RawMessage(`{"type":"object","properties":{"id":{"type":"string","description":` + string(desc) + `}},"required":["id"],"additionalProperties":false}`)
}

// UnknownServerMessage answers an id that is not among the available ones.
func UnknownServerMessage(id string, available []string) string {
	list := "none"
	if len(available) > 0 {
		list = strings.Join(available, ", ")
	}
	return fmt.Sprintf("Error: unknown MCP server id %s. Available: %s.", quote(id), list)
}

// AlreadyConnectedMessage answers an id connected before in this
// conversation (agent turn or MCP session).
func AlreadyConnectedMessage(id string) string {
	return fmt.Sprintf("Error: server '%s' is already connected; its tools are in your toolset, call them directly.", id)
}

// ConnectedMessage answers a connect that added n tools.
func ConnectedMessage(id string, n int) string {
	plural := "s"
	if n == 1 {
		plural = ""
	}
	return fmt.Sprintf("Connected to MCP server '%s'. Added %d tool%s to your toolset.", id, n, plural)
}

// ConnectFailedMessage answers a connect that failed.
func ConnectFailedMessage(id string, err error) string {
	return fmt.Sprintf("Error: connecting to MCP server '%s' failed: %v. Work without it, or try once more if the failure looks temporary.", id, err)
}

// quote is Ruby's String#inspect for the ids and examples the messages
// show: a double-quoted string with Go's escapes, which agree with Ruby's
// for everything an id can hold.
func quote(s string) string { return fmt.Sprintf("%q", s) }

// AvailableMCPs renders the <available_mcps> block: one line per server
// with its id and description. It is empty when there are no servers.
func AvailableMCPs(servers []Server) string {
	if len(servers) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("<available_mcps>\n")
	for _, s := range servers {
		desc := strings.Join(strings.Fields(s.Description), " ")
		if desc == "" {
			desc = "(no description)"
		}
		fmt.Fprintf(&b, "- %s: %s\n", s.ID, desc)
	}
	b.WriteString("</available_mcps>")
	return b.String()
}

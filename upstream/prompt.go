package upstream

import (
	"strings"
)

// ConnectToolDescription is the description of an agent's mcp_connect(id)
// tool, matching the errors a [Pool] returns.
const ConnectToolDescription = `Connect to an MCP (Model Context Protocol) server, adding its tools to your toolset for the rest of this conversation.

Usage:
- The available server ids and their descriptions are in your system prompt under <available_mcps>.
- Call with a single id that matches one of those entries. The server's tools become callable immediately after, named <id>__<tool_name>.
- On "MCP server ... is already connected", do NOT retry: its tools are already in your toolset; call them directly.
- On "unknown MCP server ...", pick an id listed under <available_mcps> (the error lists them too).`

// AvailableMCPsPrompt renders the <available_mcps> block of a system prompt:
// one line per server with its id and description, and how to connect. It
// is empty when there are no servers.
func AvailableMCPsPrompt(servers []Server) string {
	if len(servers) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("<available_mcps>\n")
	b.WriteString("MCP servers you can connect to. Call the mcp_connect tool with one id below to add that server's tools to your toolset for the rest of this conversation, named <id>__<tool_name>. Connect a server only when the task needs it, and only once.\n")
	for _, s := range servers {
		desc := strings.Join(strings.Fields(s.Description), " ")
		if desc == "" {
			desc = "(no description)"
		}
		b.WriteString("- ")
		b.WriteString(s.ID)
		b.WriteString(": ")
		b.WriteString(desc)
		b.WriteString("\n")
	}
	b.WriteString("</available_mcps>")
	return b.String()
}

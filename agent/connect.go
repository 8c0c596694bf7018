package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
)

// connectDescription is mcp_connect's docstring, after
// Pikuri::Mcp::Servers::Connect.
const connectDescription = `Connect to an MCP (Model Context Protocol) server, adding its tools to your toolset for the rest of this conversation.

Usage:
- The list of available server ids and their descriptions is in your system prompt under ` + "`<available_mcps>`" + `.
- Call with a single ` + "`id`" + ` that matches one of those entries. The server's tools become callable from your next step on, namespaced as ` + "`<id>__<tool_name>`" + ` in your toolset.
- On ` + "`Error: server '...' is already connected`" + `, do NOT retry — the tools are already in your toolset; call them directly.
- On ` + "`Error: unknown MCP server id ...`" + `, pick an id that actually appears in ` + "`<available_mcps>`" + `.`

func connectTool(servers []Server) Tool {
	example := servers[0].ID
	schema := fmt.Sprintf(`{"type":"object","properties":{"id":{"type":"string","description":%s}},"required":["id"],"additionalProperties":false}`,
		jsonString("Id of the MCP server to connect to. Must match one of the ids listed under `<available_mcps>` in the system prompt, e.g. "+jsonString(example)+"."))
	return Tool{Name: mcpConnectName, Description: connectDescription, InputSchema: json.RawMessage(schema)}
}

// connect runs mcp_connect: errors the model can act on come back as text
// with isError set; err is a fault of the Connector.
func (t *turn) connect(ctx context.Context, args json.RawMessage) (text string, isError bool, err error) {
	ids := make([]string, len(t.servers))
	known := false
	var a struct {
		ID string `json:"id"`
	}
	_ = json.Unmarshal(args, &a)
	for i, s := range t.servers {
		ids[i] = s.ID
		known = known || s.ID == a.ID
	}
	available := strings.Join(ids, ", ")
	switch {
	case a.ID == "":
		return fmt.Sprintf(`Error: mcp_connect needs {"id": "<server id>"}. Available: %s.`, available), true, nil
	case !known:
		return fmt.Sprintf("Error: unknown MCP server id %q. Available: %s.", a.ID, available), true, nil
	case t.connected[a.ID]:
		return fmt.Sprintf("Error: server '%s' is already connected; its tools are in your toolset, call them directly.", a.ID), true, nil
	}
	tools, err := t.conn.Connect(ctx, a.ID)
	if err != nil {
		if ctx.Err() != nil {
			return "", true, ctx.Err()
		}
		return fmt.Sprintf("Error: connecting to MCP server '%s' failed: %v. Work without it, or try once more if the failure looks temporary.", a.ID, err), true, nil
	}
	t.connected[a.ID] = true
	prefix := a.ID + "__"
	var added []string
	for _, tool := range tools {
		if !strings.HasPrefix(tool.Name, prefix) {
			tool.Name = prefix + tool.Name
		}
		// A name the catalog already has (the host may mount the same
		// upstream server) stays routed to the catalog: callable either way.
		t.add(tool, routeUpstream)
		added = append(added, tool.Name)
	}
	plural := "s"
	if len(added) == 1 {
		plural = ""
	}
	text = fmt.Sprintf("Connected to MCP server '%s'. Added %d tool%s to your toolset", a.ID, len(added), plural)
	if len(added) > 0 {
		text += ": " + strings.Join(added, ", ")
	}
	return text + ".", false, nil
}

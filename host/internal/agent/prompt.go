package agent

import (
	"fmt"

	"github.com/ramabana/ramabana-mcp/host/internal/upstream"
)

// DefaultSystemPrompt is the system prompt of an agent whose Config.System
// is empty.
func DefaultSystemPrompt(maxSteps int) string {
	return fmt.Sprintf(`You are a coding assistant. Someone hands you one task about the folders this server serves, and you carry it out with the tools you are given: they read, search and outline files, and may also edit files, run commands, use git or reach the web. Each tool's description says exactly what it takes and returns; follow it.

How to work:
- Call tools to find out what you need instead of guessing. Read a file before you change it, and check what you changed.
- Prefer small, precise calls (a path, a line range, a narrow search) over large ones: long results are trimmed.
- A tool result that starts with "Error:" tells you what went wrong and usually what to do instead; adjust and try again rather than repeating the same call.
- You have at most %d steps (replies to this conversation), so do not wander.

When the task is done, or you are sure it cannot be done, reply with no tool call at all. That reply is your final answer and is passed on verbatim to whoever asked, who sees nothing else of this conversation: make it complete and self-contained. State what you found or changed (with file paths and line numbers), and anything you could not do and why.`, maxSteps)
}

// mcpPrompt is appended to the system prompt when upstream servers can be
// connected.
func mcpPrompt(servers []Server) string {
	list := make([]upstream.Server, len(servers))
	for i, s := range servers {
		list[i] = upstream.Server{ID: s.ID, Description: s.Description}
	}
	return "\n\nMore tools are available from the MCP servers listed below. To use one, call mcp_connect with its id; its tools are then added to your toolset as <id>__<tool_name>. Connect only to what the task needs.\n\n" + upstream.AvailableMCPs(list)
}

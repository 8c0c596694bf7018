package mcpserver

import (
	"strings"

	"github.com/ramabana/ramabana-mcp/sdk"

	"github.com/ramabana/ramabana-mcp/host/internal/hub"
)

// Instructions is the part of the instructions every server sends on
// initialize. It tells the client's model how to read and edit through
// these tools.
const Instructions = `Ramabana serves the tools of a coding assistant over the folders it was started on.

Reading: view_file returns one line per file line as "lineno|hash|content": the line number, a short hash of that line's content, then the content. Page long files with start and limit; when a page is cut, the last line says where to continue. list_files lists a folder (gitignore-aware) with an optional glob.

Editing (only when the server runs with --write): replace_text replaces one unique occurrence of a text; add surrounding lines when it reports several matches. create_file writes a new file. With the exhash group, edit_file edits by "lineno|hash" anchors taken from view_file; if the file changed since you read it, the whole edit is rejected and the current lines are returned: re-read them and retry.

Paths are relative to the first served folder, or absolute inside a served folder. Tools that are not listed are not available on this server; each tool's annotations say whether it only reads, and _meta.mcp_server.task says its agent task.`

// instructions are what this server sends on initialize: Instructions,
// then a line for each of what the model would not otherwise know is
// there: the skills when there are any, the status resource, upstream
// servers' tools, resources and prompts, ask when it is mounted, and
// capability mode's two tools.
func instructions(h *hub.Host, searchOnly bool) string {
	var b strings.Builder
	b.WriteString(Instructions)
	if len(h.Skills().List()) > 0 {
		b.WriteString("\n\nSkills: the resource " + SkillsURI + " lists this project's skills, one line each saying when it applies; read skill://{name} before work one covers.")
	}
	// The bundled lsp group, unless opted out.
	if ok, _ := h.Policy().GroupMounted("lsp", sdk.ModeDefault); ok && !searchOnly {
		b.WriteString("\n\nCode navigation: find_references, find_definition, symbol_info and diagnostics answer from the project's language servers, as the compiler sees the code (search_code and find_symbol match names as text); rename_symbol renames a symbol everywhere it is referenced.")
	}
	b.WriteString("\n\nThe resource " + StatusURI + " says what is served: the folders, the groups and their tools, plugin and upstream server health.")
	if h.EagerUpstreams() || len(h.LazyUpstreams()) > 0 {
		b.WriteString(" Other MCP servers are served through this one: their tools are named <id>__<tool>, their resources are under mcp://<id>/ and their prompts are <id>__<prompt>.")
	}
	if h.AskServed() {
		b.WriteString("\n\nask(task) hands a whole task to this server's own agent, which works through these tools and answers when done: use it to delegate a multi-step job.")
	}
	if searchOnly {
		b.WriteString("\n\nOnly " + hub.SearchTool + " and " + InvokeTool + " (and ask, when there) are listed: find a tool with " + hub.SearchTool + ", then call it by name with " + InvokeTool + ".")
	}
	return b.String()
}

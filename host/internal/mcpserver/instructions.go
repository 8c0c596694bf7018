package mcpserver

// Instructions is sent to the client on initialize. It tells the client's
// model how to read and edit through these tools.
const Instructions = `Ramabana serves the tools of a coding assistant over the folders it was started on.

Reading: view_file returns one line per file line as "lineno|hash|content": the line number, a short hash of that line's content, then the content. Page long files with start and limit; when a page is cut, the last line says where to continue. list_files lists a folder (gitignore-aware) with an optional glob.

Editing (only when the server runs with --write): replace_text replaces one unique occurrence of a text; add surrounding lines when it reports several matches. create_file writes a new file. With the exhash group, edit_file edits by "lineno|hash" anchors taken from view_file; if the file changed since you read it, the whole edit is rejected and the current lines are returned: re-read them and retry.

Paths are relative to the first served folder, or absolute inside a served folder. Tools that are not listed are not available on this server; each tool's annotations say whether it only reads, and _meta.mcp_server.task says its agent task.`

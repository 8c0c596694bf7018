// Package upstream connects to the MCP servers listed in mcpServers config
// files and re-exports their tools under namespaced names.
//
// Config files are read with [Load], which never fails as a whole: each
// problem names its file and key, and the other servers load. A [Server]
// is reached with [Connect], which starts a stdio command (in a process
// group of its own, with a parent-death signal, so that it dies with the
// host) or opens a streamable HTTP or SSE session
// with the go-sdk client. [Conn.Tools] walks every page of tools/list in
// upstream order ("" is a cursor; only an absent one ends the walk) and
// fails with a typed [*ToolsListError] when the server's pagination is
// broken; [Conn.Call] calls one tool, passing progress and cancellation
// through.
//
// A [Link] keeps one server connected for the host: it connects on first
// use, bounds connects and calls by their timeouts, lists the tools again
// on notifications/tools/list_changed, and reconnects on the next use
// after the connection was lost. A [Pool] is one conversation's activation
// set for mcp_connect (an ask turn's or an MCP session's): it connects
// servers on demand, refuses unknown and duplicate ids, and shares nothing
// with any other Pool. prompt.go holds mcp_connect's wording, word for
// word as docs/upstream.md gives it.
//
// Upstream tools are named <id>__<tool> ([Namespace], [SplitName]); a name
// over [MaxName] characters becomes a readable prefix and a stable hash.
//
//	cfg, problems := upstream.Load([]upstream.File{{Path: "mcp.json"}})
//	link := upstream.NewLink(server, upstream.ConnectOptions{Name: "ramabana-mcp"}, nil)
//	defer link.Close()
//	tools, err := link.Connect(ctx)
//	res, err := link.Call(ctx, "files__read_file", json.RawMessage(`{"path":"a.txt"}`), nil)
package upstream

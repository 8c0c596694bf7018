// Package upstream connects to the MCP servers listed in an mcpServers
// config file and re-exports their tools under namespaced names.
//
// A config is loaded with [LoadConfig]; each [Server] is reached with
// [Connect], which starts a stdio command or opens a streamable HTTP or SSE
// session with the go-sdk client. [Conn.Tools] walks every page of
// tools/list in upstream order and fails with a [*ToolsListError] when the
// server's pagination is broken; [Conn.Call] calls one tool and converts the
// result to an [sdk.Result].
//
// Upstream tools are named <id>__<tool> ([Namespace], [SplitName]); a name
// over [MaxName] characters becomes a readable prefix and a stable hash. A
// [Pool] is one agent's activation set for mcp_connect: it connects servers
// on demand, refuses unknown and duplicate ids with exact messages, and
// shares nothing with any other Pool. [AvailableMCPsPrompt] renders the
// <available_mcps> block an agent's system prompt lists the servers in.
//
//	cfg, err := upstream.LoadConfig(path)
//	pool := upstream.NewPool(cfg, upstream.ConnectOptions{Name: "ramabana-mcp"})
//	defer pool.Close()
//	tools, err := pool.Connect(ctx, "files")
//	res, err := pool.Call(ctx, "files__read_file", json.RawMessage(`{"path":"a.txt"}`))
package upstream

// Command ramabana-plugin-docs is a plugin with a tool of every agent task:
// the example set of docs/agent-tasks.md (policies, ticket, search,
// grounded, audit, style, ping). Build it as ramabana-plugin-docs in a
// plugin dir:
//
//	go build -o ~/.config/ramabana/plugins/ramabana-plugin-docs ./examples/tasks-plugin
//
// An MCP client then sees each tool's task in _meta.mcp_server and
// _meta.fastmcp.tags, and picks a task's tools with tasks.ToolsForTask.
package main

import "github.com/ramabana/ramabana-mcp/sdk"

func main() { sdk.Serve(newDocs()) }

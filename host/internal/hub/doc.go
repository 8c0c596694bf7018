// Package hub is the hub of the server: it starts the plugins (package
// supervise, plugins.go) and registers their tools in one catalog (package
// catalog), reloads them when their binaries change (reload.go), runs every
// call along one path (call.go), and knows the skills and the status
// (resources.go). Package mcpserver exports it over MCP, and package
// transport carries that server to clients; subscribers learn of changes
// of the tools, the status and the skills through OnChange (watch.go).
//
// Every call takes one path: MCP client or agent → catalog entry → policy →
// schema validation → activity feed → the entry's source (a plugin process,
// an upstream server or an in-process group) → result, which leaves the
// server through the outbound gate (package gate). A
// plugin that dies is relaunched on the next call to it; the call that was
// in flight returns a tool error naming the plugin.
//
// The hub never sees generated gRPC code: it talks to plugins through
// [sdk.Group].
package hub

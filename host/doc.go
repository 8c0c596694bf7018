// Package host discovers and launches ramabana plugin processes, builds one
// catalog of their tools, applies the serving policy, and exports the
// mounted tools over MCP.
//
// Every call takes one path: MCP client → catalog entry → policy → schema
// validation → the entry's source (a plugin process) → result. A plugin
// that dies is relaunched on the next call to it; the call that was in
// flight returns a tool error naming the plugin.
//
// The host never sees generated gRPC code: it talks to plugins through
// [sdk.Group].
package host

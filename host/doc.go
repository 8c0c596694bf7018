// Package host is the hub of the server: it starts the plugins (package
// supervise) and registers their tools in one catalog (package catalog),
// runs every call along one path, and exports the mounted tools, skills and
// status over MCP. Transports carry the exported server (package
// transport).
//
// Every call takes one path: MCP client or agent → catalog entry → policy →
// schema validation → activity feed → the entry's source (a plugin process,
// an upstream server or an in-process group) → PII filter → result. A
// plugin that dies is relaunched on the next call to it; the call that was
// in flight returns a tool error naming the plugin.
//
// The host never sees generated gRPC code: it talks to plugins through
// [sdk.Group].
package host

// Package transport serves an MCP server to its clients: over stdio, with
// every frame checked before the SDK sees it (size, depth, JSON-RPC shape,
// ids), and over streamable HTTP and SSE, with bearer-token auth and an
// Origin check against DNS rebinding. Streamable HTTP streams are
// resumable from a bounded store of their events (EventStore). It knows
// nothing of plugins or the catalog: it carries an *mcp.Server.
package transport

// Package transport serves an MCP server to its clients: over stdio, with
// every frame checked before the SDK sees it (size, depth, JSON-RPC shape,
// ids), and over streamable HTTP and SSE, with bearer-token auth.
// Streamable HTTP streams are resumable from a bounded store of their
// events (EventStore), or, in stateless mode, not kept at all, so that
// replicas can share a load balancer. The HTTP listener also answers
// probes (/healthz, /readyz) without the token, and metrics and profiles
// behind it. It knows nothing of plugins or the catalog: it carries an
// *mcp.Server, and readiness is a function it is given.
//
// Every path of the HTTP listener, the probes included, goes through two
// checks first, token or not (HTTPHandler): the Host check against DNS
// rebinding (a request that reached a loopback address must name a
// loopback host: localhost, 127.0.0.1 or [::1]) and the Origin check
// against other sites' pages. Both refuse with 403.
//
// The HTTP listener holds against idle and slow clients (HTTPOptions):
// at most DefaultMaxConns connections, where a new one closes the one that
// has waited longest for a request, so that idle connections never keep a
// client out (503 only when every one is busy); at most
// DefaultMaxSessions live sessions (503 with Retry-After beyond); a
// request must arrive within DefaultReadTimeout, each write of a response
// complete within DefaultWriteTimeout (event streams last as long as they
// like), and a keep-alive connection idle for DefaultIdleTimeout is
// closed.
package transport

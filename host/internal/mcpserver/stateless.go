package mcpserver

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ramabana/ramabana-mcp/host/internal/upstream"
)

// Under --stateless each request is answered in a session of its own that
// ends with it, and the next request of the same client may reach another
// replica. What needs a session to last is refused, in words a model or a
// user can act on:
//
//   - mcp_connect, and so the lazy upstream servers' tools: an activation
//     would last one request. An eager server's tools are every client's.
//   - resources/subscribe of protocols before 2026-07-28: the subscription
//     would end with its request. A client of protocol 2026-07-28 or later
//     subscribes on a subscriptions/listen stream instead, which lasts as
//     long as the client keeps it open, on the replica it reached: it gets
//     that replica's tools/list_changed, resources/list_changed and
//     resources/updated.
//
// The SDK itself refuses the rest: a server-initiated request (sampling,
// elicitation, roots; this server makes none), and GET and DELETE on /mcp
// (no standalone stream, nothing to resume).

// statelessWhy is why a call of the tool is refused under --stateless, or
// "" when it is not for that reason.
func (t *tools) statelessWhy(name string) string {
	lazy := t.host.LazyUpstreams()
	if name == upstream.ConnectToolName {
		if len(lazy) == 0 {
			return ""
		}
		return fmt.Sprintf("%s is not served with --stateless: a server it connects would be this request's only, as each request may reach another replica; "+
			`serve its tools to every client by removing "lazy": true from the server's entry in the MCP config`, upstream.ConnectToolName)
	}
	id, _, ok := upstream.SplitName(name)
	if !ok {
		return ""
	}
	for _, s := range lazy {
		if s.ID == id {
			return fmt.Sprintf(`MCP server %q is lazy, and lazy servers are not served with --stateless (%s needs a session that lasts); `+
				`serve its tools to every client by removing "lazy": true from its entry in the MCP config`, id, upstream.ConnectToolName)
		}
	}
	return ""
}

// refuseSubscribe refuses resources/subscribe under --stateless. The code
// is invalid request: the SDK writes its own words over a method-not-found
// error's.
func refuseSubscribe(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method == "resources/subscribe" {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "resources/subscribe is not served with --stateless: a subscription would end with its request, " +
				"as each request may reach another replica; read the resource again when you need it"}
		}
		return next(ctx, method, req)
	}
}

package mcpserver

import (
	"context"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ramabana/ramabana-mcp/host/internal/hub"
	"github.com/ramabana/ramabana-mcp/host/internal/upstream"
	"github.com/ramabana/ramabana-mcp/sdk"
)

// refuseUnknown answers a call of a tool the server does not have with
// why it is absent (hub.UnknownTool): left out by a flag, denied by the
// config, not connected, or no such tool and the nearest name. It is
// the SDK's unknown-tool error, invalid params (-32602) as the spec has
// it, in words.
func (t *tools) refuseUnknown(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method == "tools/call" {
			if call, ok := req.GetParams().(*mcp.CallToolParamsRaw); ok && !t.has(call.Name) {
				return nil, t.unknownTool(call.Name)
			}
		}
		return next(ctx, method, req)
	}
}

// has says whether the server has the tool.
func (t *tools) has(name string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.hasLocked(name)
}

// hasLocked is has with t.mu held.
func (t *tools) hasLocked(name string) bool { return t.exported[name] != nil || t.own[name] }

// unknownTool is the protocol error for a tool the session lacks: invalid
// params, with the reason in this session's terms: the host's
// (Host.UnknownTool), its mcp_connect activations' for the servers it
// connected (UpstreamSession.UnknownTool), capability mode's, which offers
// no mcp_connect (Host.UnknownToolNoConnect); or when the host would let
// the client call the tool (capability mode lists it not), how to.
func (t *tools) unknownTool(name string) error {
	t.mu.Lock()
	session := t.session
	t.mu.Unlock()
	var err error
	switch {
	case t.searchOnly:
		err = t.host.UnknownToolNoConnect(name)
	case session != nil:
		err = session.UnknownTool(name)
	default:
		err = t.host.UnknownTool(name, false)
	}
	var unknown *sdk.UnknownToolError
	if errors.As(err, &unknown) && unknown.Why == "" && name == upstream.ConnectToolName && session == nil {
		unknown.Why = hub.ConnectNotOffered
	}
	if errors.As(err, &unknown) && unknown.Why == "" && t.searchOnly {
		unknown.Why = fmt.Sprintf("this server lists only %s, %s and ask: call it with %s", hub.SearchTool, InvokeTool, InvokeTool)
	}
	if errors.As(err, &unknown) && t.stateless {
		if why := t.statelessWhy(unknown.Tool); why != "" {
			unknown.Why = why
		}
	}
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: err.Error()}
}

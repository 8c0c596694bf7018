package mcpserver

import (
	"context"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ramabana/ramabana-mcp/host"
	"github.com/ramabana/ramabana-mcp/sdk"
)

// refuseUnknown answers a call of a tool the server does not have with
// why it is absent (host.UnknownTool): left out by a flag, denied by the
// config, not connected, or no such tool and the nearest name. It is
// the SDK's unknown-tool error, invalid params (-32602) as the spec has
// it, in words.
func (t *tools) refuseUnknown(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method == "tools/call" {
			if call, ok := req.GetParams().(*mcp.CallToolParamsRaw); ok && !t.has(call.Name) {
				return nil, t.unknownTool(t.host.UnknownTool(call.Name, false))
			}
		}
		return next(ctx, method, req)
	}
}

// has says whether the server has the tool.
func (t *tools) has(name string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.exported[name] != nil || t.own[name]
}

// unknownTool is the protocol error for an unknown-tool error of the
// host's: invalid params, with the host's reason, or when the host would
// let the client call the tool (capability mode lists it not), how to.
func (t *tools) unknownTool(err error) error {
	var unknown *sdk.UnknownToolError
	if errors.As(err, &unknown) && unknown.Why == "" && t.searchOnly {
		unknown.Why = fmt.Sprintf("this server lists only %s, %s and ask: call it with %s", host.SearchTool, InvokeTool, InvokeTool)
	}
	if errors.As(err, &unknown) && t.stateless {
		if why := t.statelessWhy(unknown.Tool); why != "" {
			unknown.Why = why
		}
	}
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: err.Error()}
}

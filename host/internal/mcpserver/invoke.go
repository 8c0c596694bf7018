package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ramabana/ramabana-mcp/host/internal/hub"
	"github.com/ramabana/ramabana-mcp/tasks"
)

// InvokeTool is capability mode's one way to call a tool.
const InvokeTool = "invoke_tool"

// addInvoke adds invoke_tool: a call of any tool the session may call, by
// name, through the host's one call path, so that the policy, argument
// validation, the PII filter, the activity feed and the unknown-tool
// error are exactly a direct call's.
func addInvoke(s *mcp.Server, t *tools) {
	s.AddTool(&mcp.Tool{
		Name:  InvokeTool,
		Title: "Invoke a tool",
		Description: fmt.Sprintf("Call a tool that %s found, by its name, with its arguments: a JSON object that matches the tool's input schema as the search gave it. "+
			"The result is the tool's own.", hub.SearchTool),
		InputSchema: json.RawMessage(`{"type":"object","properties":{` +
			`"name":{"type":"string","description":"the tool's name, exactly as search_capabilities gave it"},` +
			`"arguments":{"type":"object","description":"the tool's arguments, matching its input schema"}},` +
			`"required":["name"],"additionalProperties":false}`),
		Annotations: &mcp.ToolAnnotations{Title: "Invoke a tool", DestructiveHint: ptr(true), OpenWorldHint: ptr(true)},
		Meta:        tasks.Info{Task: tasks.Completion}.Meta(),
	}, t.invoke)
	t.own[InvokeTool] = true
}

// invoke runs invoke_tool.
func (t *tools) invoke(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var args struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	if err := json.Unmarshal(req.Params.Arguments, &args); err != nil {
		return errorText(fmt.Sprintf("invalid arguments for %s: %v", InvokeTool, err)), nil
	}
	if args.Name == InvokeTool {
		return errorText("invoke_tool cannot invoke itself: give the name of a tool search_capabilities found"), nil
	}
	inner := *req
	params := *req.Params
	params.Name, params.Arguments = args.Name, args.Arguments
	inner.Params = &params
	return t.handler(args.Name)(ctx, &inner)
}

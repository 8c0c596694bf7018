package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ramabana/ramabana-mcp/host/internal/catalog"
	"github.com/ramabana/ramabana-mcp/host/internal/hub"
	"github.com/ramabana/ramabana-mcp/tasks"
)

// InvokeTool is capability mode's one way to call a tool.
const InvokeTool = "invoke_tool"

// invokeTool is invoke_tool: a call of any tool the session may call, by
// name, through the host's one call path, so that the policy, argument
// validation, the PII filter, the activity feed and the unknown-tool
// error are exactly a direct call's. Its annotations are ann
// (invokeAnnotations).
func invokeTool(ann *mcp.ToolAnnotations) *mcp.Tool {
	return &mcp.Tool{
		Name:  InvokeTool,
		Title: "Invoke a tool",
		Description: fmt.Sprintf("Call a tool that %s found, by its name, with its arguments: a JSON object that matches the tool's input schema as the search gave it. "+
			"The result is the tool's own.", hub.SearchTool),
		InputSchema: json.RawMessage(`{"type":"object","properties":{` +
			`"name":{"type":"string","description":"the tool's name, exactly as search_capabilities gave it"},` +
			`"arguments":{"type":"object","description":"the tool's arguments, matching its input schema"}},` +
			`"required":["name"],"additionalProperties":false}`),
		Annotations: ann,
		Meta:        tasks.Info{Task: tasks.Completion}.Meta(),
	}
}

// invokeAnnotations are invoke_tool's hints when it can reach the tools
// reach: read-only when each of them is (a client that approves read-only
// tools by themselves, as codex exec does, then lets it run), destructive
// when any of them is, open-world when any of them is. What it reaches
// changes as plugins and servers come and go; sync adds it again then,
// and the client is told the list changed.
func invokeAnnotations(reach []*catalog.Entry) *mcp.ToolAnnotations {
	a := &mcp.ToolAnnotations{Title: "Invoke a tool", ReadOnlyHint: true, DestructiveHint: ptr(false), OpenWorldHint: ptr(false)}
	for _, e := range reach {
		h := e.Hints()
		a.ReadOnlyHint = a.ReadOnlyHint && h.ReadOnly
		*a.DestructiveHint = *a.DestructiveHint || h.Destructive
		*a.OpenWorldHint = *a.OpenWorldHint || h.OpenWorld
	}
	if a.ReadOnlyHint {
		a.DestructiveHint = nil // a hint of tools that change things
	}
	return a
}

// sameAnnotations reports whether a and b say the same.
func sameAnnotations(a, b *mcp.ToolAnnotations) bool {
	if a == nil || b == nil {
		return a == b
	}
	same := func(x, y *bool) bool { return (x == nil) == (y == nil) && (x == nil || *x == *y) }
	return a.Title == b.Title && a.ReadOnlyHint == b.ReadOnlyHint && a.IdempotentHint == b.IdempotentHint &&
		same(a.DestructiveHint, b.DestructiveHint) && same(a.OpenWorldHint, b.OpenWorldHint)
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

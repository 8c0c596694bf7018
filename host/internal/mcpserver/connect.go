package mcpserver

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ramabana/ramabana-mcp/host/internal/hub"
	"github.com/ramabana/ramabana-mcp/host/internal/upstream"
	"github.com/ramabana/ramabana-mcp/tasks"
)

// addConnect adds mcp_connect when the config has lazy upstream servers:
// connecting one adds its tools to this session only, each session owning
// its activation set as each ask turn does (002). Its answers are 002's,
// word for word.
func addConnect(s *mcp.Server, t *tools) {
	servers := t.host.LazyUpstreams()
	if len(servers) == 0 {
		return
	}
	s.AddTool(&mcp.Tool{
		Name:        upstream.ConnectToolName,
		Title:       "Connect an MCP server",
		Description: upstream.ConnectToolDescriptionWith(servers),
		InputSchema: upstream.ConnectInputSchema(servers[0].ID),
		Annotations: &mcp.ToolAnnotations{
			Title:           "Connect an MCP server",
			DestructiveHint: ptr(false),
			OpenWorldHint:   ptr(true),
		},
		Meta: tasks.Info{Task: tasks.Completion}.Meta(),
	}, t.connect)
	t.own[upstream.ConnectToolName] = true
}

func ptr[T any](v T) *T { return &v }

// connect runs mcp_connect for the session.
func (t *tools) connect(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var args struct {
		ID string `json:"id"`
	}
	_ = json.Unmarshal(req.Params.Arguments, &args) // the schema was checked
	t.mu.Lock()
	if t.ended {
		t.mu.Unlock()
		return nil, errors.New("the session has ended")
	}
	if t.session == nil {
		t.session = t.host.NewUpstreamSession(false)
	}
	session := t.session
	t.mu.Unlock()

	added, err := session.Connect(hub.WithActivity(ctx, t.activity), args.ID)
	var unknown *upstream.UnknownServerError
	switch {
	case errors.As(err, &unknown):
		return errorText(upstream.UnknownServerMessage(args.ID, unknown.Available)), nil
	case errors.Is(err, upstream.ErrAlreadyConnected):
		return errorText(upstream.AlreadyConnectedMessage(args.ID)), nil
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case err != nil:
		return errorText(upstream.ConnectFailedMessage(args.ID, err)), nil
	}
	for _, e := range added {
		name := e.Spec.Name
		if t.add(e, t.handle(name, session.Call)) {
			t.mu.Lock()
			t.own[name] = true
			t.mu.Unlock()
		}
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: upstream.ConnectedMessage(args.ID, len(added))}}}, nil
}

func errorText(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}

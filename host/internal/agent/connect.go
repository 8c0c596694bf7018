package agent

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/ramabana/ramabana-mcp/host/internal/upstream"
)

// connectTool is mcp_connect as docs/upstream.md words it (package
// upstream is the single home of that wording).
func connectTool(servers []Server) Tool {
	return Tool{Name: mcpConnectName, Description: upstream.ConnectToolDescription, InputSchema: upstream.ConnectInputSchema(servers[0].ID)}
}

// connect runs mcp_connect: errors the model can act on come back as text
// with isError set; err is a fault of the Connector.
func (t *turn) connect(ctx context.Context, args json.RawMessage) (text string, isError bool, err error) {
	ids := make([]string, len(t.servers))
	known := false
	var a struct {
		ID string `json:"id"`
	}
	_ = json.Unmarshal(args, &a)
	for i, s := range t.servers {
		ids[i] = s.ID
		known = known || s.ID == a.ID
	}
	switch {
	case !known:
		return upstream.UnknownServerMessage(a.ID, ids), true, nil
	case t.connected[a.ID]:
		return upstream.AlreadyConnectedMessage(a.ID), true, nil
	}
	tools, err := t.conn.Connect(ctx, a.ID)
	if err != nil {
		if ctx.Err() != nil {
			return "", true, ctx.Err()
		}
		return upstream.ConnectFailedMessage(a.ID, err), true, nil
	}
	t.connected[a.ID] = true
	prefix := a.ID + "__"
	for _, tool := range tools {
		if !strings.HasPrefix(tool.Name, prefix) {
			tool.Name = prefix + tool.Name
		}
		// A name the catalog already has (the host may mount the same
		// upstream server) stays routed to the catalog: callable either way.
		t.sort(tool, routeUpstream)
	}
	return upstream.ConnectedMessage(a.ID, len(tools)), false, nil
}

package hub

import (
	"context"
	"errors"

	"github.com/ramabana/ramabana-mcp/host/internal/catalog"
	"github.com/ramabana/ramabana-mcp/host/internal/upstream"
	"github.com/ramabana/ramabana-mcp/sdk"
)

// connectSource is the catalog source of mcp_connect.
const connectSource = "connect"

type connectArgs struct {
	ID string `json:"id"`
}

// registerConnect puts mcp_connect in the catalog when the config has lazy
// upstream servers: an in-process tool of the search group, called through
// the one call path like any other. Connecting a server adds its tools to
// the caller's conversation only: the UpstreamSession its context carries
// (WithUpstreamSession), which an MCP session owns, each with its own
// activation set as each ask turn has (docs/upstream.md). The ask agent
// connects with an mcp_connect of its own, in its turn, and is not
// offered this one.
func (h *Host) registerConnect() error {
	servers := h.LazyUpstreams()
	if len(servers) == 0 {
		return nil
	}
	closed := false
	box := sdk.NewToolbox(connectSource, sdk.WithVersion("1"), sdk.WithDescription("connects lazy upstream MCP servers"))
	box.AddGroup(sdk.GroupSpec{Name: SearchGroup, Description: "Find and reach every tool: search_capabilities, and mcp_connect for lazy MCP servers."},
		sdk.Tool{
			Spec: sdk.ToolSpec{
				Name: upstream.ConnectToolName, Title: "Connect an MCP server",
				Description: upstream.ConnectToolDescriptionWith(servers),
				InputSchema: upstream.ConnectInputSchema(servers[0].ID),
				// It starts a server the user configured; the tools it
				// adds carry their own hints.
				Kind: sdk.KindAct, Annotations: sdk.Annotations{OpenWorld: &closed},
			},
			Handler: func(ctx context.Context, req *sdk.Request) (*sdk.Result, error) {
				var a connectArgs
				if err := req.Bind(&a); err != nil {
					return nil, err
				}
				return h.connect(ctx, a.ID)
			},
		})
	d, err := box.Describe(context.Background(), sdk.Host{})
	if err != nil {
		return err
	}
	return h.catalog.Add(connectSource, catalog.InProcess, d, box)
}

// ConnectNotOffered is why a caller without a conversation of its own
// cannot call mcp_connect.
const ConnectNotOffered = "mcp_connect is not offered here: lazy MCP servers are out of reach under --tools search and --stateless, which keep no conversation of their own; " +
	`serve a server's tools to every client by removing "lazy": true from its entry in the MCP config`

// connect runs mcp_connect for the caller's conversation. Its answers are
// the wording of docs/upstream.md, word for word (package upstream).
func (h *Host) connect(ctx context.Context, id string) (*sdk.Result, error) {
	s := upstreamSessionOf(ctx)
	if s == nil {
		return nil, sdk.Failf("%s", ConnectNotOffered)
	}
	added, err := s.Connect(ctx, id)
	var unknown *upstream.UnknownServerError
	switch {
	case errors.As(err, &unknown):
		return nil, sdk.Failf("%s", upstream.UnknownServerMessage(id, unknown.Available))
	case errors.Is(err, upstream.ErrAlreadyConnected):
		return nil, sdk.Failf("%s", upstream.AlreadyConnectedMessage(id))
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case err != nil:
		return nil, sdk.Failf("%s", upstream.ConnectFailedMessage(id, err))
	}
	return sdk.TextResult(upstream.ConnectedMessage(id, len(added))), nil
}

package mcpserver_test

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ramabana/ramabana-mcp/host/internal/hub"
	"github.com/ramabana/ramabana-mcp/host/internal/mcpserver"
	"github.com/ramabana/ramabana-mcp/host/internal/upstream"
	"github.com/ramabana/ramabana-mcp/sdk"
)

// A stateless server answers one session after another, each ending with
// its request, and keeps following the host after the first has ended; it
// refuses mcp_connect and the lazy servers' tools in words naming
// --stateless.
func TestStatelessServerOutlivesItsSessions(t *testing.T) {
	t.Parallel()
	h, err := hub.New(hub.Config{Roots: []string{t.TempDir()}, Upstream: upstream.NewConfig(
		upstream.Server{ID: "later", Type: upstream.TypeStdio, Command: "no-such-server", Lazy: true},
	)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.Close() })
	add := func(name string) {
		t.Helper()
		box := sdk.NewToolbox(name, sdk.WithVersion("1"), sdk.WithDescription("test"))
		box.AddGroup(sdk.GroupSpec{Name: name}, sdk.Tool{
			Spec: sdk.ToolSpec{Name: name + "_tool", Description: "Answers ok.", Kind: sdk.KindRead, InputSchema: obj},
			Handler: func(context.Context, *sdk.Request) (*sdk.Result, error) {
				return sdk.TextResult("ok"), nil
			},
		})
		if err := h.AddGroup(name, box); err != nil {
			t.Fatal(err)
		}
	}
	add("first")
	s := mcpserver.New(h, mcpserver.Options{Version: "test", Stateless: true})
	// session runs one session over s: it lists the tools and returns
	// their names, then ends.
	session := func() map[string]bool {
		t.Helper()
		ctx := context.Background()
		st, ct := mcp.NewInMemoryTransports()
		ss, err := s.Connect(ctx, st, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer ss.Close()
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil).Connect(ctx, ct, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		names := map[string]bool{}
		for tool, err := range cs.Tools(ctx, nil) {
			if err != nil {
				t.Fatal(err)
			}
			names[tool.Name] = true
		}
		for _, name := range []string{upstream.ConnectToolName, "later__echo"} {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: map[string]any{"id": "later"}})
			if err == nil || !strings.Contains(err.Error(), "--stateless") {
				t.Errorf("%s = %+v, %v; want an error naming --stateless", name, res, err)
			}
		}
		return names
	}
	if got := session(); !got["first_tool"] || got[upstream.ConnectToolName] {
		t.Errorf("first session's tools = %v, want first_tool and no mcp_connect", got)
	}
	add("second")
	if got := session(); !got["first_tool"] || !got["second_tool"] {
		t.Errorf("after the first session ended and a group came, the tools are %v, want second_tool too", got)
	}
}

package pluginclient_test

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"path/filepath"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	pluginv1 "github.com/ramabana/ramabana-mcp/internal/gen/ramabana/plugin/v1"
	"github.com/ramabana/ramabana-mcp/internal/pluginclient"
	"github.com/ramabana/ramabana-mcp/internal/pluginrpc"
	"github.com/ramabana/ramabana-mcp/sdk"
)

// unixPlugin serves g on a Unix socket, as a plugin process does, and
// returns a client of it and the server.
func unixPlugin(t *testing.T, g sdk.Group) (*pluginclient.Client, *grpc.Server) {
	t.Helper()
	sock := filepath.Join(t.TempDir(), "plugin.sock")
	lis, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	srv := pluginrpc.NewServer()
	pluginv1.RegisterToolGroupServiceServer(srv, sdk.Service(g))
	go func() { _ = srv.Serve(lis) }()
	conn, err := grpc.NewClient("unix://"+sock, append(pluginrpc.DialOptions(), grpc.WithTransportCredentials(insecure.NewCredentials()))...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close(); srv.Stop() })
	return pluginclient.Dial(conn), srv
}

// TestCallDelivery: a call to a plugin whose server is gone fails with
// ErrNotDelivered (it may be made again); a call the plugin started and
// then lost does not; the call id reaches the handler.
func TestCallDelivery(t *testing.T) {
	t.Parallel()
	started := make(chan struct{}, 1)
	box := sdk.NewToolbox("t", sdk.WithVersion("0"), sdk.WithDescription("t"))
	box.AddGroup(sdk.GroupSpec{Name: "t"},
		sdk.Tool{Spec: sdk.ToolSpec{Name: "id", Kind: sdk.KindRead, InputSchema: json.RawMessage(`{"type":"object"}`)},
			Handler: func(_ context.Context, req *sdk.Request) (*sdk.Result, error) { return sdk.TextResult(req.ID), nil }},
		sdk.Tool{Spec: sdk.ToolSpec{Name: "hang", Kind: sdk.KindRead, InputSchema: json.RawMessage(`{"type":"object"}`)},
			Handler: func(ctx context.Context, _ *sdk.Request) (*sdk.Result, error) {
				started <- struct{}{}
				<-ctx.Done()
				return nil, ctx.Err()
			}},
	)
	client, srv := unixPlugin(t, box)
	res, err := client.Call(context.Background(), &sdk.Call{Tool: "id", ID: "call-42"}, nil)
	if err != nil || res.Text() != "call-42" {
		t.Fatalf("id = %v, %v; want the call id", res, err)
	}

	errc := make(chan error, 1)
	go func() {
		_, err := client.Call(context.Background(), &sdk.Call{Tool: "hang"}, nil)
		errc <- err
	}()
	<-started
	srv.Stop() // the plugin goes away mid-call
	err = <-errc
	if err == nil || errors.Is(err, pluginclient.ErrNotDelivered) {
		t.Errorf("call lost mid-way: err = %v, want a failure that is not ErrNotDelivered", err)
	}

	_, err = client.Call(context.Background(), &sdk.Call{Tool: "id"}, nil)
	if !errors.Is(err, pluginclient.ErrNotDelivered) || !errors.Is(err, pluginclient.ErrUnavailable) {
		t.Errorf("call to a stopped plugin: err = %v, want ErrNotDelivered and ErrUnavailable", err)
	}
}

// TestUnknownToolWording: a plugin's NOT_FOUND is sdk.ErrUnknownTool in the
// one wording the host uses, whatever the plugin's own message says.
func TestUnknownToolWording(t *testing.T) {
	t.Parallel()
	box := sdk.NewToolbox("t")
	box.AddGroup(sdk.GroupSpec{Name: "t"}, sdk.Tool{Spec: sdk.ToolSpec{Name: "id", Kind: sdk.KindRead, InputSchema: json.RawMessage(`{"type":"object"}`)},
		Handler: func(context.Context, *sdk.Request) (*sdk.Result, error) { return sdk.TextResult("x"), nil }})
	client, _ := unixPlugin(t, box)
	_, err := client.Call(context.Background(), &sdk.Call{Tool: "nope"}, nil)
	if !errors.Is(err, sdk.ErrUnknownTool) || err.Error() != `unknown tool "nope"` {
		t.Errorf("err = %v, want sdk.ErrUnknownTool as `unknown tool \"nope\"`", err)
	}
}

// Package sdktest runs a plugin's group in-process over a real gRPC
// connection, so a plugin's tests see it exactly as the host does.
package sdktest

import (
	"context"
	"encoding/json"
	"net"
	"strings"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/test/bufconn"

	"github.com/ramabana/ramabana-mcp/sdk"
)

// Connect serves g on an in-memory gRPC connection, describes it with host,
// and returns the client side. Server and connection close on t.Cleanup.
func Connect(t testing.TB, g sdk.Group, host sdk.Host) (sdk.Group, *sdk.Description) {
	t.Helper()
	lis := bufconn.Listen(1 << 20)
	srv := sdk.NewGRPCServer(nil)
	if err := sdk.Register(srv, g); err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(lis) }()
	opts := append(sdk.DialOptions(),
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return lis.DialContext(ctx) }),
		grpc.WithTransportCredentials(insecure.NewCredentials()))
	conn, err := grpc.NewClient("passthrough:///bufconn", opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = conn.Close()
		srv.Stop()
	})
	client := sdk.NewGRPCClient(conn)
	d, err := client.Describe(context.Background(), host)
	if err != nil {
		t.Fatalf("describe: %v", err)
	}
	return client, d
}

// Call calls a tool with args marshalled to JSON and fails the test on a
// Go error (a tool error result is returned, not failed on).
func Call(t testing.TB, g sdk.Group, tool string, args any) *sdk.Result {
	t.Helper()
	b, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	res, err := g.Call(context.Background(), &sdk.Call{Tool: tool, Arguments: b}, nil)
	if err != nil {
		t.Fatalf("call %s: %v", tool, err)
	}
	return res
}

// Outcome checks a call's text and error flag against a table case's
// wantErr. With wantErr set, the call must have failed with a message
// containing it, and Outcome returns false: the case is done. Without, the
// call must have succeeded (the test stops if not), and Outcome returns
// true: the caller goes on to check the text.
func Outcome(t testing.TB, got string, isErr bool, wantErr string) bool {
	t.Helper()
	if wantErr != "" {
		if !isErr || !strings.Contains(got, wantErr) {
			t.Errorf("got %q (error %v), want an error containing %q", got, isErr, wantErr)
		}
		return false
	}
	if isErr {
		t.Fatalf("unexpected error: %s", got)
	}
	return true
}

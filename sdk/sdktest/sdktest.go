// Package sdktest runs a plugin's group in-process over a real gRPC
// connection, and checks what it serves by the host's own rules, so a
// plugin's tests see it exactly as the host does.
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

	pluginv1 "github.com/ramabana/ramabana-mcp/internal/gen/ramabana/plugin/v1"
	"github.com/ramabana/ramabana-mcp/internal/pluginclient"
	"github.com/ramabana/ramabana-mcp/internal/pluginrpc"
	"github.com/ramabana/ramabana-mcp/internal/schema"
	"github.com/ramabana/ramabana-mcp/sdk"
)

// Connect serves g on an in-memory gRPC connection, describes it with host,
// and returns the client side. The description must pass the host's
// validator (sdk.Description.Validate, and ValidateTask for every tool), or
// the test fails. The returned
// group validates every call's arguments against the tool's input schema
// first, as the host does: a call the host would refuse never reaches g,
// and gets the host's error result instead. Server and connection close on
// t.Cleanup.
func Connect(t testing.TB, g sdk.Group, host sdk.Host) (sdk.Group, *sdk.Description) {
	t.Helper()
	lis := bufconn.Listen(1 << 20)
	srv := pluginrpc.NewServer()
	pluginv1.RegisterToolGroupServiceServer(srv, sdk.Service(g))
	go func() { _ = srv.Serve(lis) }()
	opts := append(pluginrpc.DialOptions(),
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
	client := pluginclient.Dial(conn)
	d, err := client.Describe(context.Background(), host)
	if err != nil {
		t.Fatalf("describe: %v", err)
	}
	if err := d.Validate(); err != nil {
		t.Fatalf("the host would refuse this plugin: %v", err)
	}
	if _, refused := d.DropMisdeclared(); refused != nil {
		t.Fatalf("the host would refuse these tools: %v", refused)
	}
	checked := &validating{Group: client, inputs: map[string]*schema.Validator{}}
	for _, grp := range d.Groups {
		for _, spec := range grp.Tools {
			v, err := schema.NewValidator(spec.Name, spec.InputSchema)
			if err != nil {
				t.Fatal(err) // Validate passed, so this cannot happen
			}
			checked.inputs[spec.Name] = v
		}
	}
	return checked, d
}

// validating checks a call's arguments as the host does before passing it
// on, and passes absent arguments as {} as the host does.
type validating struct {
	sdk.Group
	inputs map[string]*schema.Validator
}

func (v *validating) Call(ctx context.Context, call *sdk.Call, events sdk.Events) (*sdk.Result, error) {
	sent := *call
	if in, ok := v.inputs[call.Tool]; ok {
		sent.Arguments = in.DropNullOptionals(call.Arguments)
		if err := in.Validate(sent.Arguments); err != nil {
			return &sdk.Result{Content: []sdk.Content{{Text: err.Error()}}, IsError: true}, nil
		}
	}
	sent.Arguments = sdk.Arguments(sent.Arguments)
	return v.Group.Call(ctx, &sent, events)
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

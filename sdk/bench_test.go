package sdk_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/ramabana/ramabana-mcp/sdk"
	"github.com/ramabana/ramabana-mcp/sdk/sdktest"
)

// BenchmarkCallInProcess is one Call over an in-memory gRPC connection: the
// cost of the adapters and a gRPC stream, with no process hop.
func BenchmarkCallInProcess(b *testing.B) {
	g, _ := sdktest.Connect(b, testBox(), sdk.Host{})
	call := &sdk.Call{Tool: "roots", Arguments: json.RawMessage(`{}`)}
	for b.Loop() {
		if _, err := g.Call(context.Background(), call, nil); err != nil {
			b.Fatal(err)
		}
	}
}

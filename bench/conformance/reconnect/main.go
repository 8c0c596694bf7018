// Command reconnect is a ramabana plugin for the conformance run
// (bench/conformance/run.sh), installed as ramabana-plugin-conformance. It
// serves test_reconnection, the tool the suite's server-sse-polling scenario
// calls on the server under test: the scenario reads the call's event
// stream for the priming event and the retry field, and passes when the
// result arrives, on that stream or on a resumed one.
package main

import (
	"context"

	"github.com/ramabana/ramabana-mcp/sdk"
)

type noArgs struct{}

func main() {
	box := sdk.NewToolbox("conformance", sdk.WithVersion("0.0.1"), sdk.WithDescription("tools the MCP conformance suite calls"))
	box.AddGroup(sdk.GroupSpec{Name: "conformance", Description: "tools the MCP conformance suite calls"},
		sdk.TypedTool(sdk.ToolSpec{Name: "test_reconnection", Description: "Answer at once; the conformance suite calls it to read the call's event stream.", Kind: sdk.KindRead},
			func(context.Context, *sdk.Request, noArgs) (*sdk.Result, error) {
				return sdk.TextResult("Reconnection test completed successfully"), nil
			}))
	sdk.Serve(box)
}

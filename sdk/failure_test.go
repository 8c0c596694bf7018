package sdk_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ramabana/ramabana-mcp/sdk"
)

// failed is the error result a failure with msg becomes.
func failed(msg string) *sdk.Result {
	return &sdk.Result{IsError: true, Content: []sdk.Content{{Text: msg}}}
}

func TestFailf(t *testing.T) {
	t.Parallel()
	fault := errors.New("disk on fire")
	// Each way of declaring a tool returns err from its handler.
	tools := map[string]func(err error) sdk.Tool{
		"handler": func(err error) sdk.Tool {
			return sdk.Tool{Spec: sdk.ToolSpec{Name: "t", Kind: sdk.KindRead, InputSchema: json.RawMessage(`{"type":"object"}`)}, Handler: func(context.Context, *sdk.Request) (*sdk.Result, error) {
				return nil, err
			}}
		},
		"typed": func(err error) sdk.Tool {
			return sdk.TypedTool(sdk.ToolSpec{Name: "t", Kind: sdk.KindRead}, func(context.Context, *sdk.Request, struct{}) (*sdk.Result, error) {
				return nil, err
			})
		},
		"typed output": func(err error) sdk.Tool {
			return sdk.TypedTool(sdk.ToolSpec{Name: "t", Kind: sdk.KindRead}, func(context.Context, *sdk.Request, struct{}) (struct{ N int }, error) {
				return struct{ N int }{N: 1}, err
			})
		},
	}
	tests := map[string]struct {
		err     error
		want    *sdk.Result
		wantErr error
	}{
		"failure":         {err: sdk.Failf("line %d changed", 12), want: failed("line 12 changed")},
		"wrapped failure": {err: fmt.Errorf("edit: %w", sdk.Failf("stale")), want: failed("stale")},
		"fault":           {err: fault, wantErr: fault},
	}
	for toolName, tool := range tools {
		for name, tc := range tests {
			t.Run(toolName+" "+name, func(t *testing.T) {
				t.Parallel()
				box := sdk.NewToolbox("p")
				box.AddGroup(sdk.GroupSpec{Name: "g"}, tool(tc.err))
				res, err := box.Call(context.Background(), &sdk.Call{Tool: "t"}, nil)
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("error %v, want %v", err, tc.wantErr)
				}
				if tc.wantErr != nil {
					return
				}
				if diff := cmp.Diff(tc.want, res); diff != "" {
					t.Errorf("result (-want +got):\n%s", diff)
				}
			})
		}
	}
}

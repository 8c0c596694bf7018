package sdk_test

import (
	"context"
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
	tests := map[string]struct {
		typed   bool
		err     error
		want    *sdk.Result
		wantErr error
	}{
		"typed failure":         {typed: true, err: sdk.Failf("line %d changed", 12), want: failed("line 12 changed")},
		"typed wrapped failure": {typed: true, err: fmt.Errorf("edit: %w", sdk.Failf("stale")), want: failed("stale")},
		"typed fault":           {typed: true, err: fault, wantErr: fault},
		"handler failure":       {err: sdk.Failf("no such file"), want: failed("no such file")},
		"handler fault":         {err: fault, wantErr: fault},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tool := sdk.Tool{Spec: sdk.ToolSpec{Name: "t"}, Handler: func(context.Context, *sdk.Request) (*sdk.Result, error) {
				return nil, tc.err
			}}
			if tc.typed {
				tool = sdk.TypedTool(sdk.ToolSpec{Name: "t"}, func(context.Context, *sdk.Request, struct{}) (*sdk.Result, error) {
					return nil, tc.err
				})
			}
			box := sdk.NewToolbox("p")
			box.AddGroup(sdk.GroupSpec{Name: "g"}, tool)
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

package sdk_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ramabana/ramabana-mcp/sdk"
)

func TestNewToolboxOptions(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		opts []sdk.ToolboxOption
		want sdk.Description
	}{
		"name only":   {want: sdk.Description{Name: "p"}},
		"version":     {opts: []sdk.ToolboxOption{sdk.WithVersion("1.2.3")}, want: sdk.Description{Name: "p", Version: "1.2.3"}},
		"description": {opts: []sdk.ToolboxOption{sdk.WithDescription("does p")}, want: sdk.Description{Name: "p", Description: "does p"}},
		"both": {
			opts: []sdk.ToolboxOption{sdk.WithDescription("does p"), sdk.WithVersion("2")},
			want: sdk.Description{Name: "p", Version: "2", Description: "does p"},
		},
		"the last wins": {
			opts: []sdk.ToolboxOption{sdk.WithVersion("1"), sdk.WithVersion("2")},
			want: sdk.Description{Name: "p", Version: "2"},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			d, err := sdk.NewToolbox("p", tc.opts...).Describe(context.Background(), sdk.Host{})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, *d); diff != "" {
				t.Errorf("description (-want +got):\n%s", diff)
			}
		})
	}
}

package sdk_test

import (
	"context"
	"encoding/json"
	"strings"
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

// TestAddGroupRefusesWhatTheHostRefuses: a tool the host would refuse
// stops the plugin at start-up, with a message naming the tool, instead of
// being served and refused by the host later.
func TestAddGroupRefusesWhatTheHostRefuses(t *testing.T) {
	t.Parallel()
	obj := json.RawMessage(`{"type":"object"}`)
	for name, tc := range map[string]struct {
		group string
		spec  sdk.ToolSpec
		want  string
	}{
		"no kind":                              {"g", sdk.ToolSpec{Name: "mystery", InputSchema: obj}, `tool "mystery": declares no kind`},
		"mode on non-skill":                    {"g", sdk.ToolSpec{Name: "m", Kind: sdk.KindRead, InputSchema: obj, Mode: sdk.SkillAuto}, `tool "m": mode "auto" is for skill tools only`},
		"as_user_message on a completion tool": {"g", sdk.ToolSpec{Name: "u", Kind: sdk.KindRead, InputSchema: obj, AsUserMessage: true}, `tool "u": as_user_message is for context tools only`},
		"unknown task":                         {"g", sdk.ToolSpec{Name: "r", Kind: sdk.KindRead, InputSchema: obj, Task: "router"}, `tool "r": unknown task "router"`},
		"array schema":                         {"g", sdk.ToolSpec{Name: "a", Kind: sdk.KindRead, InputSchema: json.RawMessage(`{"type":"array"}`)}, `tool "a": input schema: the root must have "type": "object"`},
		"bad group name":                       {"Bad Group", sdk.ToolSpec{Name: "ok", Kind: sdk.KindRead, InputSchema: obj}, `group name "Bad Group"`},
		"a tool of an earlier group":           {"g", sdk.ToolSpec{Name: "dup", Kind: sdk.KindRead, InputSchema: obj}, `tool "dup" is declared twice (groups "first" and "g")`},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			defer func() {
				r := recover()
				if msg, _ := r.(string); !strings.Contains(msg, tc.want) {
					t.Errorf("AddGroup panicked with %v, want a message containing %q", r, tc.want)
				}
			}()
			box := sdk.NewToolbox("p")
			box.AddGroup(sdk.GroupSpec{Name: "first"}, sdk.Tool{Spec: sdk.ToolSpec{Name: "dup", Kind: sdk.KindRead, InputSchema: obj}})
			box.AddGroup(sdk.GroupSpec{Name: tc.group}, sdk.Tool{Spec: tc.spec})
		})
	}
}

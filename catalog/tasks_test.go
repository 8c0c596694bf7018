package catalog_test

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ramabana/ramabana-mcp/catalog"
	"github.com/ramabana/ramabana-mcp/sdk"
	"github.com/ramabana/ramabana-mcp/tasks"
)

// TestForTask: a plugin's tools by their spec, an upstream server's by its
// _meta as listed, untagged ones as completion.
func TestForTask(t *testing.T) {
	t.Parallel()
	obj := json.RawMessage(`{"type":"object"}`)
	plugin := func(name string, task sdk.Task, mode sdk.SkillMode) *catalog.Entry {
		return &catalog.Entry{Spec: sdk.ToolSpec{Name: name, Kind: sdk.KindRead, InputSchema: obj, Task: task, Mode: mode}}
	}
	upstream := func(name string, meta map[string]any) *catalog.Entry {
		return catalog.NewUpstreamEntry(sdk.ToolSpec{Name: name, InputSchema: obj}, "mcp:up", "mcp:up", &catalog.Upstream{Server: "up", Meta: meta}, nil)
	}
	entries := []*catalog.Entry{
		plugin("search", "", ""),
		plugin("policies", sdk.TaskContext, ""),
		plugin("style", sdk.TaskSkill, sdk.SkillAlwaysOn),
		plugin("lazy", sdk.TaskSkill, ""),
		upstream("up__plain", nil),
		upstream("up__ticket", map[string]any{"mcp_server": map[string]any{"task": "context", "as_user_message": true}}),
		upstream("up__grounded", map[string]any{"fastmcp": map[string]any{"tags": []any{"evaluation"}}}),
	}
	names := func(es []*catalog.Entry) []string {
		var out []string
		for _, e := range es {
			out = append(out, e.Spec.Name)
		}
		return out
	}
	for task, want := range map[tasks.Task][]string{
		tasks.Completion: {"search", "up__plain"},
		tasks.Context:    {"policies", "up__ticket"},
		tasks.Skill:      {"style", "lazy"},
		tasks.Evaluation: {"up__grounded"},
		tasks.None:       nil,
	} {
		if diff := cmp.Diff(want, names(catalog.ForTask(entries, task))); diff != "" {
			t.Errorf("ForTask(%q) (-want +got):\n%s", task, diff)
		}
	}
	if got := entries[5].TaskInfo(); got != (tasks.Info{Task: tasks.Context, AsUserMessage: true}) {
		t.Errorf("upstream context tool: %+v", got)
	}
	if got := entries[3].TaskInfo(); got != (tasks.Info{Task: tasks.Skill, Mode: tasks.Auto}) {
		t.Errorf("skill without a mode: %+v", got)
	}
}

package catalog_test

import (
	"encoding/json"
	"testing"

	"github.com/ramabana/ramabana-mcp/host/internal/catalog"
	"github.com/ramabana/ramabana-mcp/sdk"
	"github.com/ramabana/ramabana-mcp/tasks"
)

// TestTaskInfo: a plugin's tools by their spec, an upstream server's by
// its _meta as listed, untagged ones as completion.
func TestTaskInfo(t *testing.T) {
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
	want := map[string]tasks.Task{
		"search": tasks.Completion, "up__plain": tasks.Completion,
		"policies": tasks.Context, "up__ticket": tasks.Context,
		"style": tasks.Skill, "lazy": tasks.Skill,
		"up__grounded": tasks.Evaluation,
	}
	for _, e := range entries {
		if got := e.TaskInfo().Task; got != want[e.Spec.Name] {
			t.Errorf("%s: task %q, want %q", e.Spec.Name, got, want[e.Spec.Name])
		}
	}
	if got := entries[5].TaskInfo(); got != (tasks.Info{Task: tasks.Context, AsUserMessage: true}) {
		t.Errorf("upstream context tool: %+v", got)
	}
	if got := entries[3].TaskInfo(); got != (tasks.Info{Task: tasks.Skill, Mode: tasks.Auto}) {
		t.Errorf("skill without a mode: %+v", got)
	}
}

package tasks_test

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ramabana/ramabana-mcp/tasks"
)

// listed decodes tools as a client gets them from tools/list, so _meta
// holds what JSON decodes to ([]any, not []string).
func listed(t *testing.T, raw string) []*mcp.Tool {
	t.Helper()
	var res mcp.ListToolsResult
	if err := json.Unmarshal([]byte(raw), &res); err != nil {
		t.Fatal(err)
	}
	return res.Tools
}

// mixed is a listing from several kinds of server: ramabana's (both keys),
// FastMCP's (tags only, other tags besides), a plain server's (no _meta),
// and odd ones.
const mixed = `{"tools": [
	{"name": "policies", "inputSchema": {"type": "object"}, "_meta": {"mcp_server": {"task": "context", "as_user_message": false}, "fastmcp": {"tags": ["context"]}}},
	{"name": "ticket", "inputSchema": {"type": "object"}, "_meta": {"mcp_server": {"task": "context", "as_user_message": true}, "fastmcp": {"tags": ["context"]}}},
	{"name": "search", "inputSchema": {"type": "object"}, "_meta": {"mcp_server": {"task": "completion"}, "fastmcp": {"tags": ["completion"]}}},
	{"name": "plain", "inputSchema": {"type": "object"}},
	{"name": "other_meta", "inputSchema": {"type": "object"}, "_meta": {"vendor": {"x": 1}}},
	{"name": "tags_only", "inputSchema": {"type": "object"}, "_meta": {"fastmcp": {"tags": ["admin", "evaluation"]}}},
	{"name": "unrelated_tags", "inputSchema": {"type": "object"}, "_meta": {"fastmcp": {"tags": ["admin"]}}},
	{"name": "server_wins", "inputSchema": {"type": "object"}, "_meta": {"mcp_server": {"task": "post_tool"}, "fastmcp": {"tags": ["context"]}}},
	{"name": "style", "inputSchema": {"type": "object"}, "_meta": {"mcp_server": {"task": "skill", "mode": "always-on"}}},
	{"name": "lazy_skill", "inputSchema": {"type": "object"}, "_meta": {"fastmcp": {"tags": ["skill"]}}},
	{"name": "ping", "inputSchema": {"type": "object"}, "_meta": {"mcp_server": {"task": "none"}}},
	{"name": "router", "inputSchema": {"type": "object"}, "_meta": {"mcp_server": {"task": "router"}}},
	{"name": "bad_type", "inputSchema": {"type": "object"}, "_meta": {"mcp_server": {"task": 7}, "fastmcp": {"tags": "context"}}}
]}`

func TestToolsForTaskOnAMixedList(t *testing.T) {
	t.Parallel()
	tools := listed(t, mixed)
	want := map[tasks.Task][]string{
		tasks.Context:    {"policies", "ticket"},
		tasks.Completion: {"search", "plain", "other_meta", "unrelated_tags", "bad_type"},
		tasks.Evaluation: {"tags_only"},
		tasks.PostTool:   {"server_wins"},
		tasks.Skill:      {"style", "lazy_skill"},
		tasks.None:       {"ping"},
		"router":         {"router"},
	}
	for task, names := range want {
		t.Run(string(task), func(t *testing.T) {
			t.Parallel()
			var got []string
			for _, tool := range tasks.ToolsForTask(tools, task) {
				got = append(got, tool.Name)
			}
			if diff := cmp.Diff(names, got); diff != "" {
				t.Errorf("ToolsForTask(%q) (-want +got):\n%s", task, diff)
			}
		})
	}
	if diff := cmp.Diff(tasks.ToolsForTask(tools, tasks.Completion), tasks.ToolsForTask(tools, "")); diff != "" {
		t.Errorf("the empty task is not completion (-completion +empty):\n%s", diff)
	}
}

func TestOf(t *testing.T) {
	t.Parallel()
	got := map[string]tasks.Info{}
	for _, tool := range listed(t, mixed) {
		got[tool.Name] = tasks.Of(tool)
	}
	want := map[string]tasks.Info{
		"policies":       {Task: tasks.Context},
		"ticket":         {Task: tasks.Context, AsUserMessage: true},
		"search":         {Task: tasks.Completion},
		"plain":          {Task: tasks.Completion},
		"other_meta":     {Task: tasks.Completion},
		"tags_only":      {Task: tasks.Evaluation},
		"unrelated_tags": {Task: tasks.Completion},
		"server_wins":    {Task: tasks.PostTool},
		"style":          {Task: tasks.Skill, Mode: tasks.AlwaysOn},
		"lazy_skill":     {Task: tasks.Skill, Mode: tasks.Auto},
		"ping":           {Task: tasks.None},
		"router":         {Task: "router"},
		"bad_type":       {Task: tasks.Completion},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Of (-want +got):\n%s", diff)
	}
}

// TestMetaRoundTrips: what Meta writes, FromMeta reads back, built
// in-process or through JSON; and the JSON is docs/agent-tasks.md's wire
// form.
func TestMetaRoundTrips(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		info tasks.Info
		want string
	}{
		"zero is completion":  {tasks.Info{}, `{"fastmcp":{"tags":["completion"]},"mcp_server":{"task":"completion"}}`},
		"context":             {tasks.Info{Task: tasks.Context}, `{"fastmcp":{"tags":["context"]},"mcp_server":{"as_user_message":false,"task":"context"}}`},
		"user message":        {tasks.Info{Task: tasks.Context, AsUserMessage: true}, `{"fastmcp":{"tags":["context"]},"mcp_server":{"as_user_message":true,"task":"context"}}`},
		"evaluation":          {tasks.Info{Task: tasks.Evaluation}, `{"fastmcp":{"tags":["evaluation"]},"mcp_server":{"task":"evaluation"}}`},
		"post tool":           {tasks.Info{Task: tasks.PostTool}, `{"fastmcp":{"tags":["post_tool"]},"mcp_server":{"task":"post_tool"}}`},
		"skill defaults auto": {tasks.Info{Task: tasks.Skill}, `{"fastmcp":{"tags":["skill"]},"mcp_server":{"mode":"auto","task":"skill"}}`},
		"always-on skill":     {tasks.Info{Task: tasks.Skill, Mode: tasks.AlwaysOn}, `{"fastmcp":{"tags":["skill"]},"mcp_server":{"mode":"always-on","task":"skill"}}`},
		"none":                {tasks.Info{Task: tasks.None}, `{"fastmcp":{"tags":["none"]},"mcp_server":{"task":"none"}}`},
		"stray fields drop":   {tasks.Info{Task: tasks.None, AsUserMessage: true, Mode: tasks.Auto}, `{"fastmcp":{"tags":["none"]},"mcp_server":{"task":"none"}}`},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			meta := tc.info.Meta()
			b, err := json.Marshal(meta)
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tc.want {
				t.Errorf("Meta = %s, want %s", b, tc.want)
			}
			var decoded map[string]any
			if err := json.Unmarshal(b, &decoded); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tasks.FromMeta(meta), tasks.FromMeta(decoded)); diff != "" {
				t.Errorf("in-process and decoded differ (-in-process +decoded):\n%s", diff)
			}
			fastOnly := map[string]any{tasks.FastMCPKey: decoded[tasks.FastMCPKey]}
			if got, want := tasks.FromMeta(fastOnly).Task, tasks.FromMeta(decoded).Task; got != want {
				t.Errorf("the tags alone say %q, mcp_server says %q", got, want)
			}
		})
	}
}

func TestKnown(t *testing.T) {
	t.Parallel()
	for _, task := range tasks.All {
		if !tasks.Known(task) {
			t.Errorf("%q is not known", task)
		}
	}
	for _, task := range []tasks.Task{"", "router", "Context"} {
		if tasks.Known(task) {
			t.Errorf("%q is known", task)
		}
	}
}

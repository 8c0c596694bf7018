package e2e

import (
	"testing"

	"github.com/ramabana/ramabana-mcp/tasks"
)

// TestEveryToolCarriesItsTaskTwice: every tool the server lists, bundled or
// a plugin's, carries its task in _meta.mcp_server and as the one tag in
// _meta.fastmcp.tags, and the two agree.
func TestEveryToolCarriesItsTaskTwice(t *testing.T) {
	t.Parallel()
	s := startStdio(t, project(t), "--plugins", pluginDir(t, "echo", "skill"))
	ts := tools(t, s.session)
	for _, name := range []string{"view_file", "echo", "house_style"} {
		if ts[name] == nil {
			t.Fatalf("%s not listed; stderr:\n%s", name, s.stderr)
		}
	}
	for name, tool := range ts {
		server, _ := tool.Meta[tasks.MetaKey].(map[string]any)
		fast, _ := tool.Meta[tasks.FastMCPKey].(map[string]any)
		tags, _ := fast["tags"].([]any)
		if server["task"] == nil || len(tags) != 1 || tags[0] != server["task"] {
			t.Errorf("%s _meta = %v, want the task under both keys", name, tool.Meta)
		}
	}
	if got := tasks.Of(ts["house_style"]); got != (tasks.Info{Task: tasks.Skill, Mode: tasks.Auto}) {
		t.Errorf("house_style is %+v, want an auto skill", got)
	}
}

// TestMisdeclaredToolsAreRefusedByTheHost: a plugin that declares tools
// for the wrong task (any language can) has them refused, each with a log
// line naming it, and its other tools served.
func TestMisdeclaredToolsAreRefusedByTheHost(t *testing.T) {
	t.Parallel()
	s := startStdio(t, project(t), "--plugins", pluginDir(t, "misdeclared"))
	ts := tools(t, s.session)
	if ts["fine"] == nil {
		t.Fatalf("fine not listed; stderr:\n%s", s.stderr)
	}
	for _, name := range []string{"moded", "user_eval"} {
		if ts[name] != nil {
			t.Errorf("misdeclared %s is listed", name)
		}
	}
	for _, want := range []string{
		`tool \"moded\": mode \"auto\" is for skill tools only, and the task is completion`,
		`tool \"user_eval\": as_user_message is for context tools only, and the task is evaluation`,
	} {
		if !s.logged(`msg="tool refused; the plugin's other tools are served" plugin=misdeclared`) || !s.logged(want) {
			t.Errorf("no log line refusing with %s; stderr:\n%s", want, s.stderr)
		}
	}
}

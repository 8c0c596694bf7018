// Package tasks is the wire form of agent tasks (docs/agent-tasks.md):
// which stage of an agent's run a tool serves, as an MCP tools/list carries
// it in each tool's _meta, and [ToolsForTask] to pick one task's tools from
// a listing. It depends on the MCP Go SDK only, so any Go MCP client can
// import it without the host or the plugin SDK.
//
// A tool's task is read from _meta.mcp_server.task, then from the first
// known task among _meta.fastmcp.tags; a tool with neither is a completion
// tool, as a plain MCP server's tools are:
//
//	res, err := session.ListTools(ctx, nil)
//	...
//	for _, t := range tasks.ToolsForTask(res.Tools, tasks.Context) {
//		info := tasks.Of(t) // info.AsUserMessage says where its text goes
//		...
//	}
package tasks

import (
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Task is the agent task of a tool: the value of _meta.mcp_server.task.
type Task string

// The tasks of docs/agent-tasks.md. A client that meets another value (a
// newer contract's) keeps it as it is, so it matches no known task.
const (
	Completion Task = "completion" // offered to the model
	Context    Task = "context"    // its text builds the prompt
	Evaluation Task = "evaluation" // judges the final answer
	PostTool   Task = "post_tool"  // runs after the result, before evaluation
	Skill      Task = "skill"      // instructions, injected (always-on) or loaded by name (auto)
	None       Task = "none"       // not used by agents
)

// All is every known task, in the order of an agent's run.
var All = []Task{Context, Skill, Completion, PostTool, Evaluation, None}

// Known reports whether t is one of the tasks of docs/agent-tasks.md.
func Known(t Task) bool { return slices.Contains(All, t) }

// SkillMode says how an agent uses a skill tool: _meta.mcp_server.mode.
type SkillMode string

const (
	AlwaysOn SkillMode = "always-on" // injected with the context
	Auto     SkillMode = "auto"      // loaded by name when the model asks
)

// The _meta keys of a tool's task.
const (
	MetaKey    = "mcp_server" // {"task": ..., "as_user_message": ..., "mode": ...}
	FastMCPKey = "fastmcp"    // {"tags": [task]}, as FastMCP carries tags
)

// Info is a tool's task and what goes with it.
type Info struct {
	// Task is the task; empty means Completion.
	Task Task
	// AsUserMessage applies to context tools: their text goes in a user
	// message rather than the system prompt.
	AsUserMessage bool
	// Mode applies to skill tools; empty means Auto.
	Mode SkillMode
}

// Normal is i with the defaults filled in (completion for no task, auto
// for a skill's mode) and what does not apply to its task dropped.
func (i Info) Normal() Info {
	out := Info{Task: i.Task}
	switch i.Task {
	case "":
		out.Task = Completion
	case Context:
		out.AsUserMessage = i.AsUserMessage
	case Skill:
		out.Mode = i.Mode
		if out.Mode == "" {
			out.Mode = Auto
		}
	}
	return out
}

// ServerMeta is the value of _meta.mcp_server: task always,
// as_user_message for context tools, mode for skill tools.
func (i Info) ServerMeta() map[string]any {
	i = i.Normal()
	m := map[string]any{"task": string(i.Task)}
	switch i.Task {
	case Context:
		m["as_user_message"] = i.AsUserMessage
	case Skill:
		m["mode"] = string(i.Mode)
	}
	return m
}

// Meta is the _meta of a tool of this task: MetaKey holds ServerMeta, and
// FastMCPKey the task as the one tag.
func (i Info) Meta() map[string]any {
	return map[string]any{
		MetaKey:    i.ServerMeta(),
		FastMCPKey: map[string]any{"tags": []string{string(i.Normal().Task)}},
	}
}

// FromMeta reads a tool's task from its _meta: _meta.mcp_server.task, then
// the first known task among _meta.fastmcp.tags, else Completion. A value
// of the wrong type counts as absent. The result is normal: Task is never
// empty, a skill's Mode never empty.
func FromMeta(meta map[string]any) Info {
	if m, ok := meta[MetaKey].(map[string]any); ok {
		if task, _ := m["task"].(string); task != "" {
			i := Info{Task: Task(task)}
			i.AsUserMessage, _ = m["as_user_message"].(bool)
			if mode, ok := m["mode"].(string); ok {
				i.Mode = SkillMode(mode)
			}
			return i.Normal()
		}
	}
	if f, ok := meta[FastMCPKey].(map[string]any); ok {
		for _, tag := range tags(f["tags"]) {
			if Known(Task(tag)) {
				return Info{Task: Task(tag)}.Normal()
			}
		}
	}
	return Info{Task: Completion}
}

// tags are the strings of a tags value: []string when built in-process,
// []any when decoded from JSON.
func tags(v any) []string {
	switch v := v.(type) {
	case []string:
		return v
	case []any:
		var out []string
		for _, t := range v {
			if s, ok := t.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// Of is the task of an MCP tool, read from its _meta (FromMeta).
func Of(t *mcp.Tool) Info { return FromMeta(t.Meta) }

// ToolsForTask returns the tools of the task, in their order: those whose
// _meta says so, and for Completion also those whose _meta says nothing.
// An empty task means Completion.
func ToolsForTask(tools []*mcp.Tool, task Task) []*mcp.Tool {
	if task == "" {
		task = Completion
	}
	var out []*mcp.Tool
	for _, t := range tools {
		if Of(t).Task == task {
			out = append(out, t)
		}
	}
	return out
}

package catalog

import (
	"github.com/ramabana/ramabana-mcp/sdk"
	"github.com/ramabana/ramabana-mcp/tasks"
)

// SpecTask is the agent task a plugin declares for a tool, in the wire's
// terms (tasks.Info.Normal).
func SpecTask(s sdk.ToolSpec) tasks.Info {
	return tasks.Info{Task: tasks.Task(s.EffectiveTask()), AsUserMessage: s.AsUserMessage, Mode: tasks.SkillMode(s.Mode)}.Normal()
}

// TaskInfo is the entry's agent task: a plugin's tool's from its spec
// (SpecTask), an upstream server's tool's from its _meta as listed
// (tasks.FromMeta: mcp_server.task, then fastmcp.tags, else completion).
// It is the host's in-process form of what a client reads with
// tasks.Of.
func (e *Entry) TaskInfo() tasks.Info {
	if e.Upstream != nil {
		return tasks.FromMeta(e.Upstream.Meta)
	}
	return SpecTask(e.Spec)
}

package host

import (
	"fmt"

	"github.com/ramabana/ramabana-mcp/sdk"
	"github.com/ramabana/ramabana-mcp/upstream"
)

// UnknownTool is the error for a call of the tool called name that the
// caller (the client, or with agent an ask turn) may not make: an
// *sdk.UnknownToolError saying why the tool is absent and what would
// mount it: the serving policy's reason (--write, --groups, --web), the
// config's allow and deny lists for an upstream server's tool, a lazy
// server not yet connected, or no tool of that name, with the nearest
// name the caller has. Why is empty for a tool the caller may call.
func (h *Host) UnknownTool(name string, agent bool) error {
	return &sdk.UnknownToolError{Tool: name, Why: h.whyUnknown(name, agent)}
}

func (h *Host) whyUnknown(name string, agent bool) string {
	if e, ok := h.catalog.Get(name); ok {
		return h.uncallable(e, agent)
	}
	if why, ok := h.whyUnknownUpstream(name); ok {
		return why
	}
	tools := h.Mounted()
	if agent {
		tools = h.AgentTools()
	}
	names := make([]string, len(tools))
	for i, e := range tools {
		names[i] = e.Spec.Name
	}
	if near, ok := sdk.NearestName(name, names); ok {
		return fmt.Sprintf("no tool has that name; did you mean %s?", near)
	}
	return "no tool has that name"
}

// whyUnknownUpstream says why a configured upstream server's tool
// (<server>__<tool>) is not in the catalog; ok is false for a name no
// configured server would give.
func (h *Host) whyUnknownUpstream(name string) (why string, ok bool) {
	id, tool, ok := upstream.SplitName(name)
	if !ok {
		return "", false
	}
	for _, s := range h.cfg.Upstream.Servers() {
		if s.ID != id {
			continue
		}
		if refused := h.up.refused[id]; refused != "" {
			return fmt.Sprintf("MCP server %q is not served: %s", id, refused), true
		}
		if ok, why := h.policy.GroupMounted(id, sdk.ModeDefault); !ok {
			return why, true
		}
		if !s.Allows(tool) {
			return fmt.Sprintf("the config's allow and deny lists for MCP server %q leave it out", id), true
		}
		if s.Lazy {
			return fmt.Sprintf(`MCP server %q is not connected: call %s with {"id": %q} first`, id, upstream.ConnectToolName, id), true
		}
		return fmt.Sprintf("MCP server %q lists no tool %q", id, tool), true
	}
	return "", false
}

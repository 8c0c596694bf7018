package hub

import (
	"fmt"

	"github.com/ramabana/ramabana-mcp/host/internal/catalog"
	"github.com/ramabana/ramabana-mcp/host/internal/supervise"
	"github.com/ramabana/ramabana-mcp/host/internal/upstream"
	"github.com/ramabana/ramabana-mcp/internal/schema"
	"github.com/ramabana/ramabana-mcp/sdk"
)

// UnknownTool is the error for a call of the tool called name that the
// caller (the client, or with agent an ask turn) may not make: an
// *sdk.UnknownToolError saying why the tool is absent and what would
// mount it: the serving policy's reason (--write, --groups, --web), the
// config's allow and deny lists for an upstream server's tool, a lazy
// server not yet connected, or no tool of that name, with the nearest
// name the caller has. Why is empty for a tool the caller may call. (A
// conversation that connected lazy servers asks its UpstreamSession,
// which knows their tools.)
func (h *Host) UnknownTool(name string, agent bool) error {
	return &sdk.UnknownToolError{Tool: name, Why: h.whyUnknown(name, agent, true)}
}

// UnknownToolNoConnect is UnknownTool for a client that is offered no
// mcp_connect: capability mode's (--tools search), whose invoke_tool
// cannot reach a lazy server's tools. For those it says what would: the
// config without "lazy", the server without --tools search, or ask.
func (h *Host) UnknownToolNoConnect(name string) error {
	return &sdk.UnknownToolError{Tool: name, Why: h.whyUnknown(name, false, false)}
}

// whyUnknown is why the caller lacks the tool; connect says it is offered
// mcp_connect.
func (h *Host) whyUnknown(name string, agent, connect bool) string {
	if e, ok := h.catalog.Get(name); ok {
		return h.uncallable(e, agent)
	}
	if why, ok := h.whyUnknownUpstream(name, connect); ok {
		return why
	}
	if why := h.whyUnmounted(name, agent); why != "" {
		return why
	}
	if why, ok := h.cfg.NotMounted[name]; ok {
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
	if near, ok := schema.NearestName(name, names); ok {
		return fmt.Sprintf("no tool has that name; did you mean %s?", near)
	}
	return "no tool has that name"
}

// whyUnmounted says why a tool of a plugin that is not running, none of
// its groups mounted (--web=false leaves the web group out, say), is not
// callable: the serving policy's reason, as for a tool in the catalog.
// "" when no such plugin has the tool.
func (h *Host) whyUnmounted(name string, agent bool) string {
	h.mu.Lock()
	var plugins []unmountedPlugin
	for _, u := range h.unmounted {
		plugins = append(plugins, u)
	}
	h.mu.Unlock()
	// A bundled group opted out whole (--groups -web) was never started:
	// its description is the binary's own.
	for _, name := range h.cfg.Bundled.Names() {
		if h.policy.OptOut[name] {
			if d, err := h.cfg.Bundled.Describe(name, h.launchConfig().Host); err == nil {
				plugins = append(plugins, unmountedPlugin{src: supervise.Source{Name: name, Bundled: true}, desc: d})
			}
		}
	}
	for _, u := range plugins {
		if u.desc == nil {
			continue
		}
		for _, g := range u.desc.Groups {
			for _, t := range g.Tools {
				if t.Name == name {
					e := &catalog.Entry{Spec: t, Group: g.Name, GroupMode: g.Mode, ReplacedBy: g.ReplacedBy, Plugin: u.src.Name, From: provenance(u.src)}
					return h.uncallable(e, agent)
				}
			}
		}
	}
	return ""
}

// whyUnknownUpstream says why a configured upstream server's tool
// (<server>__<tool>) is not in the catalog; ok is false for a name no
// configured server would give.
func (h *Host) whyUnknownUpstream(name string, connect bool) (why string, ok bool) {
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
		if ok, why := h.policy.ServerMounted(id); !ok {
			return why, true
		}
		if l := h.up.links[id]; l != nil {
			for _, held := range l.Held() {
				if held.Namespaced == name || held.Tool == tool {
					return held.Reason(id), true
				}
			}
		}
		if !s.Allows(tool) {
			return fmt.Sprintf("the config's allow and deny lists for MCP server %q leave it out", id), true
		}
		if s.Lazy {
			return h.whyLazy(s, connect), true
		}
		return fmt.Sprintf("MCP server %q lists no tool %q", id, tool), true
	}
	return "", false
}

// whyLazy says why the caller lacks a tool of the lazy server s, which it
// has not connected (a conversation that did asks its UpstreamSession):
// it is to connect it first, or, offered no mcp_connect (connect false:
// capability mode), what would reach the server instead.
func (h *Host) whyLazy(s upstream.Server, connect bool) string {
	if connect {
		return fmt.Sprintf(`MCP server %q is not connected: call %s with {"id": %q} first`, s.ID, upstream.ConnectToolName, s.ID)
	}
	why := fmt.Sprintf(`MCP server %q is lazy, and lazy servers are out of reach under --tools search, which offers no %s; `+
		`serve its tools by removing "lazy": true from its entry in the MCP config, or start the server without --tools search and connect it with %s`,
		s.ID, upstream.ConnectToolName, upstream.ConnectToolName)
	if h.AskServed() {
		why += "; or leave the task to ask, whose agent connects lazy servers for its own turn"
	}
	return why
}

// AskServed reports whether the client may call ask, whose agent has
// mcp_connect of its own.
func (h *Host) AskServed() bool {
	e, ok := h.catalog.Get("ask")
	return ok && e.InHostGroup(AgentGroup) && h.callable(e, false)
}

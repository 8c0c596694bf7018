package host

import (
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ramabana/ramabana-mcp/sdk"
	"github.com/ramabana/ramabana-mcp/upstream"
)

// UnknownTool is the error for a call of the tool called name that the
// caller (the client, or with agent an ask turn) may not make: an
// *sdk.UnknownToolError saying why the tool is absent and what would
// mount it: the serving policy's reason (--write, --groups, --web), the
// config's allow and deny lists for an upstream server's tool, a lazy
// server not yet connected (or, connected, the policy's reason for its
// tool), or no tool of that name, with the nearest name the caller has.
// Why is empty for a tool the caller may call.
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
	if why, ok := h.whyUnknownUpstream(name, agent, connect); ok {
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
func (h *Host) whyUnknownUpstream(name string, agent, connect bool) (why string, ok bool) {
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
			return h.whyLazy(s, name, agent, connect), true
		}
		return fmt.Sprintf("MCP server %q lists no tool %q", id, tool), true
	}
	return "", false
}

// whyLazy says why the caller lacks a tool of the lazy server s. Without
// mcp_connect no lazy server is in reach. With it, the host does not know
// which conversation asks, only whether a live one (an MCP session or an
// ask turn) connected the server and was listed the tool: then what keeps
// the tool from the caller is taken to be the serving policy, which leaves
// a write tool out of a read-only server's conversations and a network
// tool out under --web=false, however they connect. Otherwise the caller
// has to connect the server first.
func (h *Host) whyLazy(s upstream.Server, name string, agent, connect bool) string {
	if !connect {
		why := fmt.Sprintf(`MCP server %q is lazy, and lazy servers are out of reach under --tools search, which offers no %s; `+
			`serve its tools by removing "lazy": true from its entry in the MCP config, or start the server without --tools search and connect it with %s`,
			s.ID, upstream.ConnectToolName, upstream.ConnectToolName)
		if h.askServed() {
			why += "; or leave the task to ask, whose agent connects lazy servers for its own turn"
		}
		return why
	}
	if h.lazyListed(s.ID, name) {
		if why := h.withheldUpstream(s, name, agent); why != "" {
			return why
		}
	}
	return fmt.Sprintf(`MCP server %q is not connected: call %s with {"id": %q} first`, s.ID, upstream.ConnectToolName, s.ID)
}

// lazyListed reports whether a live conversation's mcp_connect listed the
// tool of the lazy server id (indexSession).
func (h *Host) lazyListed(id, name string) bool {
	h.search.mu.Lock()
	defer h.search.mu.Unlock()
	lt := h.search.lazy[id]
	return lt != nil && lt.refs[name] > 0
}

// withheldUpstream is why the serving policy would leave the tool of s out
// for the caller, in the policy's words: a write tool's reason, a network
// tool's, or either's when both could be; "" when it would leave out
// neither.
func (h *Host) withheldUpstream(s upstream.Server, name string, agent bool) string {
	// The tool as a write tool that stays off the network, then as a
	// read tool that reaches it: each meets one rule alone.
	closed, open := false, true
	asWrite := UpstreamEntry(s, upstream.Tool{Namespaced: name, Annotations: &mcp.ToolAnnotations{OpenWorldHint: &closed}}, nil)
	asNetwork := UpstreamEntry(s, upstream.Tool{Namespaced: name, Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: &open}}, nil)
	write, network := h.uncallable(asWrite, agent), h.uncallable(asNetwork, agent)
	switch {
	case write == "" || write == network:
		return network
	case network == "":
		return write
	}
	return write + ", or " + network
}

// askServed reports whether the client may call ask, whose agent has
// mcp_connect of its own.
func (h *Host) askServed() bool {
	e, ok := h.catalog.Get("ask")
	return ok && e.Group == AgentGroup && h.callable(e, false)
}

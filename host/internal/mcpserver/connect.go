package mcpserver

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ramabana/ramabana-mcp/host/internal/hub"
)

// connectable says whether the session connects lazy upstream servers
// itself (mcp_connect, the hub's): when the config has some, and the
// server keeps a conversation of its own (neither stateless, where each
// request is a session, nor capability mode, which offers no mcp_connect).
func connectable(h *hub.Host, opts Options) bool {
	return len(h.LazyUpstreams()) > 0 && !opts.Stateless && opts.Surface != SurfaceSearch
}

// addConnected adds the tools the session's mcp_connect calls connected
// that the server lacks: each connection adds its server's tools to this
// session only. Their calls take the one call path, as the session's.
func (t *tools) addConnected() {
	t.mu.Lock()
	defer t.mu.Unlock()
	session := t.session
	if session == nil {
		return
	}
	for _, e := range session.Entries() {
		name := e.Spec.Name
		if t.hasLocked(name) {
			continue
		}
		// Under t.mu, as in sync: add counts the change with it.
		if t.add(e, t.handle(name, session.Call)) {
			t.own[name] = true
		}
	}
}

func errorText(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}

func ptr[T any](v T) *T { return &v }

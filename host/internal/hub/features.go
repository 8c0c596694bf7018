package hub

import (
	"context"
	"fmt"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ramabana/ramabana-mcp/host/internal/upstream"
)

// The eager upstream servers' resources, resource templates and prompts,
// namespaced (upstream.NamespaceURI, upstream.Namespace), for the MCP
// server to offer beside the host's own. What leaves through them leaves
// through the MCP edge, and so through the outbound gate like any answer.

// UpstreamFeatures is every served eager server's resources, templates
// and prompts as last listed: the servers in id order, each server's in
// its own order. A server --groups leaves out offers none.
func (h *Host) UpstreamFeatures() upstream.Features {
	var all upstream.Features
	for _, s := range h.upstreamServers() {
		l := h.up.links[s.ID]
		if l == nil {
			continue // lazy: a conversation connects it for its tools
		}
		f := l.Features()
		all.Resources = append(all.Resources, f.Resources...)
		all.Templates = append(all.Templates, f.Templates...)
		all.Prompts = append(all.Prompts, f.Prompts...)
	}
	return all
}

// EagerUpstreams says whether an eager upstream server is served: its
// prompts may come at any time, and the MCP server says it has prompts
// from the start.
func (h *Host) EagerUpstreams() bool { return len(h.up.links) > 0 }

// featureLink is the link of the served eager server id, or an error that
// says why there is none.
func (h *Host) featureLink(id string) (*upstream.Link, error) {
	l := h.up.links[id]
	if l == nil || !h.serverMounted(id) {
		return nil, fmt.Errorf("no MCP server %q serves resources or prompts here", id)
	}
	return l, nil
}

// ReadUpstreamResource reads an upstream server's resource by its
// namespaced URI.
func (h *Host) ReadUpstreamResource(ctx context.Context, uri string) (*mcp.ReadResourceResult, error) {
	id, own, ok := upstream.SplitURI(uri)
	if !ok {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	l, err := h.featureLink(id)
	if err != nil {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	return l.ReadResource(ctx, own)
}

// GetUpstreamPrompt gets an upstream server's prompt by its namespaced
// name.
func (h *Host) GetUpstreamPrompt(ctx context.Context, name string, args map[string]string) (*mcp.GetPromptResult, error) {
	id, _, ok := upstream.SplitName(name)
	if !ok {
		return nil, fmt.Errorf("unknown prompt %q", name)
	}
	l, err := h.featureLink(id)
	if err != nil {
		return nil, err
	}
	return l.GetPrompt(ctx, name, args)
}

// upstreamSubs counts the MCP sessions subscribed to each upstream
// resource, by namespaced URI: the server is asked to subscribe for the
// first and to unsubscribe after the last.
type upstreamSubs struct {
	mu      sync.Mutex // held across a subscribe's round trip
	count   map[string]int
	started map[string]bool // links whose updates are forwarded

	// watchMu guards the watchers alone: an update arrives on a server's
	// message loop, which a subscribe holding mu may be waiting on.
	watchMu sync.Mutex
	next    int
	watch   map[int]func(uri string)
}

// SubscribeUpstream subscribes to an upstream server's resource (its
// namespaced URI) for one more MCP session.
func (h *Host) SubscribeUpstream(ctx context.Context, uri string) error {
	id, own, ok := upstream.SplitURI(uri)
	if !ok {
		return mcp.ResourceNotFoundError(uri)
	}
	l, err := h.featureLink(id)
	if err != nil {
		return mcp.ResourceNotFoundError(uri)
	}
	s := &h.up.subs
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.count == nil {
		s.count, s.started = map[string]int{}, map[string]bool{}
	}
	if !s.started[id] {
		s.started[id] = true
		l.SetOnResourceUpdated(h.upstreamResourceUpdated)
	}
	if s.count[uri] == 0 {
		if err := l.Subscribe(ctx, own); err != nil {
			return err
		}
	}
	s.count[uri]++
	return nil
}

// UnsubscribeUpstream ends one MCP session's subscription.
func (h *Host) UnsubscribeUpstream(ctx context.Context, uri string) {
	id, own, ok := upstream.SplitURI(uri)
	if !ok {
		return
	}
	s := &h.up.subs
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.count[uri] == 0 {
		return
	}
	s.count[uri]--
	if s.count[uri] == 0 {
		delete(s.count, uri)
		if l := h.up.links[id]; l != nil {
			// The client's listen may have ended with ctx: the server is
			// told all the same.
			if err := l.Unsubscribe(context.WithoutCancel(ctx), own); err != nil {
				h.logger.Debug("MCP server unsubscribe", "mcp_server", id, "uri", own, "error", err)
			}
		}
	}
}

// OnUpstreamResourceUpdated calls fn with the namespaced URI of each
// upstream resource a server says was updated; the returned function
// stops it. fn must not block.
func (h *Host) OnUpstreamResourceUpdated(fn func(uri string)) (stop func()) {
	s := &h.up.subs
	s.watchMu.Lock()
	defer s.watchMu.Unlock()
	if s.watch == nil {
		s.watch = map[int]func(string){}
	}
	s.next++
	id := s.next
	s.watch[id] = fn
	return func() {
		s.watchMu.Lock()
		defer s.watchMu.Unlock()
		delete(s.watch, id)
	}
}

func (h *Host) upstreamResourceUpdated(uri string) {
	s := &h.up.subs
	s.watchMu.Lock()
	fns := make([]func(string), 0, len(s.watch))
	for _, fn := range s.watch {
		fns = append(fns, fn)
	}
	s.watchMu.Unlock()
	for _, fn := range fns {
		fn(uri)
	}
}

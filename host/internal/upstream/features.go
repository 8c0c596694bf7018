package upstream

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// An upstream server's resources, resource templates and prompts pass
// through like its tools, namespaced:
//
//   - a resource's URI U (and a template's URI template) becomes
//     mcp://<id>/U: the server's id as the authority, U whole after it
//     (NamespaceURI, SplitURI). Read back, the prefix is taken off and U
//     is what the server is asked for.
//   - a prompt's name P becomes <id>__P, as a tool's does (Namespace).
//   - names (a resource's and a template's name, a prompt's) pass the
//     server's allow and deny lists as tool names do.

// URIPrefix starts every upstream resource's URI.
const URIPrefix = "mcp://"

// NamespaceURI is the URI (or URI template) under which server id's
// resource uri is offered.
func NamespaceURI(id, uri string) string { return URIPrefix + id + "/" + uri }

// SplitURI undoes NamespaceURI; ok is false for a URI it did not make.
func SplitURI(namespaced string) (id, uri string, ok bool) {
	rest, ok := strings.CutPrefix(namespaced, URIPrefix)
	if !ok {
		return "", "", false
	}
	id, uri, ok = strings.Cut(rest, "/")
	if !ok || !ValidID(id) || uri == "" {
		return "", "", false
	}
	return id, uri, true
}

// Features are what a server offers beside its tools, namespaced, in the
// server's order.
type Features struct {
	Resources []*mcp.Resource
	Templates []*mcp.ResourceTemplate
	Prompts   []*mcp.Prompt
	// PromptNames maps each prompt's namespaced name to the server's own:
	// a name Namespace shortened is not the server's after the "__".
	PromptNames map[string]string
	// Subscribe says the server takes resources/subscribe.
	Subscribe bool
}

// features lists what the server offers beside its tools, as its
// capabilities say it does, following each list's cursors as Tools does
// (at most MaxToolPages pages, no cursor twice). What the allow and deny
// lists leave out is left out. A list that fails is an error; the
// caller keeps the others.
func (c *Conn) features(ctx context.Context) (Features, error) {
	var f Features
	init := c.session.InitializeResult()
	if init == nil || init.Capabilities == nil {
		return f, nil
	}
	caps := init.Capabilities
	var errs []error
	id := c.server.ID
	if caps.Resources != nil {
		f.Subscribe = caps.Resources.Subscribe
		rs, err := pages(func(cur string) ([]*mcp.Resource, string, error) {
			res, err := c.session.ListResources(ctx, &mcp.ListResourcesParams{Cursor: cur})
			if err != nil {
				return nil, "", err
			}
			return res.Resources, res.NextCursor, nil
		})
		errs = append(errs, err)
		for _, r := range rs {
			if r == nil || r.URI == "" || !c.server.Allows(r.Name) {
				continue
			}
			cp := *r
			cp.URI = NamespaceURI(id, r.URI)
			f.Resources = append(f.Resources, &cp)
		}
		ts, err := pages(func(cur string) ([]*mcp.ResourceTemplate, string, error) {
			res, err := c.session.ListResourceTemplates(ctx, &mcp.ListResourceTemplatesParams{Cursor: cur})
			if err != nil {
				return nil, "", err
			}
			return res.ResourceTemplates, res.NextCursor, nil
		})
		errs = append(errs, err)
		for _, t := range ts {
			if t == nil || t.URITemplate == "" || !c.server.Allows(t.Name) {
				continue
			}
			cp := *t
			cp.URITemplate = NamespaceURI(id, t.URITemplate)
			f.Templates = append(f.Templates, &cp)
		}
	}
	if caps.Prompts != nil {
		ps, err := pages(func(cur string) ([]*mcp.Prompt, string, error) {
			res, err := c.session.ListPrompts(ctx, &mcp.ListPromptsParams{Cursor: cur})
			if err != nil {
				return nil, "", err
			}
			return res.Prompts, res.NextCursor, nil
		})
		errs = append(errs, err)
		f.PromptNames = map[string]string{}
		for _, p := range ps {
			if p == nil || p.Name == "" || !c.server.Allows(p.Name) {
				continue
			}
			cp := *p
			cp.Name = Namespace(id, p.Name)
			if other, taken := f.PromptNames[cp.Name]; taken {
				c.log.Warn("upstream prompt left out: its name is another prompt's", "prompt", p.Name, "name", cp.Name, "other", other)
				continue
			}
			f.PromptNames[cp.Name] = p.Name
			f.Prompts = append(f.Prompts, &cp)
		}
	}
	return f, c.redact(errors.Join(errs...))
}

// pages follows a list's cursors: only an absent nextCursor ends it.
func pages[T any](list func(cursor string) ([]T, string, error)) ([]T, error) {
	var all []T
	used := map[string]bool{}
	cursor := ""
	for page := 1; page <= MaxToolPages; page++ {
		items, next, err := list(cursor)
		if err != nil {
			return all, err
		}
		all = append(all, items...)
		if next == "" {
			return all, nil
		}
		if used[next] || next == cursor {
			return all, fmt.Errorf("page %d repeats cursor %s", page, shownCursor(next))
		}
		used[next] = true
		cursor = next
	}
	return all, fmt.Errorf("more than %d pages", MaxToolPages)
}

// ReadResource reads the server's resource uri (its own URI, not
// namespaced). The contents' URIs that are the server's come back
// namespaced.
func (c *Conn) ReadResource(ctx context.Context, uri string) (*mcp.ReadResourceResult, error) {
	res, err := c.session.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		return nil, c.redact(err)
	}
	for i, rc := range res.Contents {
		if rc != nil && rc.URI != "" {
			cp := *rc
			cp.URI = NamespaceURI(c.server.ID, rc.URI)
			res.Contents[i] = &cp
		}
	}
	return res, nil
}

// GetPrompt gets the server's prompt name (its own name) with args.
func (c *Conn) GetPrompt(ctx context.Context, name string, args map[string]string) (*mcp.GetPromptResult, error) {
	res, err := c.session.GetPrompt(ctx, &mcp.GetPromptParams{Name: name, Arguments: args})
	return res, c.redact(err)
}

// Subscribe asks the server to tell of changes to its resource uri (its
// own URI), and returns once the server has taken the subscription. Under
// the protocol versions whose subscriptions are a subscriptions/listen
// stream, the SDK's Subscribe returns as soon as the request is sent: an
// update the server makes before it has read it would be lost, so the
// server's acknowledgement is waited for (ctx bounds the wait).
func (c *Conn) Subscribe(ctx context.Context, uri string) error {
	acked := make(chan struct{})
	c.acksMu.Lock()
	if c.acks == nil {
		c.acks = map[string][]chan struct{}{}
	}
	c.acks[uri] = append(c.acks[uri], acked)
	c.acksMu.Unlock()
	defer func() {
		c.acksMu.Lock()
		c.acks[uri] = slices.DeleteFunc(c.acks[uri], func(ch chan struct{}) bool { return ch == acked })
		if len(c.acks[uri]) == 0 {
			delete(c.acks, uri)
		}
		c.acksMu.Unlock()
	}()
	if err := c.session.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}); err != nil {
		return c.redact(err)
	}
	if init := c.session.InitializeResult(); init == nil || init.ProtocolVersion < streamedSubscriptions {
		return nil // resources/subscribe: answered once taken
	}
	select {
	case <-acked:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("MCP server %q did not acknowledge the subscription to %s: %w", c.server.ID, uri, ctx.Err())
	case <-c.done:
		return fmt.Errorf("MCP server %q: the connection ended before the subscription to %s was acknowledged", c.server.ID, uri)
	}
}

// streamedSubscriptions is the first protocol version whose resource
// subscriptions are a subscriptions/listen stream, acknowledged by a
// notification rather than answered.
const streamedSubscriptions = "2026-07-28"

// watchAcks is the client's receiving middleware that tells Subscribe of
// the server's acknowledgements.
func (c *Conn) watchAcks(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method == "notifications/subscriptions/acknowledged" {
			if p, ok := req.GetParams().(*mcp.SubscriptionsAcknowledgedParams); ok && p != nil {
				c.acksMu.Lock()
				for _, uri := range p.Notifications.ResourceSubscriptions {
					for _, ch := range c.acks[uri] {
						select {
						case <-ch:
						default:
							close(ch)
						}
					}
				}
				c.acksMu.Unlock()
			}
		}
		return next(ctx, method, req)
	}
}

func (c *Conn) Unsubscribe(ctx context.Context, uri string) error {
	return c.redact(c.session.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: uri}))
}

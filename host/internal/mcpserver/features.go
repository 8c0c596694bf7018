package mcpserver

import (
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ramabana/ramabana-mcp/host/internal/upstream"
)

// upstreamFeatures are the eager upstream servers' resources, resource
// templates and prompts as this MCP server offers them, by namespaced URI,
// URI template and name, each as the JSON it was added from, so that a
// re-listing that changed nothing changes nothing (and the SDK sends no
// list_changed).
type upstreamFeatures struct {
	resources, templates, prompts map[string]string
}

// syncUpstream makes the server offer what the host's upstream servers
// offer now (hub.UpstreamFeatures): gone ones removed, new and changed
// ones added. The SDK sends resources/list_changed and
// prompts/list_changed. r.flushMu is held.
func (r *resources) syncUpstream() {
	f := r.host.UpstreamFeatures()
	u := &r.upstream
	if u.resources == nil {
		u.resources, u.templates, u.prompts = map[string]string{}, map[string]string{}, map[string]string{}
	}
	s := r.server
	want := map[string]string{}
	for _, res := range f.Resources {
		b, _ := json.Marshal(res)
		if u.resources[res.URI] == string(b) || sdkAdds(r.logger, "resource", res.URI, func() { s.AddResource(res, r.readUpstream) }) {
			want[res.URI] = string(b)
		}
	}
	for uri := range u.resources {
		if _, ok := want[uri]; !ok {
			s.RemoveResources(uri)
		}
	}
	u.resources = want

	want = map[string]string{}
	for _, t := range f.Templates {
		b, _ := json.Marshal(t)
		if u.templates[t.URITemplate] == string(b) || sdkAdds(r.logger, "resource template", t.URITemplate, func() { s.AddResourceTemplate(t, r.readUpstream) }) {
			want[t.URITemplate] = string(b)
		}
	}
	for uri := range u.templates {
		if _, ok := want[uri]; !ok {
			s.RemoveResourceTemplates(uri)
		}
	}
	u.templates = want

	want = map[string]string{}
	for _, p := range f.Prompts {
		b, _ := json.Marshal(p)
		if u.prompts[p.Name] == string(b) || sdkAdds(r.logger, "prompt", p.Name, func() { s.AddPrompt(p, r.getPrompt) }) {
			want[p.Name] = string(b)
		}
	}
	for name := range u.prompts {
		if _, ok := want[name]; !ok {
			s.RemovePrompts(name)
		}
	}
	u.prompts = want
}

// syncOnList brings the upstream servers' resources and prompts up to
// date before the SDK answers a list of them, or looks one up (a client
// may read a URI it knows without listing first).
func (r *resources) syncOnList(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch method {
		case "resources/list", "resources/templates/list", "prompts/list", "resources/read", "prompts/get", "resources/subscribe":
			r.flushMu.Lock()
			r.syncUpstream()
			r.flushMu.Unlock()
		}
		return next(ctx, method, req)
	}
}

// readUpstream reads an upstream server's resource for the client.
func (r *resources) readUpstream(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	return r.host.ReadUpstreamResource(ctx, req.Params.URI)
}

// getPrompt gets an upstream server's prompt for the client.
func (r *resources) getPrompt(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	return r.host.GetUpstreamPrompt(ctx, req.Params.Name, req.Params.Arguments)
}

// isUpstreamURI says whether uri is an upstream server's resource.
func isUpstreamURI(uri string) bool {
	_, _, ok := upstream.SplitURI(uri)
	return ok
}

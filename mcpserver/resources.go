package mcpserver

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ramabana/ramabana-mcp/host"
)

// Resource URIs.
const (
	SkillsURI   = "ramabana://skills"
	SkillURI    = "skill://{name}"
	StatusURI   = "ramabana://status"
	skillPrefix = "skill://"
)

// addResources serves the skills index, each skill, and the status.
func addResources(s *mcp.Server, h *host.Host) {
	s.AddResource(&mcp.Resource{
		URI: SkillsURI, Name: "skills", Title: "Skills",
		Description: "Every skill this server knows, one line each: its name and when it applies. Read skill://{name} for one in full.",
		MIMEType:    "text/markdown",
	}, func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return textResource(req.Params.URI, "text/markdown", h.Skills().Markdown()), nil
	})
	s.AddResourceTemplate(&mcp.ResourceTemplate{
		URITemplate: SkillURI, Name: "skill", Title: "A skill",
		Description: "One skill in full: its SKILL.md, front matter included.",
		MIMEType:    "text/markdown",
	}, func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		text, ok, err := h.ReadSkill(ctx, strings.TrimPrefix(req.Params.URI, skillPrefix))
		switch {
		case err != nil:
			return nil, err
		case !ok:
			return nil, mcp.ResourceNotFoundError(req.Params.URI)
		}
		return textResource(req.Params.URI, "text/markdown", text), nil
	})
	s.AddResource(&mcp.Resource{
		URI: StatusURI, Name: "status", Title: "Server status",
		Description: "JSON: the served folders, the mounted groups and their tools, plugin health (pid, restarts, last error), skills, the transport, the command sandbox (Landlock, reaping, capabilities), and the ask agent's status when there is one.",
		MIMEType:    "application/json",
	}, func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		b, err := json.MarshalIndent(h.Status(), "", "  ")
		if err != nil {
			return nil, err
		}
		return textResource(req.Params.URI, "application/json", string(b)), nil
	})
}

func textResource(uri, mime, text string) *mcp.ReadResourceResult {
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: mime, Text: text}}}
}

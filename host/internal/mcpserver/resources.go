package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ramabana/ramabana-mcp/host/internal/hub"
	"github.com/ramabana/ramabana-mcp/internal/skills"
)

// Resource URIs.
const (
	SkillsURI   = "ramabana://skills"
	SkillURI    = "skill://{name}"
	StatusURI   = "ramabana://status"
	skillPrefix = "skill://"
)

// resources serves the skills index, each skill, and the status for one
// MCP server. Each skill is listed as a resource of its own too
// (skill://<name>), so that resources/list changes, and the SDK sends
// notifications/resources/list_changed, as skills come and go. Clients may
// subscribe to the index, the status and each listed skill
// (subscribe.go), and complete a skill's name in skill://{name}
// (complete.go).
type resources struct {
	server *mcp.Server
	host   *hub.Host
	logger *slog.Logger

	mu      sync.Mutex
	subs    map[string]map[*mcp.ServerSession]bool // subscribed URIs, by session
	pending hub.Change                             // told by the host, not yet handled
	timer   *time.Timer                            // runs flush; nil when nothing is pending
	ended   bool                                   // the session ended: nothing more is sent

	upUpdated map[string]bool // upstream resources updated, not yet told (subscribe.go)
	upTelling bool            // a goroutine tells them

	// flushMu makes one flush (or subscribe) at a time read the host and
	// update what was last told.
	flushMu sync.Mutex
	listed  map[string]listedSkill // the skills listed as resources, by name
	index   string                 // the skills index (ramabana://skills) as last seen
	status  []byte                 // the status as last told to its subscribers

	upstream upstreamFeatures // the upstream servers' resources and prompts offered (features.go)
}

// listedSkill is what a listed skill resource was made from.
type listedSkill struct {
	description string
	fingerprint string // changes when the skill's text may have
}

func newResources(h *hub.Host, logger *slog.Logger) *resources {
	return &resources{host: h, logger: logger, subs: map[string]map[*mcp.ServerSession]bool{}, listed: map[string]listedSkill{}}
}

// add serves the skills index, each skill, and the status on r.server.
func (r *resources) add() {
	s, h := r.server, r.host
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
	}, r.readSkill)
	s.AddResource(&mcp.Resource{
		URI: StatusURI, Name: "status", Title: "Server status",
		Description: "JSON: the served folders, the mounted groups and their tools, plugin health (pid, restarts, last error), skills, the transport, the command sandbox (Landlock, reaping, capabilities), and the ask agent's status when there is one.",
		MIMEType:    "application/json",
	}, func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		b, err := r.statusJSON()
		if err != nil {
			return nil, err
		}
		return textResource(req.Params.URI, "application/json", string(b)), nil
	})
	r.flushMu.Lock()
	defer r.flushMu.Unlock()
	_, r.index = r.syncSkills()
	r.syncUpstream()
}

// readSkill reads skill://<name>, listed or not.
func (r *resources) readSkill(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	text, ok, err := r.host.ReadSkill(ctx, strings.TrimPrefix(req.Params.URI, skillPrefix))
	switch {
	case err != nil:
		return nil, err
	case !ok:
		return nil, mcp.ResourceNotFoundError(req.Params.URI)
	}
	return textResource(req.Params.URI, "text/markdown", text), nil
}

// statusJSON is the status as JSON, without HTML escapes: the outbound
// gate reads the text as the client will, and "\u003cjane@acme.io\u003e"
// would hide an address's start from it.
func (r *resources) statusJSON() ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(r.host.Status()); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// syncSkills lists every skill the host has now as a resource, and takes
// away those it no longer has; the SDK then tells the client that the
// list changed. It returns the names of the skills that came, went or
// may read otherwise, and the skills index now. The caller holds flushMu.
func (r *resources) syncSkills() (changed []string, index string) {
	ix, tools := r.host.SkillLibrary()
	want := map[string]listedSkill{}
	for _, s := range ix.List() {
		fp := string(s.Source) + "\x00" + s.Path + "\x00" + s.Content
		if s.Source == skills.Plugin {
			if e := tools[s.Name]; e != nil {
				fp += "\x00" + e.Plugin + "\x00" + e.Spec.Name
			}
		}
		want[s.Name] = listedSkill{description: s.Description, fingerprint: fp}
	}
	var gone []string
	for name := range r.listed {
		if _, ok := want[name]; !ok {
			gone = append(gone, skillPrefix+name)
			changed = append(changed, name)
			delete(r.listed, name)
		}
	}
	if len(gone) > 0 {
		r.server.RemoveResources(gone...)
	}
	for name, s := range want {
		old, ok := r.listed[name]
		if !ok || old.description != s.description {
			r.server.AddResource(&mcp.Resource{
				URI: skillPrefix + name, Name: name, Description: s.description, MIMEType: "text/markdown",
			}, r.readSkill)
		}
		if !ok || old.fingerprint != s.fingerprint {
			changed = append(changed, name)
		}
		r.listed[name] = s
	}
	return changed, ix.Markdown()
}

func textResource(uri, mime, text string) *mcp.ReadResourceResult {
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: mime, Text: text}}}
}

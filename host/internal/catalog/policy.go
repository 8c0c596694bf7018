package catalog

import (
	"fmt"
	"strings"

	"github.com/ramabana/ramabana-mcp/host/internal/upstream"
	"github.com/ramabana/ramabana-mcp/internal/schema"
	"github.com/ramabana/ramabana-mcp/sdk"
)

// Policy decides which catalog entries are mounted.
type Policy struct {
	// Write mounts write tools for the client. Read and act tools are always
	// mounted.
	Write bool
	// Web allows open-world tools (those whose hints say they reach the
	// network; a group's name decides nothing).
	Web bool
	// OptIn names opt-in groups to mount; OptOut names groups to leave out.
	OptIn, OptOut map[string]bool
	// Agent is true when an agent is configured: legacy groups are left out.
	Agent bool
	// Builtin names the groups a plain name in OptIn and OptOut means
	// when an upstream server has it for its id too: the bundled groups
	// and the host's own. Such a server is named ServerPrefix+id.
	Builtin map[string]bool
}

// ServerPrefix names an upstream server in --groups: "mcp:ID" is always
// the server ID, where a plain "ID" is the server only when no built-in
// group is called ID (Policy.Builtin): the reference servers are often
// configured as "git" or "memory", and "-git" keeps meaning the bundled
// git group.
const ServerPrefix = "mcp:"

// ParseGroups reads the --groups list: "name" opts a group in, "-name" opts
// it out; a name is a group's, an upstream server's id, or ServerPrefix and
// a server's id.
func ParseGroups(list []string) (optIn, optOut map[string]bool, err error) {
	optIn, optOut = map[string]bool{}, map[string]bool{}
	for _, g := range list {
		g = strings.TrimSpace(g)
		if g == "" {
			continue
		}
		name, out := strings.CutPrefix(g, "-")
		name = strings.TrimPrefix(name, "+")
		if id, server := strings.CutPrefix(name, ServerPrefix); server && !upstream.ValidID(id) || !server && !schema.ValidName(name) && !upstream.ValidID(name) {
			return nil, nil, fmt.Errorf("--groups: %q is not a group name nor %sID for an MCP server", g, ServerPrefix)
		}
		if out {
			optOut[name] = true
		} else {
			optIn[name] = true
		}
	}
	for name := range optIn {
		if optOut[name] {
			return nil, nil, fmt.Errorf("--groups: %q is both opted in and out", name)
		}
	}
	return optIn, optOut, nil
}

// Mounted reports whether the client sees the entry, and if not, why, in
// words that name the flag that would mount it: the reason a call of a
// tool the client does not see is refused with.
func (p Policy) Mounted(e *Entry) (bool, string) {
	if ok, why := p.MountedForAgent(e); !ok {
		return false, why
	}
	if e.Spec.Kind == sdk.KindWrite && !p.Write {
		return false, "a write tool: this server runs read-only; start it with --write"
	}
	return true, ""
}

// MountedForAgent is Mounted for an ask turn: write tools are mounted
// without --write (--write decides what the client calls directly; the
// user who configures an agent lets its turns write), the rest is the
// client's rule.
func (p Policy) MountedForAgent(e *Entry) (bool, string) {
	if ok, why := p.EntryGroupMounted(e); !ok {
		return false, why
	}
	if !p.Web && e.Hints().OpenWorld {
		return false, "a network tool: this server runs with --web=false; start it without that"
	}
	return true, ""
}

// AnyGroupMounted reports whether any group of a plugin can be mounted; a
// plugin with none need not run. Without the web, a group whose every
// tool is open-world (image) has nothing to serve.
func (p Policy) AnyGroupMounted(d *sdk.Description) bool {
	for _, g := range d.Groups {
		if ok, _ := p.GroupMounted(g.Name, g.Mode); ok && (p.Web || !allOpenWorld(g.Tools)) {
			return true
		}
	}
	return false
}

// allOpenWorld reports whether there are tools and each is open-world.
func allOpenWorld(tools []sdk.ToolSpec) bool {
	for _, t := range tools {
		if !t.Hints().OpenWorld {
			return false
		}
	}
	return len(tools) > 0
}

// EntryGroupMounted is GroupMounted for the entry's group, or
// ServerMounted for an upstream server's tool.
func (p Policy) EntryGroupMounted(e *Entry) (bool, string) {
	if e.Upstream != nil {
		return p.ServerMounted(e.Upstream.Server)
	}
	ok, why := p.GroupMounted(e.Group, e.GroupMode)
	if ok && e.GroupMode == sdk.ModeLegacy {
		// A legacy group answers through what replaced it: with that
		// opted out, so is the group.
		for _, r := range ReplacedBy(e.ReplacedBy) {
			if p.OptOut[r] {
				return false, fmt.Sprintf("its group %q is legacy, served through %s, which --groups -%s leaves out", e.Group, r, r)
			}
		}
	}
	if !ok && e.GroupMode == sdk.ModeLegacy && e.ReplacedBy != "" {
		why += fmt.Sprintf("; use %s instead", e.ReplacedBy)
	}
	return ok, why
}

// ReplacedBy are the names in a legacy group's replaced_by: group or tool
// names, separated by commas.
func ReplacedBy(s string) []string {
	var out []string
	for _, r := range strings.Split(s, ",") {
		if r = strings.TrimSpace(r); r != "" {
			out = append(out, r)
		}
	}
	return out
}

// ServerMounted reports whether --groups leaves the upstream server id
// in, and if not, why: "-mcp:ID" leaves it out, and so does "-ID" unless
// a built-in group is called ID.
func (p Policy) ServerMounted(id string) (bool, string) {
	switch {
	case p.OptOut[ServerPrefix+id]:
		return false, fmt.Sprintf("its MCP server %q is opted out with --groups -%s%s; start it without that", id, ServerPrefix, id)
	case p.OptOut[id] && !p.Builtin[id]:
		return false, fmt.Sprintf("its MCP server %q is opted out with --groups -%s; start it without that", id, id)
	}
	return true, ""
}

// GroupMounted reports whether a group of the given mode is mounted, and
// if not, why, in words that name the flag that would mount it.
func (p Policy) GroupMounted(group string, mode sdk.GroupMode) (bool, string) {
	switch {
	case p.OptOut[group]:
		return false, fmt.Sprintf("its group %q is opted out with --groups -%s; start it without that", group, group)
	case mode == sdk.ModeOptIn && !p.OptIn[group]:
		return false, fmt.Sprintf("its group %q is opt-in; start the server with --groups %s", group, group)
	case mode == sdk.ModeLegacy && p.Agent:
		return false, fmt.Sprintf("its group %q is legacy, left out when an agent is configured", group)
	}
	return true, ""
}

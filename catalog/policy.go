package catalog

import (
	"fmt"
	"strings"

	"github.com/ramabana/ramabana-mcp/sdk"
)

// Policy decides which catalog entries are mounted.
type Policy struct {
	// Write mounts write tools for the client. Read and act tools are always
	// mounted.
	Write bool
	// Web allows open-world tools (and the web group).
	Web bool
	// OptIn names opt-in groups to mount; OptOut names groups to leave out.
	OptIn, OptOut map[string]bool
	// Agent is true when an agent is configured: legacy groups are left out.
	Agent bool
}

// ParseGroups reads the --groups list: "name" opts a group in, "-name" opts
// it out.
func ParseGroups(list []string) (optIn, optOut map[string]bool, err error) {
	optIn, optOut = map[string]bool{}, map[string]bool{}
	for _, g := range list {
		g = strings.TrimSpace(g)
		if g == "" {
			continue
		}
		name, out := strings.CutPrefix(g, "-")
		name = strings.TrimPrefix(name, "+")
		if !sdk.ValidName(name) {
			return nil, nil, fmt.Errorf("--groups: %q is not a group name", g)
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

// Mounted reports whether the client sees the entry, and if not, why.
func (p Policy) Mounted(e *Entry) (bool, string) {
	if ok, why := p.GroupMounted(e.Group, e.GroupMode); !ok {
		return false, why
	}
	if !p.Web && e.Hints().OpenWorld {
		return false, "reaches the network; serve with --web"
	}
	if e.Spec.Kind == sdk.KindWrite && !p.Write {
		return false, "write tool; serve with --write"
	}
	return true, ""
}

// AnyGroupMounted reports whether any group of a plugin can be mounted; a
// plugin with none need not run.
func (p Policy) AnyGroupMounted(d *sdk.Description) bool {
	for _, g := range d.Groups {
		if ok, _ := p.GroupMounted(g.Name, g.Mode); ok {
			return true
		}
	}
	return false
}

// GroupMounted reports whether a group of the given mode is mounted, and
// if not, why, in words that name the flag that would mount it.
func (p Policy) GroupMounted(group string, mode sdk.GroupMode) (bool, string) {
	switch {
	case p.OptOut[group]:
		return false, fmt.Sprintf("group %q opted out", group)
	case mode == sdk.ModeOptIn && !p.OptIn[group]:
		return false, fmt.Sprintf("opt-in group %q; serve with --groups %s", group, group)
	case mode == sdk.ModeLegacy && p.Agent:
		return false, fmt.Sprintf("legacy group %q, left out when an agent is configured", group)
	case !p.Web && group == "web":
		return false, "the web group reaches the network; serve with --web"
	}
	return true, ""
}

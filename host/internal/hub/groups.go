package hub

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/ramabana/ramabana-mcp/host/internal/catalog"
	"github.com/ramabana/ramabana-mcp/host/internal/supervise"
	"github.com/ramabana/ramabana-mcp/sdk"
)

// Bundled is the table of the groups compiled into the server's binary.
// Each runs in a process of its own, the binary re-executed as
// `Self plugin serve <name>`; the hub also describes each in-process, as
// its process will, and serves its tools while the process starts. The
// zero value has none.
type Bundled struct {
	// Self is the server's binary.
	Self string
	// Groups makes each bundled group, by name.
	Groups map[string]func() sdk.Group
	// Declares, when set, names the groups each bundled plugin declares
	// (files declares exhash too; a plugin not in it declares only its
	// own name): --groups is checked against them without building every
	// group in-process, which costs more than the rest of a start. The
	// binary's tests check them against each Describe. Nil: each is
	// described to learn them.
	Declares map[string][]string
}

// declared are the groups the bundled plugin name declares.
func (b Bundled) declared(name string) ([]string, error) {
	if b.Declares != nil {
		if gs, ok := b.Declares[name]; ok {
			return gs, nil
		}
		return []string{name}, nil
	}
	d, err := b.Describe(name, sdk.Host{})
	if err != nil {
		return nil, fmt.Errorf("describe bundled group %q: %w", name, err)
	}
	var gs []string
	for _, g := range d.Groups {
		gs = append(gs, g.Name)
	}
	return gs, nil
}

// Names are the bundled groups' names, sorted.
func (b Bundled) Names() []string { return slices.Sorted(maps.Keys(b.Groups)) }

// Describe describes the bundled group name in-process, as its plugin
// process will with the same host context.
func (b Bundled) Describe(name string, host sdk.Host) (*sdk.Description, error) {
	newGroup, ok := b.Groups[name]
	if !ok {
		return nil, fmt.Errorf("no bundled group %q", name)
	}
	return newGroup().Describe(context.Background(), host)
}

// GroupsError is New's error for a --groups list that cannot be served: a
// malformed name, a group both opted in and out, or a name no group has.
// The command line is at fault.
type GroupsError struct{ Err error }

func (e *GroupsError) Error() string { return e.Err.Error() }
func (e *GroupsError) Unwrap() error { return e.Err }

// ownGroups are the hub's own groups, which --groups can name too.
var ownGroups = []string{AgentGroup, SearchGroup, SessionGroup}

// checkGroups checks the names --groups uses against those known before
// any plugin starts: the bundled groups and the groups they declare, the
// hub's own (together the builtin names, which a plain name means when an
// upstream server has it for its id: catalog.Policy.Builtin), the upstream
// server ids with and without catalog.ServerPrefix, and the names of the
// plugins found in the plugin dirs (sources). A name none of them has is an error
// naming the valid ones: a typo such as "exhsh" or "-shel" would otherwise
// be ignored in silence. But a plugin found in a plugin dir may declare
// groups beyond its own name, known only once it has started: with such
// plugins, an unknown name is returned in later instead, with the names
// known, for warnLaterGroups to judge once they have started.
func checkGroups(cfg Config, optIn, optOut map[string]bool, sources []supervise.Source) (later []string, known, builtin map[string]bool, err error) {
	if len(cfg.Groups) == 0 {
		return nil, nil, nil, nil
	}
	builtin = map[string]bool{}
	for _, g := range ownGroups {
		builtin[g] = true
	}
	for _, name := range cfg.Bundled.Names() {
		builtin[name] = true
		groups, err := cfg.Bundled.declared(name)
		if err != nil {
			return nil, nil, nil, err
		}
		for _, g := range groups {
			builtin[g] = true
		}
	}
	known = maps.Clone(builtin)
	for _, s := range cfg.Upstream.Servers() {
		known[s.ID] = true
		known[catalog.ServerPrefix+s.ID] = true
	}
	thirdParty := false
	for _, src := range sources {
		known[src.Name] = true
		thirdParty = thirdParty || !src.Bundled
	}
	var unknown []string
	for _, name := range append(slices.Sorted(maps.Keys(optIn)), slices.Sorted(maps.Keys(optOut))...) {
		if !known[name] {
			unknown = append(unknown, name)
		}
	}
	switch {
	case len(unknown) == 0:
		return nil, nil, builtin, nil
	case thirdParty:
		return unknown, known, builtin, nil
	}
	return nil, nil, nil, &GroupsError{fmt.Errorf("--groups: no group %s; the groups are %s", quoteList(unknown), strings.Join(slices.Sorted(maps.Keys(known)), ", "))}
}

// warnLaterGroups warns about the names of --groups that no started
// plugin declared either: they have no effect.
func (h *Host) warnLaterGroups() {
	if len(h.laterGroups) == 0 {
		return
	}
	all := maps.Clone(h.knownGroups)
	for _, e := range h.catalog.All() {
		all[e.Group] = true
	}
	var unknown []string
	for _, name := range h.laterGroups {
		if !all[name] {
			unknown = append(unknown, name)
		}
	}
	if len(unknown) > 0 {
		h.logger.Warn("--groups names no group: ignored", "unknown", strings.Join(unknown, ","), "groups", strings.Join(slices.Sorted(maps.Keys(all)), ","))
	}
}

func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	return strings.Join(q, ", ")
}

// Package catalog holds every tool the server knows, one entry each (its
// spec, its group, the plugin or source serving it, and its compiled input
// schema), and the serving policy that decides which entries are mounted.
package catalog

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ramabana/ramabana-mcp/internal/schema"
	"github.com/ramabana/ramabana-mcp/sdk"
)

// Caller runs a tool: a plugin process, an upstream server or an in-process
// group.
type Caller interface {
	Call(ctx context.Context, call *sdk.Call, events sdk.Events) (*sdk.Result, error)
}

// ListedCaller is a Caller told the description the call was admitted on.
type ListedCaller interface {
	CallListed(ctx context.Context, listed *sdk.Description, call *sdk.Call, events sdk.Events) (*sdk.Result, error)
}

// Entry is one tool in the catalog: its spec, where it comes from, and the
// resolved input schema that arguments are validated against.
type Entry struct {
	Spec      sdk.ToolSpec
	Group     string
	GroupMode sdk.GroupMode
	// GroupDescription says what the group is for (a plugin group's own
	// words), for search results.
	GroupDescription string
	// ReplacedBy is set for legacy groups.
	ReplacedBy string
	// Plugin is the name of the plugin serving the tool, or the source of
	// an upstream server's tools ("mcp:<id>").
	Plugin string
	// Upstream is set for an upstream MCP server's tool.
	Upstream *Upstream
	// From is where the tool runs, which decides its privileges.
	From Provenance
	// LocalData is the group's own claim that its tools keep data on this
	// machine (sdk.GroupSpec.LocalData): a privilege only when From is
	// Bundled (see Trusted).
	LocalData bool

	caller Caller
	// listed is the description the entry was made from (a plugin's).
	listed *sdk.Description
	// input compiles the input schema at the tool's first call, not when
	// it is listed: a host starts with dozens of tools, or thousands from
	// upstream servers, and a model calls a few. Nil: the source validates
	// its arguments.
	input func() (*schema.Validator, error)
}

// Provenance is where a tool runs. Privileges follow from it, never from
// the name a plugin gives itself or its groups: a third party's plugin that
// calls itself "files" is a third party.
type Provenance int

const (
	// ThirdParty is the zero value, with no privilege: a plugin binary
	// from a plugin dir (one that shadows a bundled group included) or an
	// upstream MCP server.
	ThirdParty Provenance = iota
	// Bundled is a group the server's own binary serves, re-executed as
	// `plugin serve <group>`.
	Bundled
	// InProcess is the host's own code: its session, search and agent
	// groups.
	InProcess
)

func (p Provenance) String() string {
	switch p {
	case Bundled:
		return "bundled"
	case InProcess:
		return "in-process"
	}
	return "third-party"
}

// InHostGroup reports whether the entry is of the host's own in-process
// group called name (search, agent, session): a plugin's group or an
// upstream server that is called so is not, and gets none of its
// treatment.
func (e *Entry) InHostGroup(name string) bool { return e.From == InProcess && e.Group == name }

// Trusted says whether the entry's claims about itself are to be believed:
// it is the server's own code, in-process or as a bundled group.
func (e *Entry) Trusted() bool { return e.From == Bundled || e.From == InProcess }

// KeepsDataLocal says whether the tool may be handed the values behind
// vault placeholders: a read or write tool (an act tool could send them
// anywhere) of a group that says it keeps data on this machine and is
// trusted to say so.
func (e *Entry) KeepsDataLocal() bool {
	return e.From == Bundled && e.LocalData && e.Upstream == nil && e.Spec.Kind != sdk.KindAct
}

// lazyValidator compiles spec's input schema once, when first asked.
func lazyValidator(spec sdk.ToolSpec) func() (*schema.Validator, error) {
	return sync.OnceValues(func() (*schema.Validator, error) { return schema.NewValidator(spec.Name, spec.InputSchema) })
}

// Upstream is what an upstream MCP server's tool keeps of its listing, to
// be re-exported as it came: its annotations (absent hints stay absent)
// and _meta.
type Upstream struct {
	// Server is the server's id.
	Server string
	// Annotations as listed, nil when there were none, except that
	// ReadOnlyHint is true for a server the user's config calls readonly.
	Annotations *mcp.ToolAnnotations
	// Meta is the tool's _meta as listed.
	Meta map[string]any
	// Order is the tool's place in the server's listing (0 first): a
	// server's tools are listed in its order, not by name.
	Order int
	// AbsentHints name the boolean hints Annotations has as false because
	// the server left them out: re-exported, they are left out too.
	AbsentHints []string
}

// NewUpstreamEntry is the entry of an upstream server's tool, for Replace.
// Its arguments are checked against spec's input schema when the schema
// compiles and holds no reference; otherwise the upstream server is left
// to check them: a schema that refers to itself without consuming input
// ({"$ref": "#/properties/a"} at properties/a) would make the validator
// recurse until the host's stack overflows, which no recover catches.
func NewUpstreamEntry(spec sdk.ToolSpec, group, source string, up *Upstream, caller Caller) *Entry {
	e := &Entry{Spec: spec, Group: group, Plugin: source, Upstream: up, caller: caller}
	if !bytes.Contains(spec.InputSchema, []byte(`"$ref"`)) && !bytes.Contains(spec.InputSchema, []byte(`Ref"`)) {
		compile := lazyValidator(spec)
		e.input = func() (*schema.Validator, error) {
			if v, err := compile(); err == nil {
				return v, nil
			}
			return nil, nil // a schema that does not compile: the server checks its arguments
		}
	}
	return e
}

// Hints are the entry's resolved annotations.
func (e *Entry) Hints() sdk.Hints { return e.Spec.Hints() }

// Call runs the entry's tool in its source, with arguments already
// validated.
func (e *Entry) Call(ctx context.Context, call *sdk.Call, events sdk.Events) (*sdk.Result, error) {
	if lc, ok := e.caller.(ListedCaller); ok && e.listed != nil {
		return lc.CallListed(ctx, e.listed, call, events)
	}
	return e.caller.Call(ctx, call, events)
}

// DropNullOptionals is args without the optional arguments sent as null
// that the tool's schema does not allow to be null
// (schema.Validator.DropNullOptionals): they are left out, as meant.
func (e *Entry) DropNullOptionals(args json.RawMessage) json.RawMessage {
	if e.input == nil {
		return args
	}
	if v, err := e.input(); err == nil && v != nil {
		return v.DropNullOptionals(args)
	}
	return args
}

// Validate checks arguments (a JSON object; empty means {}) against the
// entry's input schema. The error names the tool and says what is wrong in
// words a model can act on.
func (e *Entry) Validate(args json.RawMessage) error {
	if e.input == nil {
		return nil
	}
	v, err := e.input()
	if err != nil || v == nil {
		return err
	}
	return v.Validate(args)
}

// Catalog holds every described tool, mounted or not, by name. It is safe
// for concurrent use.
type Catalog struct {
	mu      sync.RWMutex
	entries map[string]*Entry
}

// New returns an empty catalog.
func New() *Catalog { return &Catalog{entries: map[string]*Entry{}} }

// Add adds every tool of a plugin's description, or none: a description
// that fails sdk.Description.Validate (ValidateUncompiled for the server's
// own code, Bundled and InProcess) or still has a misdeclared tool (the
// launcher drops those from a plugin's description first), or a tool whose
// name another plugin serves already, rejects the whole plugin.
// from is where the plugin runs; a group's claims (sdk.GroupSpec.LocalData)
// count only as far as from allows (see Entry.KeepsDataLocal).
func (c *Catalog) Add(plugin string, from Provenance, desc *sdk.Description, caller Caller) error {
	return c.put(plugin, from, desc, caller, false)
}

// ErrReplaced is Swap's error when the source's tools in the catalog are
// another caller's now (a plugin replaced by a reload): the swap is not
// made.
var ErrReplaced = errors.New("the source is served by another caller now")

// Swap is Add for a source already in the catalog: its tools become
// those of desc in one step (an in-process group whose description
// changes). A tool another source serves leaves the whole swap undone;
// so does a source whose tools caller no longer serves (ErrReplaced).
func (c *Catalog) Swap(plugin string, from Provenance, desc *sdk.Description, caller Caller) error {
	return c.put(plugin, from, desc, caller, true)
}

// put is Add, or with replace Swap.
func (c *Catalog) put(plugin string, from Provenance, desc *sdk.Description, caller Caller, replace bool) error {
	batch, err := entriesOf(plugin, from, desc, caller)
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if replace {
		for _, e := range c.entries {
			if e.Plugin == plugin && e.caller != caller {
				return fmt.Errorf("plugin %q: %w", plugin, ErrReplaced)
			}
		}
	}
	// A legacy group's old name gives way to any other tool of that name,
	// whichever registers first: the old names are a courtesy to old
	// clients, never a reason to refuse a plugin.
	var yield, evict []string
	for _, e := range batch {
		prev, dup := c.entries[e.Spec.Name]
		switch {
		case !dup || (replace && prev.Plugin == plugin):
		case e.GroupMode == sdk.ModeLegacy && prev.GroupMode != sdk.ModeLegacy:
			yield = append(yield, e.Spec.Name)
		case prev.GroupMode == sdk.ModeLegacy && e.GroupMode != sdk.ModeLegacy:
			evict = append(evict, e.Spec.Name)
		default:
			return fmt.Errorf("tool %q is already served by plugin %q", e.Spec.Name, prev.Plugin)
		}
	}
	if replace {
		for name, e := range c.entries {
			if e.Plugin == plugin {
				delete(c.entries, name)
			}
		}
	}
	for _, name := range evict {
		delete(c.entries, name)
	}
	for _, e := range batch {
		if !slices.Contains(yield, e.Spec.Name) {
			c.entries[e.Spec.Name] = e
		}
	}
	return nil
}

// entriesOf checks a description and makes its entries. A bundled
// group's input schemas are not compiled here but at each tool's first
// call: they are the binary's own, compiled by its tests, and compiling
// every one at each start would cost more than listing them.
func entriesOf(plugin string, from Provenance, desc *sdk.Description, caller Caller) ([]*Entry, error) {
	check := desc.Validate
	if from == Bundled || from == InProcess {
		// The server's own schemas, which its tests compile: each is
		// compiled at its tool's first call, not all at every start.
		check = desc.ValidateUncompiled
	}
	if err := check(); err != nil {
		return nil, err
	}
	if _, refused := desc.DropMisdeclared(); refused != nil {
		return nil, refused[0] // the launcher drops these from a plugin's description; an in-process group must not have them
	}
	var batch []*Entry
	for _, g := range desc.Groups {
		for _, t := range g.Tools {
			// Compiled at the first call (desc.Validate may have already).
			batch = append(batch, &Entry{
				Spec: t, Group: g.Name, GroupMode: g.Mode, GroupDescription: g.Description, ReplacedBy: g.ReplacedBy,
				Plugin: plugin, From: from, LocalData: g.LocalData, caller: caller, listed: desc, input: lazyValidator(t),
			})
		}
	}
	return batch, nil
}

// Replace makes entries the whole of source's tools: the source's earlier
// entries go and these come, in one step. An entry whose name another
// source serves is left out, with an error saying so.
func (c *Catalog) Replace(source string, entries []*Entry) []error {
	c.mu.Lock()
	defer c.mu.Unlock()
	for name, e := range c.entries {
		if e.Plugin == source {
			delete(c.entries, name)
		}
	}
	var errs []error
	for _, e := range entries {
		if prev, dup := c.entries[e.Spec.Name]; dup {
			errs = append(errs, fmt.Errorf("tool %q left out: %q serves a tool of that name", e.Spec.Name, prev.Plugin))
			continue
		}
		c.entries[e.Spec.Name] = e
	}
	return errs
}

// RemoveCaller drops every entry served by caller.
func (c *Catalog) RemoveCaller(caller Caller) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for name, e := range c.entries {
		if e.caller == caller {
			delete(c.entries, name)
		}
	}
}

// Get returns the entry of a tool.
func (c *Catalog) Get(name string) (*Entry, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	e, ok := c.entries[name]
	return e, ok
}

// All returns every entry, sorted by group then name, but an upstream
// server's tools in the server's own order (Upstream.Order), after the
// built-in group of the same name if there is one.
func (c *Catalog) All() []*Entry {
	c.mu.RLock()
	out := make([]*Entry, 0, len(c.entries))
	for _, e := range c.entries {
		out = append(out, e)
	}
	c.mu.RUnlock()
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Group != b.Group {
			return a.Group < b.Group
		}
		if a.Upstream != nil && b.Upstream != nil && a.Upstream.Server == b.Upstream.Server {
			return a.Upstream.Order < b.Upstream.Order // the server's own order
		}
		if (a.Upstream == nil) != (b.Upstream == nil) {
			return a.Upstream == nil // a built-in group before a server of the same name
		}
		return a.Spec.Name < b.Spec.Name
	})
	return out
}

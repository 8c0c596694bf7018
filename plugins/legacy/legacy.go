// Package legacy is the legacy group: the tool names of ramabana-mcp 0.1,
// kept for one release so that a client written against them keeps
// working. Each answers through the tool that replaced it, in the same
// process (the files and code groups, built here), so it behaves exactly
// as that tool does; its description says what replaces it and when it
// goes. The host mounts the group only when no agent is configured
// (sdk.ModeLegacy), and `--groups -legacy` drops it.
package legacy

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"sync"

	"github.com/ramabana/ramabana-mcp/plugins/code"
	"github.com/ramabana/ramabana-mcp/plugins/files"
	"github.com/ramabana/ramabana-mcp/sdk"
)

// Until is when the group goes: the release after which no 0.1 name is
// served.
const Until = "release 0.3"

// Version is the plugin's version, sent in Describe.
const Version = "0.1.0"

// alias is a 0.1 tool: its spec, the tool that replaced it, and how its
// arguments become that tool's.
type alias struct {
	spec sdk.ToolSpec
	// schema is the 0.1 input schema, from the 0.1 argument struct.
	schema func() json.RawMessage
	// to is today's tool, served by the bundled group in.
	to, in string
	args   func(in json.RawMessage) (any, error)
}

// readFileArgs are read_file's 0.1 arguments: a 0-based line offset.
type readFileArgs struct {
	Path   string `json:"path" jsonschema:"file, relative to the first served folder"`
	Offset int    `json:"offset,omitempty" jsonschema:"lines to skip from the start"`
	Limit  int    `json:"limit,omitempty" jsonschema:"most lines"`
}

type listDirArgs struct {
	Path string `json:"path,omitempty" jsonschema:"directory, relative to the first served folder"`
}

type grepArgs struct {
	Pattern    string `json:"pattern" jsonschema:"RE2 regex"`
	Path       string `json:"path,omitempty" jsonschema:"directory or file, relative to the first served folder"`
	IgnoreCase bool   `json:"ignore_case,omitempty" jsonschema:"match regardless of case"`
}

type listVarsArgs struct {
	Module string `json:"module" jsonschema:"dotted module name, e.g. \"json\" or \"pkg.mod\""`
}

// deprecated is the sentence every description starts with.
func deprecated(replacement string) string {
	return fmt.Sprintf("Deprecated: use %s; this 0.1 name goes after %s. ", replacement, Until)
}

var aliases = []alias{
	{
		spec: sdk.ToolSpec{Name: "read_file", Title: "Read file (0.1)", Kind: sdk.KindRead,
			Description: deprecated("view_file (start counts from 1)") + "Show a text file as \"lineno|hash|content\" lines, from line offset+1."},
		schema: sdk.MustSchemaFor[readFileArgs], to: "view_file", in: "files",
		args: decode(func(a readFileArgs) (any, error) {
			if a.Offset < 0 || a.Limit < 0 {
				return nil, fmt.Errorf("offset and limit must be 0 or more (got offset=%d, limit=%d)", a.Offset, a.Limit)
			}
			return map[string]any{"path": a.Path, "start": a.Offset + 1, "limit": a.Limit}, nil
		}),
	},
	{
		spec: sdk.ToolSpec{Name: "list_dir", Title: "List folder (0.1)", Kind: sdk.KindRead,
			Description: deprecated("list_files with depth 1") + "List a folder's direct entries."},
		schema: sdk.MustSchemaFor[listDirArgs], to: "list_files", in: "files",
		args: decode(func(a listDirArgs) (any, error) {
			return map[string]any{"path": a.Path, "depth": 1}, nil
		}),
	},
	{
		spec: sdk.ToolSpec{Name: "grep", Title: "Search code (0.1)", Kind: sdk.KindRead,
			Description: deprecated("search_code (case_sensitive=false for ignore_case)") + "Search files for a regex, gitignore-aware."},
		schema: sdk.MustSchemaFor[grepArgs], to: "search_code", in: "code",
		args: decode(func(a grepArgs) (any, error) {
			return map[string]any{"pattern": a.Pattern, "path": a.Path, "case_sensitive": !a.IgnoreCase}, nil
		}),
	},
	{
		spec: sdk.ToolSpec{Name: "list_vars", Title: "List a module's names (0.1)", Kind: sdk.KindAct,
			Description: deprecated("inspect_python") + "List what a Python module defines, with signatures and docstrings, from the real interpreter."},
		schema: sdk.MustSchemaFor[listVarsArgs], to: "inspect_python", in: "code",
		args: decode(func(a listVarsArgs) (any, error) {
			return map[string]any{"target": a.Module}, nil
		}),
	},
}

// decode makes an args function from one of the 0.1 argument structs,
// refusing unknown fields as the host's schema check already has, and
// what to refuses.
func decode[In any](to func(In) (any, error)) func(json.RawMessage) (any, error) {
	return func(raw json.RawMessage) (any, error) {
		var in In
		if err := (&sdk.Request{Call: sdk.Call{Arguments: raw}}).Bind(&in); err != nil {
			return nil, err
		}
		return to(in)
	}
}

// group is the legacy plugin: its own tools in front of the files and
// code groups it forwards to. Those are built and described at the first
// call, with the host context of the last Describe: describing the legacy
// group (which the server does in-process at a start) costs no more than
// its own four tools.
type group struct {
	box *sdk.Toolbox

	mu     sync.Mutex
	host   sdk.Host             // from the last Describe
	groups map[string]sdk.Group // by name: files and code; nil until the first call
	hostOf *sdk.Host            // the host context groups were described with
}

// New returns the legacy plugin, ready for sdk.Serve.
func New() sdk.Group {
	g := &group{}
	g.box = sdk.NewToolbox("legacy", sdk.WithVersion(Version),
		sdk.WithDescription("The tool names of ramabana-mcp 0.1, each answering through the tool that replaced it, until "+Until+"."))
	tools := make([]sdk.Tool, len(aliases))
	for i, a := range aliases {
		a.spec.InputSchema = a.schema()
		tools[i] = sdk.Tool{Spec: a.spec, Handler: g.forward(a)}
	}
	g.box.AddGroup(sdk.GroupSpec{
		Name:        "legacy",
		Description: "The 0.1 names (read_file, list_dir, grep, list_vars), until " + Until + "; mounted only without an agent.",
		Mode:        sdk.ModeLegacy,
		ReplacedBy:  "files,code", // the groups it answers through: with either opted out, so is it
		LocalData:   true,         // the files and code tools it forwards to keep what they read here
	}, tools...)
	return g
}

// Describe keeps the host context for the groups it forwards to, and
// answers the legacy group.
func (g *group) Describe(ctx context.Context, host sdk.Host) (*sdk.Description, error) {
	g.mu.Lock()
	g.host = host
	g.mu.Unlock()
	return g.box.Describe(ctx, host)
}

// target is the group named in, built at the first call and described
// with the host context of the last Describe (again when that changed).
func (g *group) target(ctx context.Context, in string) (sdk.Group, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.groups == nil {
		g.groups = map[string]sdk.Group{"files": files.New(), "code": code.New()}
	}
	if g.hostOf == nil || !reflect.DeepEqual(*g.hostOf, g.host) {
		for _, inner := range g.groups {
			if _, err := inner.Describe(ctx, g.host); err != nil {
				return nil, err
			}
		}
		host := g.host
		g.hostOf = &host
	}
	return g.groups[in], nil
}

// Call runs a legacy tool (the toolbox calls forward).
func (g *group) Call(ctx context.Context, call *sdk.Call, events sdk.Events) (*sdk.Result, error) {
	return g.box.Call(ctx, call, events)
}

// forward is a's handler: its arguments translated, today's tool called.
func (g *group) forward(a alias) sdk.Handler {
	return func(ctx context.Context, req *sdk.Request) (*sdk.Result, error) {
		args, err := a.args(req.Arguments)
		if err != nil {
			return nil, sdk.Failf("%s: %v", a.spec.Name, err)
		}
		b, err := json.Marshal(args)
		if err != nil {
			return nil, err
		}
		target, err := g.target(ctx, a.in)
		if err != nil {
			return nil, err
		}
		return target.Call(ctx, &sdk.Call{Tool: a.to, Arguments: b, ID: req.ID}, req.Events)
	}
}

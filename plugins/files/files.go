package files

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/ramabana/ramabana-mcp/sdk"
	"github.com/ramabana/ramabana-mcp/sdk/roots"
)

// Version is the plugin's version, sent in Describe.
const Version = "0.1.0"

// New returns the files plugin, ready for sdk.Serve.
func New() *sdk.Toolbox {
	s := &server{}
	box := sdk.NewToolbox("files", Version, "Read, list, create and edit text files in the served folders.")
	box.AddGroup(sdk.GroupSpec{
		Name:        "files",
		Description: "View files as numbered, hashed lines; list folders (gitignore-aware); create files; replace unique text.",
		Mode:        sdk.ModeDefault,
	},
		tool(s, viewSpec, viewSchema, s.viewFile),
		tool(s, listSpec, listSchema, s.listFiles),
		tool(s, createSpec, createSchema, s.createFile),
		tool(s, replaceSpec, replaceSchema, s.replaceText),
	)
	box.AddGroup(sdk.GroupSpec{
		Name:        "exhash",
		Description: "Edit files by line hash: edit_file anchors each edit on a line number and the 4-hex-digit hash view_file shows, and rejects the whole batch if any line changed.",
		Mode:        sdk.ModeOptIn,
	},
		tool(s, editSpec, editSchema, s.editFile),
	)
	return box
}

// server holds what the tools share: the resolved roots per host context,
// and the lock that makes each write's read-modify-write step atomic with
// respect to the plugin's other writes.
type server struct {
	mu    sync.Mutex
	roots map[string]*roots.Roots

	writeMu sync.Mutex
}

// maxCachedRoots bounds the roots cache; host contexts rarely change.
const maxCachedRoots = 8

// rootsFor returns the roots of a host context, built once per distinct
// context. A served folder that cannot be resolved is a host fault.
func (s *server) rootsFor(h sdk.Host) (*roots.Roots, error) {
	key := fmt.Sprintf("%t\x00%s", h.ReadOutside, strings.Join(h.Roots, "\x00"))
	s.mu.Lock()
	defer s.mu.Unlock()
	if r, ok := s.roots[key]; ok {
		return r, nil
	}
	r, err := roots.New(h.Roots, h.ReadOutside)
	if err != nil {
		return nil, err
	}
	if s.roots == nil || len(s.roots) >= maxCachedRoots {
		s.roots = map[string]*roots.Roots{}
	}
	s.roots[key] = r
	return r, nil
}

// toolError is a failure the model can act on; handlers return it and the
// tool adapter turns it into an error result.
type toolError struct{ msg string }

func (e *toolError) Error() string { return e.msg }

func failf(format string, args ...any) error {
	return &toolError{msg: fmt.Sprintf(format, args...)}
}

// handler is a tool's body: arguments decoded, roots resolved.
type handler[In any] func(ctx context.Context, r *roots.Roots, args In) (*sdk.Result, error)

// tool declares a typed tool whose *toolError failures become error results
// and whose other errors are faults.
func tool[In any](s *server, spec sdk.ToolSpec, schema json.RawMessage, fn handler[In]) sdk.Tool {
	spec.InputSchema = schema
	return sdk.TypedTool(spec, func(ctx context.Context, req *sdk.Request, args In) (*sdk.Result, error) {
		r, err := s.rootsFor(req.Host)
		if err != nil {
			return nil, fmt.Errorf("%s: served folders: %w", spec.Name, err)
		}
		res, err := fn(ctx, r, args)
		if te := (*toolError)(nil); errors.As(err, &te) {
			return sdk.Errorf("%s", te.msg), nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", spec.Name, err)
		}
		return res, nil
	})
}

// schemaFor infers the input schema of In and lets fix add what struct tags
// cannot say (defaults, bounds, enums). It panics on a bad type, a
// programming error found at start-up.
func schemaFor[In any](fix func(props map[string]*jsonschema.Schema)) json.RawMessage {
	s, err := jsonschema.For[In](nil)
	if err != nil {
		panic(fmt.Sprintf("files: schema: %v", err))
	}
	if fix != nil {
		fix(s.Properties)
	}
	b, err := json.Marshal(s)
	if err != nil {
		panic(fmt.Sprintf("files: schema: %v", err))
	}
	return b
}

func intDefault(p *jsonschema.Schema, def int, minimum, maximum float64) {
	p.Default = json.RawMessage(fmt.Sprint(def))
	p.Minimum = &minimum
	if maximum > 0 {
		p.Maximum = &maximum
	}
}

func enum(p *jsonschema.Schema, values ...string) {
	p.Enum = nil
	for _, v := range values {
		p.Enum = append(p.Enum, v)
	}
}

// resolveRead and resolveWrite turn roots' refusals into tool errors.
func resolveRead(r *roots.Roots, p string) (string, error) {
	abs, err := r.ResolveRead(p)
	if err != nil {
		return "", failf("%v", err)
	}
	return abs, nil
}

func resolveWrite(r *roots.Roots, p string) (string, error) {
	abs, err := r.ResolveWrite(p)
	if err != nil {
		if errors.Is(err, roots.ErrOutside) {
			return "", failf("%v; files can be written only inside the served folders", err)
		}
		return "", failf("%v", err)
	}
	return abs, nil
}

var _ error = (*toolError)(nil)

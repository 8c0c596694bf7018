package code

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/ramabana/ramabana-mcp/sdk"
	"github.com/ramabana/ramabana-mcp/sdk/roots"
)

// Version is the plugin's version, sent in Describe.
const Version = "0.1.0"

// New returns the code plugin, ready for sdk.Serve.
func New() *sdk.Toolbox {
	return newToolbox(defaultInspectTimeout)
}

// defaultInspectTimeout bounds one inspect_python call.
const defaultInspectTimeout = 20 * time.Second

func newToolbox(inspectTimeout time.Duration) *sdk.Toolbox {
	s := &server{inspectTimeout: inspectTimeout}
	box := sdk.NewToolbox("code", Version, "Search code and navigate its symbols in the served folders.")
	box.AddGroup(sdk.GroupSpec{
		Name:        "code",
		Description: "Gitignore-aware regex search over the served folders; symbol outlines and lookups from a real parser (tree-sitter) for Go, Python, JavaScript and TypeScript; live introspection of Python objects.",
		Mode:        sdk.ModeDefault,
	},
		tool(s, searchSpec, searchSchema, s.searchCode),
		tool(s, outlineSpec, outlineSchema, s.outline),
		tool(s, findSymbolSpec, findSymbolSchema, s.findSymbol),
		tool(s, inspectSpec, inspectSchema, s.inspectPython),
	)
	return box
}

// server holds what the tools share: the resolved roots per host context.
type server struct {
	inspectTimeout time.Duration

	mu    sync.Mutex
	roots map[string]*roots.Roots
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
		panic(fmt.Sprintf("code: schema: %v", err))
	}
	if fix != nil {
		fix(s.Properties)
	}
	b, err := json.Marshal(s)
	if err != nil {
		panic(fmt.Sprintf("code: schema: %v", err))
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

func boolDefault(p *jsonschema.Schema, def bool) {
	p.Default = json.RawMessage(fmt.Sprint(def))
}

func enum(p *jsonschema.Schema, values ...string) {
	p.Enum = nil
	for _, v := range values {
		p.Enum = append(p.Enum, v)
	}
}

// resolveRead turns roots' refusals into tool errors.
func resolveRead(r *roots.Roots, p string) (string, error) {
	abs, err := r.ResolveRead(p)
	if err != nil {
		return "", failf("%v", err)
	}
	return abs, nil
}

// display is how a path is shown: relative to the first served folder when
// inside it (so it can be passed back to any tool as is), absolute otherwise.
func display(r *roots.Roots, abs string) string {
	return r.Rel(abs)
}

// joinDisplay shows the path rel (slash-separated, relative to dir) under
// dirShown, the display form of dir.
func joinDisplay(dirShown, rel string) string {
	if dirShown == "." {
		return rel
	}
	if strings.HasSuffix(dirShown, "/") {
		return dirShown + rel
	}
	return dirShown + "/" + rel
}

var _ error = (*toolError)(nil)

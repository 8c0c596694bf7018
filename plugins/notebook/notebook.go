package notebook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/ramabana/ramabana-mcp/sdk"
	"github.com/ramabana/ramabana-mcp/sdk/roots"
)

// Version is the plugin's version, sent in Describe.
const Version = "0.1.0"

// New returns the notebook plugin, ready for sdk.Serve.
func New() *sdk.Toolbox {
	s := &server{}
	box := sdk.NewToolbox("notebook", Version, "Read and edit Jupyter notebooks (.ipynb, nbformat 4) cell by cell, without a Jupyter server.")
	box.AddGroup(sdk.GroupSpec{
		Name:        "notebook",
		Description: "View a notebook's cells with compact output summaries; insert, edit, delete and move cells, keeping the file in Jupyter's own format.",
		Mode:        sdk.ModeDefault,
	},
		tool(s, viewSpec, viewSchema, s.viewNotebook),
		tool(s, insertSpec, insertSchema, s.insertCell),
		tool(s, editSpec, editSchema, s.editCell),
		tool(s, deleteSpec, deleteSchema, s.deleteCell),
		tool(s, moveSpec, moveSchema, s.moveCell),
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
		panic(fmt.Sprintf("notebook: schema: %v", err))
	}
	if fix != nil {
		fix(s.Properties)
	}
	b, err := json.Marshal(s)
	if err != nil {
		panic(fmt.Sprintf("notebook: schema: %v", err))
	}
	return b
}

// intArg makes p a plain integer (optional pointers infer ["null",
// "integer"]) with a minimum and, when def >= 0, a default.
func intArg(p *jsonschema.Schema, minimum float64, def int) {
	p.Type, p.Types = "integer", nil
	p.Minimum = &minimum
	if def >= 0 {
		p.Default = json.RawMessage(fmt.Sprint(def))
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
			return "", failf("%v; notebooks can be changed only inside the served folders", err)
		}
		return "", failf("%v", err)
	}
	return abs, nil
}

// unwrapPath drops the absolute path an *fs.PathError repeats.
func unwrapPath(err error) error {
	if pe, ok := err.(*fs.PathError); ok {
		return pe.Err
	}
	return err
}

// change runs one write tool's read-modify-write under the write lock:
// it loads the notebook at path, lets edit change it (edit returns the
// result text, or an error that leaves the file untouched), and saves it.
func (s *server) change(r *roots.Roots, path string, edit func(nb *notebook) (string, error)) (*sdk.Result, error) {
	abs, err := resolveWrite(r, path)
	if err != nil {
		return nil, err
	}
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	nb, err := loadNotebook(abs, r.Rel(abs))
	if err != nil {
		return nil, err
	}
	text, err := edit(nb)
	if err != nil {
		return nil, err
	}
	ch, err := nb.save()
	if err != nil {
		return nil, err
	}
	res := sdk.TextResult(text)
	res.Changes = []sdk.FileChange{ch}
	return res, nil
}

var _ error = (*toolError)(nil)

package notebook

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
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
	roots roots.Cache

	writeMu sync.Mutex
}

// tool declares a typed tool with its input schema.
func tool[In any](s *server, spec sdk.ToolSpec, schema json.RawMessage, fn roots.Handler[In]) sdk.Tool {
	spec.InputSchema = schema
	return roots.TypedTool(&s.roots, spec, fn)
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

// resolveRead and resolveWrite turn roots' refusals into tool errors.
func resolveRead(r *roots.Roots, p string) (string, error) {
	abs, err := r.ResolveRead(p)
	if err != nil {
		return "", sdk.Failf("%v", err)
	}
	return abs, nil
}

func resolveWrite(r *roots.Roots, p string) (string, error) {
	abs, err := r.ResolveWrite(p)
	if err != nil {
		if errors.Is(err, roots.ErrOutside) {
			return "", sdk.Failf("%v; notebooks can be changed only inside the served folders", err)
		}
		return "", sdk.Failf("%v", err)
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

package notebook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/ramabana/ramabana-mcp/plugins/internal/atomicfile"
	"github.com/ramabana/ramabana-mcp/sdk"
	"github.com/ramabana/ramabana-mcp/sdk/roots"
)

// Version is the plugin's version, sent in Describe.
const Version = "0.1.0"

// New returns the notebook plugin, ready for sdk.Serve.
func New() *sdk.Toolbox {
	s := &server{}
	box := sdk.NewToolbox("notebook", sdk.WithVersion(Version),
		sdk.WithDescription("Read and edit Jupyter notebooks (.ipynb, nbformat 4) cell by cell, without a Jupyter server."))
	box.AddGroup(sdk.GroupSpec{
		Name:        "notebook",
		Description: "View a notebook's cells with compact output summaries; insert, edit, delete and move cells, keeping the file in Jupyter's own format.",
		Mode:        sdk.ModeDefault,
		LocalData:   true, // reads and writes this machine's files and stores only
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

// tool declares a typed tool with its input schema. The schemas are
// declared with sdk.LazySchemaFor, so they are built by the first New, not
// at init by every process that links the package.
func tool[In any](s *server, spec sdk.ToolSpec, schema func() json.RawMessage, fn roots.Handler[In]) sdk.Tool {
	spec.InputSchema = schema()
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

// resolveRead and resolveWrite turn roots' refusals into tool errors. The
// Target they return is the only way the tools reach the notebook.
func resolveRead(r *roots.Roots, p string) (*roots.Target, error) {
	t, err := r.Read(p)
	if err != nil {
		return nil, sdk.Failf("%v", err)
	}
	return t, nil
}

func resolveWrite(r *roots.Roots, p string) (*roots.Target, error) {
	t, err := r.Write(p)
	if err != nil {
		if errors.Is(err, roots.ErrOutside) {
			return nil, sdk.Failf("%v; notebooks can be changed only inside the served folders", err)
		}
		return nil, sdk.Failf("%v", err)
	}
	return t, nil
}

// unwrapPath drops the absolute path an *fs.PathError repeats.
func unwrapPath(err error) error {
	if pe := (*fs.PathError)(nil); errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// change runs one write tool's read-modify-write: under the plugin's write
// lock and the file's own (atomicfile.Update), it parses the notebook as
// it is then, lets edit change it (edit returns the result text, or an
// error that leaves the file untouched), and writes it back atomically,
// keeping the file's mode, owner and extended attributes. A concurrent
// ramabana server's edit is applied before or after this one, never lost.
// A file locked by another program for long is a tool error; when ctx ends
// first (the call was cancelled), ctx's error is returned and nothing is
// written.
func (s *server) change(ctx context.Context, r *roots.Roots, path string, edit func(nb *notebook) (string, error)) (*sdk.Result, error) {
	t, err := resolveWrite(r, path)
	if err != nil {
		return nil, err
	}
	display := r.Rel(t.Abs)
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	dir, name, err := t.Parent(false)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, sdk.Failf("%s does not exist", display)
		}
		return nil, sdk.Failf("cannot read %s: %v", display, unwrapPath(err))
	}
	defer dir.Close()
	var text string
	var before, out []byte
	err = atomicfile.Update(ctx, dir, name,
		func(fi fs.FileInfo) error { return checkFile(fi, display) },
		func(cur []byte, _ fs.FileInfo) ([]byte, error) {
			nb, err := parseNotebook(cur, display)
			if err != nil {
				return nil, err
			}
			if text, err = edit(nb); err != nil {
				return nil, err
			}
			before, out = cur, nb.encode()
			return out, nil
		})
	if err != nil {
		return nil, atomicfile.Failure(err, display, "view it again")
	}
	res := sdk.TextResult(text)
	res.Changes = []sdk.FileChange{sdk.NewFileChange(t.Abs, before, out)}
	return res, nil
}

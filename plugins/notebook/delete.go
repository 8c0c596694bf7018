package notebook

import (
	"context"
	"fmt"
	"slices"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/ramabana/ramabana-mcp/plugins/internal/wording"
	"github.com/ramabana/ramabana-mcp/sdk"
	"github.com/ramabana/ramabana-mcp/sdk/roots"
)

type deleteArgs struct {
	Path  string `json:"path" jsonschema:"Notebook (.ipynb) to change: relative to the first served folder, or absolute inside a served folder."`
	ID    string `json:"id,omitempty" jsonschema:"The cell's id as view_notebook shows it (id=...); preferred, since it stays the same when cells move. Notebooks older than nbformat 4.5 have no ids: use index there."`
	Index *int   `json:"index,omitempty" jsonschema:"The cell's index as view_notebook shows it ([0] is the first cell). Give id, index or both; with both they must name the same cell, else nothing is changed."`
}

var deleteSpec = sdk.ToolSpec{
	Name:  "delete_cell",
	Title: "Delete notebook cell",
	Kind:  sdk.KindWrite,
	Description: `Delete one cell, with its outputs, from a Jupyter notebook (.ipynb, nbformat 4). Name the cell by id (preferred; view_notebook shows id=...) or by index ([0] is the first cell), or both: when both are given and the cell with that id is not at that index, the notebook changed since you viewed it, and nothing is written.

The cells after it move up by one index (their ids do not change). Everything else in the file stays byte for byte as it was, and the write is atomic. The result names the deleted cell and quotes the start of its source, e.g. "deleted code cell [2] id=ab12cd34 from analysis.ipynb (it began: import pandas as pd); 6 cells remain".`,
}

var deleteSchema = sdk.SchemaFor[deleteArgs](func(p map[string]*jsonschema.Schema) {
	intArg(p["index"], 0, -1)
})

func (s *server) deleteCell(ctx context.Context, r *roots.Roots, args deleteArgs) (*sdk.Result, error) {
	return s.change(ctx, r, args.Path, func(nb *notebook) (string, error) {
		i, err := nb.locate(args.Index, args.ID)
		if err != nil {
			return "", err
		}
		c := nb.cells.elems[i]
		nb.cells.elems = slices.Delete(nb.cells.elems, i, i+1)
		msg := fmt.Sprintf("deleted %s from %s", describeCell(c, i), nb.display)
		if line := firstLine(cellSource(c)); line != "" {
			msg += fmt.Sprintf(" (it began: %s)", line)
		} else {
			msg += " (it was empty)"
		}
		msg += fmt.Sprintf("; %s remain", wording.Count(nb.len(), "cell"))
		if moved := nb.len() - i; moved > 0 {
			msg += fmt.Sprintf(", and the %s after it moved up by one", wording.Count(moved, "cell"))
		}
		return msg, nil
	})
}

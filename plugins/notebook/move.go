package notebook

import (
	"context"
	"fmt"
	"slices"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/ramabana/ramabana-mcp/sdk"
	"github.com/ramabana/ramabana-mcp/sdk/roots"
)

type moveArgs struct {
	Path  string `json:"path" jsonschema:"Notebook (.ipynb) to change: relative to the first served folder, or absolute inside a served folder."`
	ID    string `json:"id,omitempty" jsonschema:"The cell's id as view_notebook shows it (id=...); preferred, since it stays the same when cells move. Notebooks older than nbformat 4.5 have no ids: use index there."`
	Index *int   `json:"index,omitempty" jsonschema:"The cell's current index as view_notebook shows it ([0] is the first cell). Give id, index or both; with both they must name the same cell, else nothing is changed."`
	To    int    `json:"to" jsonschema:"The index the cell has after the move, 0 to the number of cells minus 1: 0 makes it the first cell, the last index makes it the last."`
}

var moveSpec = sdk.ToolSpec{
	Name:  "move_cell",
	Title: "Move notebook cell",
	Kind:  sdk.KindWrite,
	Description: `Move one cell of a Jupyter notebook (.ipynb, nbformat 4) so that it ends up at index to (0 makes it first; the number of cells minus 1 makes it last); the cells in between shift by one to make room. Name the cell by id (preferred; view_notebook shows id=...) or by its current index, or both: when both are given and the cell with that id is not at that index, the notebook changed since you viewed it, and nothing is written.

The cell moves whole (source, outputs, metadata, id). Everything else in the file stays byte for byte as it was, and the write is atomic. Moving a cell to where it already is, is an error (nothing to change). The result says where the cell was and is now, e.g. "moved code cell [2] id=ab12cd34 to [5] in analysis.ipynb".`,
}

var moveSchema = sdk.SchemaFor[moveArgs](func(p map[string]*jsonschema.Schema) {
	intArg(p["index"], 0, -1)
	intArg(p["to"], 0, -1)
})

func (s *server) moveCell(ctx context.Context, r *roots.Roots, args moveArgs) (*sdk.Result, error) {
	return s.change(ctx, r, args.Path, func(nb *notebook) (string, error) {
		i, err := nb.locate(args.Index, args.ID)
		if err != nil {
			return "", err
		}
		if err := nb.checkIndex(args.To, "to", nb.len()-1); err != nil {
			return "", err
		}
		c := nb.cells.elems[i]
		if args.To == i {
			return "", sdk.Failf("%s is already at index %d; nothing was changed", describeCell(c, i), i)
		}
		nb.cells.elems = slices.Insert(slices.Delete(nb.cells.elems, i, i+1), args.To, c)
		msg := fmt.Sprintf("moved %s to [%d] in %s", describeCell(c, i), args.To, nb.display)
		if args.To > i {
			msg += "; " + shifted(i+1, args.To, "up")
		} else {
			msg += "; " + shifted(args.To, i-1, "down")
		}
		return msg, nil
	})
}

// shifted says that the cells that were at indexes a..b moved one way.
func shifted(a, b int, way string) string {
	if a == b {
		return fmt.Sprintf("the cell that was at [%d] moved %s by one", a, way)
	}
	return fmt.Sprintf("the cells that were at [%d]-[%d] moved %s by one", a, b, way)
}

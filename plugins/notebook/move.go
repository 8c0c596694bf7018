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
	Path  string `json:"path" jsonschema:"notebook, relative to the first served folder"`
	ID    string `json:"id,omitempty" jsonschema:"cell id from view_notebook"`
	Index *int   `json:"index,omitempty" jsonschema:"current cell index from view_notebook"`
	To    int    `json:"to" jsonschema:"index after the move"`
}

var moveSpec = sdk.ToolSpec{
	Name:        "move_cell",
	Title:       "Move notebook cell",
	Kind:        sdk.KindWrite,
	Description: `Move one notebook cell so that it ends at index to (0: first). Name the cell by id (preferred) or current index; given both, they must agree or nothing is written.`,
}

var moveSchema = sdk.LazySchemaFor[moveArgs](func(p map[string]*jsonschema.Schema) {
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

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
	Path  string `json:"path" jsonschema:"notebook, relative to the first served folder"`
	ID    string `json:"id,omitempty" jsonschema:"cell id from view_notebook"`
	Index *int   `json:"index,omitempty" jsonschema:"cell index from view_notebook"`
}

var deleteSpec = sdk.ToolSpec{
	Name:        "delete_cell",
	Title:       "Delete notebook cell",
	Kind:        sdk.KindWrite,
	Description: `Delete one notebook cell with its outputs. Name the cell by id (preferred) or index; given both, they must agree or nothing is written.`,
}

var deleteSchema = sdk.LazySchemaFor[deleteArgs](func(p map[string]*jsonschema.Schema) {
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

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

type insertArgs struct {
	Path     string `json:"path" jsonschema:"notebook, relative to the first served folder"`
	Index    int    `json:"index" jsonschema:"where the cell goes"`
	CellType string `json:"cell_type" jsonschema:"the cell's type"`
	Source   string `json:"source" jsonschema:"the cell's text"`
}

var insertSpec = sdk.ToolSpec{
	Name:        "insert_cell",
	Title:       "Insert notebook cell",
	Kind:        sdk.KindWrite,
	Description: `Insert a new cell into a notebook at index (0: first; the number of cells: last). Returns the new cell's id.`,
}

var insertSchema = sdk.LazySchemaFor[insertArgs](func(p map[string]*jsonschema.Schema) {
	intArg(p["index"], 0, -1)
	sdk.Enum(p["cell_type"], typeCode, typeMarkdown, typeRaw)
})

var cellTypes = []string{typeCode, typeMarkdown, typeRaw}

func checkCellType(t string) error {
	if !slices.Contains(cellTypes, t) {
		return sdk.Failf("cell_type %q is not one of code, markdown, raw; nothing was changed", t)
	}
	return nil
}

func (s *server) insertCell(ctx context.Context, r *roots.Roots, args insertArgs) (*sdk.Result, error) {
	if err := checkCellType(args.CellType); err != nil {
		return nil, err
	}
	return s.change(ctx, r, args.Path, func(nb *notebook) (string, error) {
		if err := nb.checkIndex(args.Index, "index", nb.len()); err != nil {
			return "", err
		}
		id := ""
		if nb.hasIDs() {
			id = nb.newID()
		}
		c := nb.newCell(args.CellType, args.Source, id)
		nb.cells.elems = slices.Insert(nb.cells.elems, args.Index, c)
		msg := fmt.Sprintf("inserted %s into %s (now %s)", describeCell(c, args.Index), nb.display, wording.Count(nb.len(), "cell"))
		if moved := nb.len() - 1 - args.Index; moved > 0 {
			msg += fmt.Sprintf("; the %s after it moved down by one", wording.Count(moved, "cell"))
		}
		return msg, nil
	})
}

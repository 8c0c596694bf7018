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
	Path     string `json:"path" jsonschema:"Notebook (.ipynb) to change: relative to the first served folder, or absolute inside a served folder."`
	Index    int    `json:"index" jsonschema:"Where the new cell goes, 0 to the number of cells: 0 puts it first, the number of cells appends it; the cell at index and the cells after it move down by one."`
	CellType string `json:"cell_type" jsonschema:"The new cell's type: code, markdown or raw."`
	Source   string `json:"source" jsonschema:"The cell's whole text, lines separated by newlines; may be empty."`
}

var insertSpec = sdk.ToolSpec{
	Name:  "insert_cell",
	Title: "Insert notebook cell",
	Kind:  sdk.KindWrite,
	Description: `Insert a new cell into a Jupyter notebook (.ipynb, nbformat 4) at index: 0 puts it first, the current number of cells appends it at the end, and the cells from index on move down by one.

The cell is written as Jupyter writes a new one: empty metadata; a code cell has "execution_count": null and no outputs (it has not been run); markdown and raw cells have neither. In an nbformat 4.5+ notebook it gets a fresh id (8 hex digits, unique in the notebook), shown in the result; 4.4 and older notebooks have no cell ids, so none is added.

The rest of the file is left byte for byte as it was (other cells, their outputs, notebook and cell metadata), and the write is atomic. If the notebook is open in Jupyter, reload it there to see the change. The result names the new cell, e.g. "inserted code cell [3] id=1a2b3c4d into analysis.ipynb (now 8 cells)".`,
}

var insertSchema = sdk.SchemaFor[insertArgs](func(p map[string]*jsonschema.Schema) {
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

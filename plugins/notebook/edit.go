package notebook

import (
	"cmp"
	"context"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/ramabana/ramabana-mcp/plugins/internal/wording"
	"github.com/ramabana/ramabana-mcp/sdk"
	"github.com/ramabana/ramabana-mcp/sdk/roots"
)

type editArgs struct {
	Path     string `json:"path" jsonschema:"Notebook (.ipynb) to change: relative to the first served folder, or absolute inside a served folder."`
	ID       string `json:"id,omitempty" jsonschema:"The cell's id as view_notebook shows it (id=...); preferred, since it stays the same when cells move. Notebooks older than nbformat 4.5 have no ids: use index there."`
	Index    *int   `json:"index,omitempty" jsonschema:"The cell's index as view_notebook shows it ([0] is the first cell). Give id, index or both; with both they must name the same cell, else nothing is changed."`
	Source   string `json:"source" jsonschema:"The cell's new whole text, replacing the old; lines separated by newlines; may be empty."`
	CellType string `json:"cell_type,omitempty" jsonschema:"Change the cell's type to code, markdown or raw. Default: keep its type."`
}

var editSpec = sdk.ToolSpec{
	Name:  "edit_cell",
	Title: "Edit notebook cell",
	Kind:  sdk.KindWrite,
	Description: `Replace the whole source of one cell of a Jupyter notebook (.ipynb, nbformat 4), and optionally change its type. Name the cell by id (preferred; view_notebook shows id=...) or by index ([0] is the first cell), or both: when both are given and the cell with that id is not at that index, the notebook changed since you viewed it, and nothing is written.

Changing a code cell's source clears its outputs and sets its execution_count to null, as Jupyter does, since they no longer match the code; the result says what was cleared. Changing cell_type to markdown or raw drops a code cell's outputs and execution_count; changing it to code adds empty ones. A markdown or raw cell with attachments (embedded images) cannot become a code cell.

The cell keeps its id and metadata; everything else in the file stays byte for byte as it was, and the write is atomic. Giving the same source and type as now is an error (nothing to change). If the notebook is open in Jupyter, reload it there to see the change.`,
}

var editSchema = sdk.SchemaFor[editArgs](func(p map[string]*jsonschema.Schema) {
	intArg(p["index"], 0, -1)
	sdk.Enum(p["cell_type"], typeCode, typeMarkdown, typeRaw)
})

func (s *server) editCell(ctx context.Context, r *roots.Roots, args editArgs) (*sdk.Result, error) {
	if args.CellType != "" {
		if err := checkCellType(args.CellType); err != nil {
			return nil, err
		}
	}
	return s.change(ctx, r, args.Path, func(nb *notebook) (string, error) {
		i, err := nb.locate(args.Index, args.ID)
		if err != nil {
			return "", err
		}
		c := nb.cells.elems[i]
		st := &nb.doc.style
		oldType, newType := cellType(c), cmp.Or(args.CellType, cellType(c))
		oldSource := c.get("source")
		name := describeCell(c, i)
		if newType == oldType && oldSource != nil && oldSource.text() == args.Source {
			return "", sdk.Failf("%s already has this source and type; nothing was changed", name)
		}

		var notes []string
		wasCode, isCode := oldType == typeCode, newType == typeCode
		switch {
		case wasCode && !isCode:
			if n := len(outputsOf(c)); n > 0 {
				notes = append(notes, "dropped its "+wording.Count(n, "output"))
			}
			c.del("outputs")
			c.del("execution_count")
		case !wasCode && isCode:
			if a := c.get("attachments"); a != nil && len(a.members) > 0 {
				keys := make([]string, 0, len(a.members))
				for _, m := range a.members {
					keys = append(keys, m.key)
				}
				return "", sdk.Failf("%s has attachments (%s), which a code cell cannot hold; nothing was changed. Keep it %s, or delete it and insert a new code cell", name, strings.Join(keys, ", "), oldType)
			}
			c.del("attachments")
			c.set("execution_count", nullNode(), st)
			c.set("outputs", arrayNode(), st)
		case wasCode:
			cleared := clearOutputs(c, st)
			if cleared != "" {
				notes = append(notes, cleared+", as Jupyter does when code changes; run the cell to get fresh outputs")
			}
		}
		if newType != oldType {
			c.set("cell_type", st.stringNode(newType), st)
		}
		asString := oldSource != nil && oldSource.kind == kindString
		c.set("source", st.sourceNode(args.Source, asString), st)

		var msg string
		if newType != oldType {
			msg = fmt.Sprintf("changed %s in %s to a %s cell with the new source (%s)", name, nb.display, newType, wording.Count(len(splitLines(args.Source)), "line"))
		} else {
			msg = fmt.Sprintf("replaced the source of %s in %s (%s)", name, nb.display, wording.Count(len(splitLines(args.Source)), "line"))
		}
		if len(notes) > 0 {
			msg += "; " + strings.Join(notes, "; ")
		}
		return msg, nil
	})
}

// clearOutputs empties a code cell's outputs and execution count and says
// what it cleared ("" for nothing).
func clearOutputs(c *node, st *style) string {
	var what []string
	if n := len(outputsOf(c)); n > 0 {
		what = append(what, "its "+wording.Count(n, "output"))
	}
	if ec := c.get("execution_count"); ec != nil && ec.kind != kindNull {
		what = append(what, "execution_count "+ec.raw)
	}
	if o := c.get("outputs"); o == nil || o.kind != kindArray || len(o.elems) > 0 {
		c.set("outputs", arrayNode(), st)
	}
	if ec := c.get("execution_count"); ec == nil || ec.kind != kindNull {
		c.set("execution_count", nullNode(), st)
	}
	if len(what) == 0 {
		return ""
	}
	return "cleared " + strings.Join(what, " and ")
}

// outputsOf is a code cell's outputs, nil for none.
func outputsOf(c *node) []*node {
	if o := c.get("outputs"); o != nil && o.kind == kindArray {
		return o.elems
	}
	return nil
}

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
	Path     string `json:"path" jsonschema:"notebook, relative to the first served folder"`
	ID       string `json:"id,omitempty" jsonschema:"cell id from view_notebook"`
	Index    *int   `json:"index,omitempty" jsonschema:"cell index from view_notebook"`
	Source   string `json:"source" jsonschema:"the new source"`
	CellType string `json:"cell_type,omitempty" jsonschema:"new type"`
}

var editSpec = sdk.ToolSpec{
	Name:        "edit_cell",
	Title:       "Edit notebook cell",
	Kind:        sdk.KindWrite,
	Description: `Replace one notebook cell's whole source, optionally changing its type; a code cell's outputs and execution count are cleared. Name the cell by id (preferred) or index; given both, they must agree or nothing is written.`,
}

var editSchema = sdk.LazySchemaFor[editArgs](func(p map[string]*jsonschema.Schema) {
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

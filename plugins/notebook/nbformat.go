package notebook

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ramabana/ramabana-mcp/plugins/internal/wording"
	"github.com/ramabana/ramabana-mcp/sdk"
	"github.com/ramabana/ramabana-mcp/sdk/roots"
)

// maxNotebookSize bounds the files the tools read.
const maxNotebookSize = 256 << 20

// Cell types.
const (
	typeCode     = "code"
	typeMarkdown = "markdown"
	typeRaw      = "raw"
)

// notebook is an nbformat 4 file as read from disk.
type notebook struct {
	display string
	data    []byte

	doc          *document
	cells        *node // the "cells" array; each element is an object
	major, minor int
}

// loadNotebook reads and checks the notebook t, through its served
// folder's root; display is the path to show.
func loadNotebook(t *roots.Target, display string) (*notebook, error) {
	f, err := t.Open()
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, sdk.Failf("%s does not exist", display)
	case err != nil:
		return nil, sdk.Failf("cannot read %s: %v", display, unwrapPath(err))
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, sdk.Failf("cannot read %s: %v", display, unwrapPath(err))
	}
	if err := checkFile(fi, display); err != nil {
		return nil, err
	}
	data, err := io.ReadAll(io.LimitReader(f, maxNotebookSize+1))
	if err != nil {
		return nil, sdk.Failf("cannot read %s: %v", display, unwrapPath(err))
	}
	return parseNotebook(data, display)
}

// checkFile refuses what is not a notebook file: directories, special
// files, files over maxNotebookSize.
func checkFile(fi fs.FileInfo, display string) error {
	switch {
	case fi.IsDir():
		return sdk.Failf("%s is a directory, not a notebook", display)
	case !fi.Mode().IsRegular():
		return sdk.Failf("%s is not a regular file (%s)", display, fi.Mode().Type())
	case fi.Size() > maxNotebookSize:
		return sdk.Failf("%s is too large (%d bytes); notebooks up to %d MiB are read", display, fi.Size(), maxNotebookSize>>20)
	}
	return nil
}

// parseNotebook checks that data is an nbformat 4 notebook.
func parseNotebook(data []byte, display string) (*notebook, error) {
	if !utf8.Valid(data) {
		return nil, sdk.Failf("%s is not valid UTF-8, so it is not a notebook Jupyter can open", display)
	}
	doc, err := parseDocument(string(data))
	if err != nil {
		return nil, sdk.Failf("%s is not valid JSON (%v), so it is not a notebook Jupyter can open", display, err)
	}
	root := doc.root
	if root.kind != kindObject {
		return nil, sdk.Failf("%s is JSON but not a notebook: its top level is not an object", display)
	}
	major, ok := root.get("nbformat").int()
	if !ok {
		return nil, sdk.Failf("%s is JSON but not a Jupyter notebook: it has no integer \"nbformat\" field", display)
	}
	minor, _ := root.get("nbformat_minor").int()
	switch {
	case major < 4:
		return nil, sdk.Failf("%s uses nbformat %d; these tools read and write nbformat 4 only. Convert it first, e.g. `jupyter nbconvert --to notebook --nbformat 4 --inplace %s`", display, major, display)
	case major > 4:
		return nil, sdk.Failf("%s uses nbformat %d.%d, which these tools do not know; only nbformat 4 is supported", display, major, minor)
	}
	cells := root.get("cells")
	if cells == nil || cells.kind != kindArray {
		return nil, sdk.Failf("%s is not a valid nbformat 4 notebook: it has no \"cells\" list", display)
	}
	for i, c := range cells.elems {
		if t := c.get("cell_type"); c.kind != kindObject || t == nil || t.kind != kindString {
			return nil, sdk.Failf("%s is not a valid nbformat 4 notebook: cell %d is not an object with a \"cell_type\"", display, i)
		}
	}
	return &notebook{display: display, data: data, doc: doc, cells: cells, major: major, minor: minor}, nil
}

// hasIDs reports whether the notebook's format has cell ids (4.5 and up).
func (nb *notebook) hasIDs() bool { return nb.minor >= 5 }

func (nb *notebook) version() string {
	return strconv.Itoa(nb.major) + "." + strconv.Itoa(nb.minor)
}

func (nb *notebook) len() int { return len(nb.cells.elems) }

// encode is the notebook as it would be written now.
func (nb *notebook) encode() []byte { return nb.doc.encode(len(nb.data)) }

// cellType, cellID and cellSource read a cell's fields.
func cellType(c *node) string { return c.get("cell_type").str() }
func cellID(c *node) string   { return c.get("id").str() }
func cellSource(c *node) string {
	return c.get("source").text()
}

// describeCell is how results name a cell: "code cell [3] id=ab12cd34".
func describeCell(c *node, index int) string {
	s := cellType(c) + " cell [" + strconv.Itoa(index) + "]"
	if id := cellID(c); id != "" {
		s += " id=" + id
	}
	return s
}

// splitLines splits s as Python's str.splitlines(keepends=True), which is
// how nbformat stores a multi-line string: every line but the last keeps
// its line break, and "" gives no lines.
func splitLines(s string) []string {
	var lines []string
	start := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		end := i + size
		switch r {
		case '\r':
			if end < len(s) && s[end] == '\n' {
				end++
			}
		case '\n', '\v', '\f', 0x1c, 0x1d, 0x1e, 0x85, 0x2028, 0x2029:
		default:
			i = end
			continue
		}
		lines = append(lines, s[start:end])
		start, i = end, end
	}
	if start < len(s) {
		lines = append(lines, s[start:])
	}
	return lines
}

// sourceNode is source as nbformat writes it: a list of lines, or a single
// string when asString (for files that store sources that way).
func (s *style) sourceNode(source string, asString bool) *node {
	if asString {
		return s.stringNode(source)
	}
	lines := splitLines(source)
	n := arrayNode()
	for _, l := range lines {
		n.elems = append(n.elems, s.stringNode(l))
	}
	return n
}

// sourcesAsStrings reports whether the notebook stores sources as single
// strings rather than lists of lines (Jupyter writes lists): true only when
// every cell has a string source.
func (nb *notebook) sourcesAsStrings() bool {
	if nb.len() == 0 {
		return false
	}
	for _, c := range nb.cells.elems {
		if c.get("source").kind != kindString {
			return false
		}
	}
	return true
}

// newCell builds a cell as Jupyter writes a new one: keys sorted, empty
// metadata, code cells with no execution count and no outputs, markdown
// and raw cells with neither key; id is left out when empty.
func (nb *notebook) newCell(cellType, source, id string) *node {
	s := &nb.doc.style
	kv := []any{"cell_type", s.stringNode(cellType)}
	if cellType == typeCode {
		kv = append(kv, "execution_count", nullNode())
	}
	if id != "" {
		kv = append(kv, "id", s.stringNode(id))
	}
	kv = append(kv, "metadata", s.objectNode())
	if cellType == typeCode {
		kv = append(kv, "outputs", arrayNode())
	}
	kv = append(kv, "source", s.sourceNode(source, nb.sourcesAsStrings()))
	return s.objectNode(kv...)
}

// newID is a fresh cell id unique in the notebook: 8 lowercase hex digits,
// as nbformat makes them (uuid4().hex[:8]).
func (nb *notebook) newID() string {
	taken := map[string]bool{}
	for _, c := range nb.cells.elems {
		taken[cellID(c)] = true
	}
	var b [4]byte
	for {
		_, _ = rand.Read(b[:]) // never fails (crypto/rand)
		if id := hex.EncodeToString(b[:]); !taken[id] {
			return id
		}
	}
}

// locate finds the cell a write tool names by index, id, or both. With both,
// they must agree: a mismatch means the caller's view is stale.
func (nb *notebook) locate(index *int, id string) (int, error) {
	n := nb.len()
	if id == "" {
		if index == nil {
			return 0, sdk.Failf("give the cell's id or index (view_notebook shows both)")
		}
		if err := nb.checkIndex(*index, "index", n-1); err != nil {
			return 0, err
		}
		return *index, nil
	}
	at := -1
	for i, c := range nb.cells.elems {
		if cellID(c) == id {
			at = i
			break
		}
	}
	switch {
	case at < 0 && !nb.hasIDs():
		return 0, sdk.Failf("%s is nbformat %s, whose cells have no ids; address the cell by index instead", nb.display, nb.version())
	case at < 0:
		return 0, sdk.Failf("no cell in %s has id %q; nothing was changed. Call view_notebook to see the current cells and their ids", nb.display, id)
	case index != nil && *index != at:
		return 0, sdk.Failf("cell id=%s is at index %d, not %d: the notebook changed since you viewed it, and nothing was changed. Call view_notebook again, or give only the id", id, at, *index)
	}
	return at, nil
}

// checkIndex checks 0 <= i <= last, naming the argument in the error.
func (nb *notebook) checkIndex(i int, arg string, last int) error {
	if i >= 0 && i <= last {
		return nil
	}
	if nb.len() == 0 {
		return sdk.Failf("%s=%d is out of range: %s has no cells", arg, i, nb.display)
	}
	return sdk.Failf("%s=%d is out of range: %s has %s, so %s must be 0 to %d; nothing was changed", arg, i, nb.display, wording.Count(nb.len(), "cell"), arg, last)
}

// firstLine is a short quote of a cell's source for results.
func firstLine(source string) string {
	line, _, _ := strings.Cut(strings.TrimLeft(source, "\r\n"), "\n")
	line = strings.TrimRight(line, "\r")
	if utf8.RuneCountInString(line) > 60 {
		r := []rune(line)
		line = string(r[:60]) + "…"
	}
	return line
}

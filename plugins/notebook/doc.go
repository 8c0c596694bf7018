// Package notebook is the notebook tool group: view and edit Jupyter
// notebooks (.ipynb, nbformat 4) cell by cell, straight from the file, with
// no Jupyter server.
//
// Its main is one call:
//
//	func main() { sdk.Serve(notebook.New()) }
//
// The group "notebook" has view_notebook (read), and insert_cell,
// edit_cell, delete_cell and move_cell (write). view_notebook shows each
// cell's index, id, type and source, and summarises outputs: text is shown
// (clipped at 2,000 characters), images, HTML and other rich data are only
// noted with their size, and errors are reduced to "ename: evalue" and the
// last traceback frame, so a model never receives base64 data. Write tools
// address a cell by id (stable when cells move) or index; given both, they
// must agree, so a stale view changes nothing.
//
// # Faithful files
//
// A notebook is read into an order-preserving JSON tree in which every
// string and number keeps its token exactly as written and objects keep
// their keys in file order. A write changes only the cells the tool
// touches and re-lays out the whitespace between tokens, so a notebook that
// Jupyter wrote (json.dumps(nb, indent=1, sort_keys=True,
// ensure_ascii=False) + "\n") is written back byte for byte except for the
// edit: metadata, cell ids, outputs and unknown fields are kept.
//
// A file in another style keeps that style as far as it is detected from
// the file: the indentation unit (or a single-line file), the separators
// after ',' and ':', CRLF line breaks, what comes before and after the top
// value (a final newline or none, a BOM), and whether non-ASCII characters
// are written as \uXXXX escapes. What is normalised: whitespace that does
// not follow that detected pattern (for example a short list kept on one
// line, or spaces before ':'); every non-empty list and object is laid out
// one element per line, empty ones as [] and {}, as Python's json module
// does.
//
// New values follow Jupyter: a new source is a list of lines split as
// Python's str.splitlines(keepends=True) splits them (unless every cell of
// the file stores its source as one string, in which case a string is
// written); a new cell has sorted keys, empty metadata, and, in nbformat
// 4.5 and later only, an 8-hex-digit id unique in the notebook; a new key
// in an object whose keys are sorted goes in sort order.
//
// Notebooks in nbformat 3 and older are refused, as are files that are not
// UTF-8 JSON. Writes are atomic (a temporary file in the same directory,
// synced, renamed over the original), keep the file's mode, and are
// reported as [sdk.FileChange]. Every path goes through package roots:
// reads stay inside the served folders unless the host allows reads
// outside, writes always do.
package notebook

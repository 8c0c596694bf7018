package notebook_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ramabana/ramabana-mcp/plugins/notebook"
	"github.com/ramabana/ramabana-mcp/sdk"
	"github.com/ramabana/ramabana-mcp/sdk/sdktest"
)

func cells(nb map[string]any) []any { return nb["cells"].([]any) }

func cell(nb map[string]any, i int) map[string]any { return cells(nb)[i].(map[string]any) }

func setCells(nb map[string]any, c []any) { nb["cells"] = c }

func sum(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

var nbID = regexp.MustCompile(`^[a-zA-Z0-9_-]{8,64}$`)

// TestWriteTools runs each write tool on a fresh copy of a fixture and
// checks three things: the result text; the notebook's new structure
// against the old one with the expected change applied (so nothing else
// changed in content); and the new bytes against what Jupyter would write
// for that structure (so nothing else changed in form).
func TestWriteTools(t *testing.T) {
	t.Parallel()
	type testCase struct {
		file string
		tool string
		args map[string]any
		want string // the result text
		// change applies the expected change to the notebook as read
		// before the call; got is the notebook after, for generated ids.
		change func(t *testing.T, nb, got map[string]any)
	}
	newID := func(t *testing.T, got map[string]any, i int) string {
		id, _ := cell(got, i)["id"].(string)
		if !nbID.MatchString(id) {
			t.Errorf("new cell id %q is not a valid nbformat id of 8+ characters", id)
		}
		for j, c := range cells(got) {
			if j != i && c.(map[string]any)["id"] == id {
				t.Errorf("new cell id %q is also cell %d's", id, j)
			}
		}
		return id
	}
	insert := func(at int, c map[string]any) func(t *testing.T, nb, got map[string]any) {
		return func(t *testing.T, nb, got map[string]any) {
			if nb["nbformat_minor"].(float64) >= 5 {
				c["id"] = newID(t, got, at)
			}
			all := cells(nb)
			setCells(nb, append(all[:at:at], append([]any{c}, all[at:]...)...))
		}
	}
	tests := map[string]testCase{
		"insert code first": {
			file: "analysis.ipynb", tool: "insert_cell",
			args: map[string]any{"path": "analysis.ipynb", "index": 0, "cell_type": "code", "source": "import os\nprint(os.getcwd())\n"},
			want: `^inserted code cell \[0\] id=[0-9a-f]{8} into analysis.ipynb \(now 11 cells\); the 10 cells after it moved down by one$`,
			change: insert(0, map[string]any{"cell_type": "code", "execution_count": nil, "metadata": map[string]any{}, "outputs": []any{},
				"source": []any{"import os\n", "print(os.getcwd())\n"}}),
		},
		"insert markdown at the end": {
			file: "analysis.ipynb", tool: "insert_cell",
			args: map[string]any{"path": "analysis.ipynb", "index": 10, "cell_type": "markdown", "source": "## Conclusion — 结论\n\nTout va bien."},
			want: `^inserted markdown cell \[10\] id=[0-9a-f]{8} into analysis.ipynb \(now 11 cells\)$`,
			change: insert(10, map[string]any{"cell_type": "markdown", "metadata": map[string]any{},
				"source": []any{"## Conclusion — 结论\n", "\n", "Tout va bien."}}),
		},
		"insert empty raw": {
			file: "analysis.ipynb", tool: "insert_cell",
			args:   map[string]any{"path": "analysis.ipynb", "index": 3, "cell_type": "raw", "source": ""},
			want:   `^inserted raw cell \[3\] id=[0-9a-f]{8} into analysis.ipynb \(now 11 cells\); the 7 cells after it moved down by one$`,
			change: insert(3, map[string]any{"cell_type": "raw", "metadata": map[string]any{}, "source": []any{}}),
		},
		"insert into 4.4 adds no id": {
			file: "legacy44.ipynb", tool: "insert_cell",
			args: map[string]any{"path": "legacy44.ipynb", "index": 1, "cell_type": "code", "source": "y = 1"},
			want: `^inserted code cell \[1\] into legacy44.ipynb \(now 4 cells\); the 2 cells after it moved down by one$`,
			change: insert(1, map[string]any{"cell_type": "code", "execution_count": nil, "metadata": map[string]any{}, "outputs": []any{},
				"source": []any{"y = 1"}}),
		},
		"edit code by id clears outputs": {
			file: "analysis.ipynb", tool: "edit_cell",
			args: map[string]any{"path": "analysis.ipynb", "id": "load-data", "source": "df = pd.read_csv(fichier, sep=\";\")\ndf.shape"},
			want: `^replaced the source of code cell \[2\] id=load-data in analysis.ipynb \(2 lines\); cleared its 2 outputs and execution_count 2, as Jupyter does when code changes; run the cell to get fresh outputs$`,
			change: func(t *testing.T, nb, _ map[string]any) {
				c := cell(nb, 2)
				c["source"] = []any{"df = pd.read_csv(fichier, sep=\";\")\n", "df.shape"}
				c["outputs"], c["execution_count"] = []any{}, nil
			},
		},
		"edit code by index and id": {
			file: "analysis.ipynb", tool: "edit_cell",
			args: map[string]any{"path": "analysis.ipynb", "index": 9, "id": "e9f0a1b2", "source": "print('fin')\n"},
			want: `^replaced the source of code cell \[9\] id=e9f0a1b2 in analysis.ipynb \(1 line\)$`,
			change: func(t *testing.T, nb, _ map[string]any) {
				cell(nb, 9)["source"] = []any{"print('fin')\n"}
			},
		},
		"edit markdown by index": {
			file: "analysis.ipynb", tool: "edit_cell",
			args: map[string]any{"path": "analysis.ipynb", "index": 0, "source": "# Données\r\nligne\rautre\u2028fin"},
			want: `^replaced the source of markdown cell \[0\] id=0c6b8f1e-3a47-4d2e-9f5b-7e21c4a9d803 in analysis.ipynb \(4 lines\)$`,
			change: func(t *testing.T, nb, _ map[string]any) {
				cell(nb, 0)["source"] = []any{"# Données\r\n", "ligne\r", "autre\u2028", "fin"}
			},
		},
		"code to markdown": {
			file: "analysis.ipynb", tool: "edit_cell",
			args: map[string]any{"path": "analysis.ipynb", "id": "plot", "cell_type": "markdown", "source": "Le graphique."},
			want: `^changed code cell \[4\] id=plot in analysis.ipynb to a markdown cell with the new source \(1 line\); dropped its 1 output$`,
			change: func(t *testing.T, nb, _ map[string]any) {
				c := cell(nb, 4)
				delete(c, "outputs")
				delete(c, "execution_count")
				c["cell_type"], c["source"] = "markdown", []any{"Le graphique."}
			},
		},
		"markdown to code": {
			file: "analysis.ipynb", tool: "edit_cell",
			args: map[string]any{"path": "analysis.ipynb", "index": 0, "cell_type": "code", "source": "# titre"},
			want: `^changed markdown cell \[0\] id=0c6b8f1e-3a47-4d2e-9f5b-7e21c4a9d803 in analysis.ipynb to a code cell with the new source \(1 line\)$`,
			change: func(t *testing.T, nb, _ map[string]any) {
				c := cell(nb, 0)
				c["cell_type"], c["source"], c["outputs"], c["execution_count"] = "code", []any{"# titre"}, []any{}, nil
			},
		},
		"raw to markdown keeps metadata": {
			file: "analysis.ipynb", tool: "edit_cell",
			args: map[string]any{"path": "analysis.ipynb", "id": "d5e6f7a8", "cell_type": "markdown", "source": ".. note:: exporté avec nbconvert"},
			want: `^changed raw cell \[8\] id=d5e6f7a8 in analysis.ipynb to a markdown cell`,
			change: func(t *testing.T, nb, _ map[string]any) {
				cell(nb, 8)["cell_type"] = "markdown"
			},
		},
		"edit in 4.4 by index": {
			file: "legacy44.ipynb", tool: "edit_cell",
			args: map[string]any{"path": "legacy44.ipynb", "index": 2, "source": "x = 6 * 9\nx"},
			want: `^replaced the source of code cell \[2\] in legacy44.ipynb \(2 lines\); cleared its 1 output and execution_count 2`,
			change: func(t *testing.T, nb, _ map[string]any) {
				c := cell(nb, 2)
				c["source"], c["outputs"], c["execution_count"] = []any{"x = 6 * 9\n", "x"}, []any{}, nil
			},
		},
		"delete by id": {
			file: "analysis.ipynb", tool: "delete_cell",
			args: map[string]any{"path": "analysis.ipynb", "id": "b7d04e55"},
			want: `^deleted code cell \[6\] id=b7d04e55 from analysis.ipynb \(it began: def moyenne\(xs\):\); 9 cells remain, and the 3 cells after it moved up by one$`,
			change: func(t *testing.T, nb, _ map[string]any) {
				all := cells(nb)
				setCells(nb, append(all[:6:6], all[7:]...))
			},
		},
		"delete last by index": {
			file: "analysis.ipynb", tool: "delete_cell",
			args: map[string]any{"path": "analysis.ipynb", "index": 9},
			want: `^deleted code cell \[9\] id=e9f0a1b2 from analysis.ipynb \(it was empty\); 9 cells remain$`,
			change: func(t *testing.T, nb, _ map[string]any) {
				setCells(nb, cells(nb)[:9])
			},
		},
		"move down": {
			file: "analysis.ipynb", tool: "move_cell",
			args: map[string]any{"path": "analysis.ipynb", "id": "load-data", "to": 5},
			want: `^moved code cell \[2\] id=load-data to \[5\] in analysis.ipynb; the cells that were at \[3\]-\[5\] moved up by one$`,
			change: func(t *testing.T, nb, _ map[string]any) {
				c := cells(nb)
				setCells(nb, []any{c[0], c[1], c[3], c[4], c[5], c[2], c[6], c[7], c[8], c[9]})
			},
		},
		"move up to first": {
			file: "analysis.ipynb", tool: "move_cell",
			args: map[string]any{"path": "analysis.ipynb", "index": 1, "to": 0},
			want: `^moved code cell \[1\] id=imports to \[0\] in analysis.ipynb; the cell that was at \[0\] moved down by one$`,
			change: func(t *testing.T, nb, _ map[string]any) {
				c := cells(nb)
				c[0], c[1] = c[1], c[0]
			},
		},
		"move in 4.4 to last": {
			file: "legacy44.ipynb", tool: "move_cell",
			args: map[string]any{"path": "legacy44.ipynb", "index": 0, "to": 2},
			want: `^moved markdown cell \[0\] to \[2\] in legacy44.ipynb`,
			change: func(t *testing.T, nb, _ map[string]any) {
				c := cells(nb)
				setCells(nb, []any{c[1], c[2], c[0]})
			},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, false)
			path := e.path(tc.file)
			before := readFile(t, path)
			res := sdktest.Call(t, e.g, tc.tool, tc.args)
			if res.IsError {
				t.Fatalf("error: %s", res.Text())
			}
			if !regexp.MustCompile(tc.want).MatchString(res.Text()) {
				t.Errorf("result %q does not match %q", res.Text(), tc.want)
			}
			after := readFile(t, path)
			want, got := parse(t, before), parse(t, after)
			tc.change(t, want, got)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("notebook after %s (-want +got):\n%s", tc.tool, diff)
			}
			if diff := cmp.Diff(string(notebook.Canonical(t, after)), string(after)); diff != "" {
				t.Errorf("written file is not what Jupyter writes (-jupyter +file):\n%s", diff)
			}
			wantChange := []sdk.FileChange{{Path: path, BeforeSHA256: sum(before), AfterSHA256: sum(after), Before: before, After: after}}
			if diff := cmp.Diff(wantChange, res.Changes); diff != "" {
				t.Errorf("changes (-want +got):\n%s", diff)
			}
		})
	}
}

// TestWritesUndone checks byte-faithfulness through the tools alone: a
// write and its inverse leave the file exactly as Jupyter wrote it.
func TestWritesUndone(t *testing.T) {
	t.Parallel()
	type call struct {
		tool string
		args map[string]any
	}
	tests := map[string][]call{
		"move and back": {
			{"move_cell", map[string]any{"id": "load-data", "to": 7}},
			{"move_cell", map[string]any{"id": "load-data", "to": 2}},
		},
		"edit markdown and back": {
			{"edit_cell", map[string]any{"index": 7, "source": "autre chose"}},
			{"edit_cell", map[string]any{"index": 7, "source": "## Résumé\n\n![graphique.png](attachment:graphique.png)\n\nLes ventes de « café » dominent."}},
		},
		"insert and delete": {
			{"insert_cell", map[string]any{"index": 4, "cell_type": "code", "source": "1 + 1"}},
			{"delete_cell", map[string]any{"index": 4}},
		},
		"raw to markdown and back": {
			{"edit_cell", map[string]any{"id": "d5e6f7a8", "cell_type": "markdown", "source": "x"}},
			{"edit_cell", map[string]any{"id": "d5e6f7a8", "cell_type": "raw", "source": ".. note:: exporté avec nbconvert"}},
		},
	}
	for name, calls := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, false)
			path := e.path("analysis.ipynb")
			before := readFile(t, path)
			for _, c := range calls {
				c.args["path"] = "analysis.ipynb"
				if text, isErr := e.call(t, c.tool, c.args); isErr {
					t.Fatalf("%s: %s", c.tool, text)
				}
			}
			if after := readFile(t, path); !bytes.Equal(before, after) {
				t.Errorf("file differs after undoing:\n%s", cmp.Diff(string(before), string(after)))
			}
		})
	}
}

// TestWriteRefusals checks bad and stale arguments: an error naming the
// problem, and the file unchanged, mode included.
func TestWriteRefusals(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		file, tool string
		args       map[string]any
		want       string
	}{
		"edit stale index": {"analysis.ipynb", "edit_cell", map[string]any{"id": "plot", "index": 3, "source": "x"},
			"cell id=plot is at index 4, not 3: the notebook changed since you viewed it, and nothing was changed. Call view_notebook again"},
		"delete stale index": {"analysis.ipynb", "delete_cell", map[string]any{"id": "plot", "index": 5},
			"cell id=plot is at index 4, not 5"},
		"move stale index": {"analysis.ipynb", "move_cell", map[string]any{"id": "plot", "index": 0, "to": 1},
			"cell id=plot is at index 4, not 0"},
		"unknown id": {"analysis.ipynb", "edit_cell", map[string]any{"id": "nope", "source": "x"},
			`no cell in analysis.ipynb has id "nope"; nothing was changed. Call view_notebook`},
		"id in 4.4": {"legacy44.ipynb", "delete_cell", map[string]any{"id": "abc"},
			"legacy44.ipynb is nbformat 4.4, whose cells have no ids; address the cell by index instead"},
		"neither id nor index": {"analysis.ipynb", "delete_cell", map[string]any{},
			"give the cell's id or index"},
		"edit index past end": {"analysis.ipynb", "edit_cell", map[string]any{"index": 10, "source": "x"},
			"index=10 is out of range: analysis.ipynb has 10 cells, so index must be 0 to 9; nothing was changed"},
		"delete negative index": {"legacy44.ipynb", "delete_cell", map[string]any{"index": -1},
			"invalid arguments for delete_cell: \"index\" must be at least 0 (got -1)"},
		"insert past end": {"analysis.ipynb", "insert_cell", map[string]any{"index": 11, "cell_type": "code", "source": "x"},
			"index=11 is out of range: analysis.ipynb has 10 cells, so index must be 0 to 10"},
		"insert negative": {"analysis.ipynb", "insert_cell", map[string]any{"index": -1, "cell_type": "code", "source": "x"},
			"invalid arguments for insert_cell: \"index\" must be at least 0 (got -1)"},
		"insert bad type": {"analysis.ipynb", "insert_cell", map[string]any{"index": 0, "cell_type": "heading", "source": "x"},
			"invalid arguments for insert_cell: \"cell_type\" must be one of \"code\", \"markdown\", \"raw\" (got \"heading\")"},
		"edit bad type": {"analysis.ipynb", "edit_cell", map[string]any{"index": 0, "cell_type": "python", "source": "x"},
			"invalid arguments for edit_cell: \"cell_type\" must be one of \"code\", \"markdown\", \"raw\" (got \"python\")"},
		"move to past end": {"analysis.ipynb", "move_cell", map[string]any{"index": 0, "to": 10},
			"to=10 is out of range: analysis.ipynb has 10 cells, so to must be 0 to 9"},
		"move to same place": {"analysis.ipynb", "move_cell", map[string]any{"id": "plot", "to": 4},
			"code cell [4] id=plot is already at index 4; nothing was changed"},
		"same source": {"analysis.ipynb", "edit_cell", map[string]any{"id": "a3f9e2c1", "source": "df.head()"},
			"code cell [3] id=a3f9e2c1 already has this source and type; nothing was changed"},
		"attachments to code": {"analysis.ipynb", "edit_cell", map[string]any{"id": "c1d2e3f4", "cell_type": "code", "source": "x"},
			"markdown cell [7] id=c1d2e3f4 has attachments (graphique.png), which a code cell cannot hold; nothing was changed"},
		"unknown argument": {"analysis.ipynb", "delete_cell", map[string]any{"cell": 1},
			`invalid arguments for delete_cell: unknown argument "cell"; delete_cell takes: path, id, index`},
		"missing file": {"nope.ipynb", "insert_cell", map[string]any{"index": 0, "cell_type": "code", "source": "x"},
			"nope.ipynb does not exist"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, false)
			path := e.path(tc.file)
			if err := os.Chmod(e.path("analysis.ipynb"), 0o640); err != nil {
				t.Fatal(err)
			}
			before := snap(t, path)
			tc.args["path"] = tc.file
			got, isErr := e.call(t, tc.tool, tc.args)
			if !isErr || !strings.Contains(got, tc.want) {
				t.Errorf("got %q (error %v), want an error containing %q", got, isErr, tc.want)
			}
			if diff := cmp.Diff(before, snap(t, path)); diff != "" {
				t.Errorf("file changed (-before +after):\n%s", diff)
			}
			noTempFiles(t, e.dir)
		})
	}
}

type snapshot struct {
	Data   []byte
	Mode   fs.FileMode
	Exists bool
}

func snap(t *testing.T, path string) snapshot {
	t.Helper()
	fi, err := os.Stat(path)
	if os.IsNotExist(err) {
		return snapshot{}
	}
	if err != nil {
		t.Fatal(err)
	}
	return snapshot{Data: readFile(t, path), Mode: fi.Mode(), Exists: true}
}

func noTempFiles(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".tmp") {
			t.Errorf("temporary file left behind: %s", e.Name())
		}
	}
}

// TestWriteKeepsModeAndStyle edits files Jupyter did not write and checks
// that their style survives: the bytes equal the edited structure dumped
// the way the file was.
func TestWriteKeepsModeAndStyle(t *testing.T) {
	t.Parallel()
	analysis := fixture(t, "analysis.ipynb")
	tests := map[string]struct {
		dump string // a Python expression of nb for the file's style
		eol  string
	}{
		"jupyter, mode 0600":       {dump: `json.dumps(nb, indent=1, sort_keys=True, ensure_ascii=False) + "\n"`},
		"indent 2, file key order": {dump: `json.dumps(nb, indent=2, ensure_ascii=False) + "\n"`},
		"ensure_ascii":             {dump: `json.dumps(nb, indent=1, sort_keys=True) + "\n"`},
		"crlf":                     {dump: `json.dumps(nb, indent=1, sort_keys=True, ensure_ascii=False) + "\n"`, eol: "\r\n"},
		"single line":              {dump: `json.dumps(nb, ensure_ascii=False)`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			script := "import json, sys\nnb = json.loads(sys.stdin.buffer.read().decode('utf-8'))\nsys.stdout.buffer.write((" + tc.dump + ").encode('utf-8'))\n"
			dump := func(data []byte) []byte {
				out := notebook.RunPython(t, script, data)
				if tc.eol != "" {
					out = bytes.ReplaceAll(out, []byte("\n"), []byte(tc.eol))
				}
				return out
			}
			// Reorder the top-level keys as some writers do, so that "file
			// key order" means something.
			var in []byte
			if strings.Contains(name, "order") {
				in = notebook.RunPython(t, "import json, sys\nnb = json.loads(sys.stdin.buffer.read().decode('utf-8'))\n"+
					"nb = {'nbformat': nb['nbformat'], 'nbformat_minor': nb['nbformat_minor'], 'metadata': nb['metadata'], 'cells': nb['cells']}\n"+
					"sys.stdout.buffer.write(json.dumps(nb, indent=2, ensure_ascii=False).encode('utf-8'))\n", analysis)
				in = dump(in)
			} else {
				in = dump(analysis)
			}
			e := newEnv(t, false)
			path := e.path("styled.ipynb")
			writeFile(t, path, in, 0o600)
			for _, c := range []struct {
				tool string
				args map[string]any
			}{
				{"insert_cell", map[string]any{"index": 1, "cell_type": "markdown", "source": "Nouveau — 新的\n\ntexte"}},
				{"edit_cell", map[string]any{"id": "load-data", "source": "print('é')"}},
				{"edit_cell", map[string]any{"id": "d5e6f7a8", "cell_type": "code", "source": "x = 1"}},
				{"move_cell", map[string]any{"id": "plot", "to": 0}},
				{"delete_cell", map[string]any{"id": "b7d04e55"}},
			} {
				c.args["path"] = "styled.ipynb"
				if text, isErr := e.call(t, c.tool, c.args); isErr {
					t.Fatalf("%s: %s", c.tool, text)
				}
			}
			after := readFile(t, path)
			if diff := cmp.Diff(string(dump(after)), string(after)); diff != "" {
				t.Errorf("the file lost its style (-want +got):\n%s", diff)
			}
			if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
				t.Errorf("mode after writes: %v, %v; want 0600", fi.Mode(), err)
			}
			noTempFiles(t, e.dir)
		})
	}
}

// TestSourceAsString keeps a file's single-string sources single strings.
func TestSourceAsString(t *testing.T) {
	t.Parallel()
	e := newEnv(t, false)
	path := e.path("strings.ipynb")
	writeFile(t, path, []byte(`{"cells": [{"cell_type": "code", "execution_count": null, "id": "one", "metadata": {}, "outputs": [], "source": "a = 1\nb = 2"}], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}`), 0o644)
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"edit_cell", map[string]any{"id": "one", "source": "a = 3\nb = 4\n"}},
		{"insert_cell", map[string]any{"index": 1, "cell_type": "markdown", "source": "x\ny"}},
	} {
		c.args["path"] = "strings.ipynb"
		if text, isErr := e.call(t, c.tool, c.args); isErr {
			t.Fatalf("%s: %s", c.tool, text)
		}
	}
	got := parse(t, readFile(t, path))
	if diff := cmp.Diff([]any{"a = 3\nb = 4\n", "x\ny"}, []any{cell(got, 0)["source"], cell(got, 1)["source"]}); diff != "" {
		t.Errorf("sources (-want +got):\n%s", diff)
	}
}

// TestConcurrentWrites runs inserts in parallel on one notebook: each
// read-modify-write is serialised, so none is lost.
func TestConcurrentWrites(t *testing.T) {
	t.Parallel()
	e := newEnv(t, false)
	const n = 8
	errs := make(chan string, n)
	for i := range n {
		go func() {
			res, err := e.g.Call(t.Context(), &sdk.Call{Tool: "insert_cell", Arguments: []byte(`{"path": "analysis.ipynb", "index": 0, "cell_type": "code", "source": "x = ` + string(rune('0'+i)) + `"}`)}, nil)
			switch {
			case err != nil:
				errs <- err.Error()
			case res.IsError:
				errs <- res.Text()
			default:
				errs <- ""
			}
		}()
	}
	for range n {
		if msg := <-errs; msg != "" {
			t.Error(msg)
		}
	}
	after := readFile(t, e.path("analysis.ipynb"))
	got := parse(t, after)
	ids := map[any]bool{}
	for _, c := range cells(got) {
		ids[c.(map[string]any)["id"]] = true
	}
	if len(cells(got)) != 10+n || len(ids) != 10+n {
		t.Errorf("%d cells with %d distinct ids, want %d", len(cells(got)), len(ids), 10+n)
	}
	if diff := cmp.Diff(string(notebook.Canonical(t, after)), string(after)); diff != "" {
		t.Errorf("not what Jupyter writes:\n%s", diff)
	}
}

package notebook_test

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ramabana/ramabana-mcp/sdk/sdktest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// TestViewGolden compares whole views with testdata/*.view.txt; run with
// -update to rewrite them after a deliberate change.
func TestViewGolden(t *testing.T) {
	t.Parallel()
	e := newEnv(t, false)
	tests := map[string]map[string]any{
		"analysis.view.txt":         {"path": "analysis.ipynb"},
		"legacy44.view.txt":         {"path": "legacy44.ipynb"},
		"analysis.sources.view.txt": {"path": "analysis.ipynb", "outputs": false},
	}
	for golden, args := range tests {
		t.Run(golden, func(t *testing.T) {
			t.Parallel()
			got, isErr := e.call(t, "view_notebook", args)
			if isErr {
				t.Fatalf("error: %s", got)
			}
			path := filepath.Join("testdata", golden)
			if *update {
				writeFile(t, path, []byte(got+"\n"), 0o644)
				return
			}
			want := strings.TrimSuffix(string(readFile(t, path)), "\n")
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("view of %v (-want +got):\n%s", args, diff)
			}
		})
	}
}

// TestViewSummaries checks the properties the golden files show, so that a
// careless -update cannot lose them.
func TestViewSummaries(t *testing.T) {
	t.Parallel()
	e := newEnv(t, false)
	full, isErr := e.call(t, "view_notebook", map[string]any{"path": "analysis.ipynb"})
	if isErr {
		t.Fatal(full)
	}
	sources, _ := e.call(t, "view_notebook", map[string]any{"path": "analysis.ipynb", "outputs": false})
	tests := map[string]struct {
		view       string
		want, not  []string
		maxBytesOf int // the view is at most this long
	}{
		"header and cells": {view: full, want: []string{
			`analysis.ipynb: nbformat 4.5, 10 cells; kernel "Python 3 (ipykernel)" (python3); language python 3.11.7` + "\n\n[0] id=0c6b8f1e-3a47-4d2e-9f5b-7e21c4a9d803 markdown\n# Analyse des données — café ☕\n",
			"\n[1] id=imports code execution_count=1 tags=parameters\nimport pandas as pd\n",
			"\n[8] id=d5e6f7a8 raw\n.. note:: exporté avec nbconvert\n",
			"\n[9] id=e9f0a1b2 code execution_count=null\n(empty source)",
		}},
		"image elided": {view: full,
			want: []string{"--- display\n<Figure size 640x480 with 1 Axes>\n[image/png output, 12.1 KB, elided]\n", "[attachment graphique.png: image/png, 268 B, elided]"},
			not:  []string{"iVBORw0KGgo"}, // base64 of the PNG signature
		},
		"html elided, text shown": {view: full,
			want: []string{"--- result\n  produit    ventes\n0    café  12.50000\n1     thé   7.25000\n2      数据   0.00001\n[text/html output, 465 B, elided]\n"},
			not:  []string{"<table", "<div>"},
		},
		"streams": {view: full, want: []string{
			"--- stdout\nChargé 3 lignes depuis ventes.csv\n--- stderr\n/tmp/ipykernel_4211/31337.py:2: FutureWarning",
			// A progress bar redrawn with "\r" shows its final state only.
			"--- stderr\n100%|██████████| 120/120 [00:02<00:00, 59.9it/s]\n--- stdout\n",
		}, not: []string{" 50%|"}},
		"long output truncated": {view: full, want: []string{
			"époque   0: perte=1.000000",
			"[… 3,344 characters (76 lines) elided; the output has 5,280 characters …]\n",
			"époque 119: perte=0.008333 précision=0.9917\n",
		}, not: []string{"époque  60:"}},
		"error": {view: full,
			want: []string{"--- error\nZeroDivisionError: division by zero\nCell In[6], line 2, in moyenne(xs)\n----> 2     return sum(xs) / len(xs)\n"},
			not:  []string{"\x1b", "[0;31m", "Traceback (most recent call last)"},
		},
		"outputs hidden": {view: sources,
			want: []string{"[2] id=load-data code execution_count=2 (2 outputs not shown)\n", "[4] id=plot code execution_count=4 (1 output not shown)\n"},
			not:  []string{"--- ", "output, "},
		},
		"small": {view: full, maxBytesOf: 8 << 10},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			for _, w := range tc.want {
				if !strings.Contains(tc.view, w) {
					t.Errorf("view lacks %q", w)
				}
			}
			for _, n := range tc.not {
				if strings.Contains(tc.view, n) {
					t.Errorf("view contains %q", n)
				}
			}
			if tc.maxBytesOf > 0 && len(tc.view) > tc.maxBytesOf {
				t.Errorf("view is %d bytes for a %d-byte notebook; want at most %d", len(tc.view), len(fixture(t, "analysis.ipynb")), tc.maxBytesOf)
			}
		})
	}
}

// genNotebook writes a notebook of n code cells, each with the given source
// size, and returns its path.
func genNotebook(t *testing.T, dir string, n, sourceBytes int) string {
	t.Helper()
	cells := make([]map[string]any, n)
	for i := range cells {
		cells[i] = map[string]any{
			"cell_type": "code", "execution_count": nil, "id": fmt.Sprintf("cell-%03d", i), "metadata": map[string]any{},
			"outputs": []any{}, "source": []string{fmt.Sprintf("x = %d\n", i), strings.Repeat("#", sourceBytes)},
		}
	}
	b, err := json.MarshalIndent(map[string]any{"cells": cells, "metadata": map[string]any{}, "nbformat": 4, "nbformat_minor": 5}, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	name := fmt.Sprintf("gen-%d-%d.ipynb", n, sourceBytes)
	writeFile(t, filepath.Join(dir, name), b, 0o644)
	return name
}

func TestViewPaging(t *testing.T) {
	t.Parallel()
	e := newEnv(t, false)
	many := genNotebook(t, e.dir, 250, 10)
	big := genNotebook(t, e.dir, 30, 10<<10)
	huge := genNotebook(t, e.dir, 3, 300<<10)
	empty := filepath.Join(e.dir, "empty.ipynb")
	writeFile(t, empty, []byte(`{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}`), 0o644)
	tests := map[string]struct {
		args             map[string]any
		first, last      int // cells shown
		footer, wantErr  string
		maxBytes         int
		wantContainsText string
	}{
		"default page":    {args: map[string]any{"path": many}, first: 0, last: 99, footer: "(cells 0-99 of 250 shown; continue with start=100)"},
		"second page":     {args: map[string]any{"path": many, "start": 100}, first: 100, last: 199, footer: "(cells 100-199 of 250 shown; continue with start=200)"},
		"last page":       {args: map[string]any{"path": many, "start": 200}, first: 200, last: 249, footer: "(cells 200-249 of 250 shown)"},
		"limit":           {args: map[string]any{"path": many, "start": 5, "limit": 3}, first: 5, last: 7, footer: "(cells 5-7 of 250 shown; continue with start=8)"},
		"size cap":        {args: map[string]any{"path": big}, first: 0, last: 8, footer: "(cells 0-8 of 30 shown; continue with start=9)", maxBytes: 100 << 10},
		"one huge cell":   {args: map[string]any{"path": huge, "start": 1}, first: 1, last: 1, footer: "(cells 1-1 of 3 shown; continue with start=2)"},
		"start past end":  {args: map[string]any{"path": many, "start": 250}, wantErr: "start=250 is past the last cell: " + many + " has 250 cells (indexes 0-249)"},
		"negative":        {args: map[string]any{"path": many, "start": -1}, wantErr: "invalid arguments for view_notebook: \"start\" must be at least 0 (got -1)"},
		"empty notebook":  {args: map[string]any{"path": "empty.ipynb"}, first: -1, wantContainsText: "empty.ipynb: nbformat 4.5, 0 cells; kernel unknown\n\n(no cells)"},
		"empty, start=0":  {args: map[string]any{"path": "empty.ipynb", "start": 0}, first: -1, wantContainsText: "(no cells)"},
		"empty, start=1+": {args: map[string]any{"path": "empty.ipynb", "start": 1}, wantErr: "start=1 is past the last cell: empty.ipynb has no cells"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, isErr := e.call(t, "view_notebook", tc.args)
			if !sdktest.Outcome(t, got, isErr, tc.wantErr) {
				return
			}
			if tc.wantContainsText != "" && !strings.Contains(got, tc.wantContainsText) {
				t.Errorf("got %q, want it to contain %q", got, tc.wantContainsText)
			}
			if tc.first < 0 {
				return
			}
			var shown []int
			for l := range strings.SplitSeq(got, "\n") {
				var i int
				if _, err := fmt.Sscanf(l, "[%d] id=cell-", &i); err == nil {
					shown = append(shown, i)
				}
			}
			var want []int
			for i := tc.first; i <= tc.last; i++ {
				want = append(want, i)
			}
			if diff := cmp.Diff(want, shown); diff != "" {
				t.Errorf("cells shown (-want +got):\n%s", diff)
			}
			if footer := got[strings.LastIndexByte(got, '\n')+1:]; footer != tc.footer {
				t.Errorf("footer %q, want %q", footer, tc.footer)
			}
			if tc.maxBytes > 0 && len(got) > tc.maxBytes {
				t.Errorf("page of %d bytes, want at most %d", len(got), tc.maxBytes)
			}
		})
	}
}

// TestViewRefuses checks files that are not nbformat 4 notebooks.
func TestViewRefuses(t *testing.T) {
	t.Parallel()
	e := newEnv(t, false)
	files := map[string]string{
		"v3.ipynb":        `{"metadata": {}, "nbformat": 3, "nbformat_minor": 0, "worksheets": [{"cells": []}]}`,
		"v5.ipynb":        `{"cells": [], "metadata": {}, "nbformat": 5, "nbformat_minor": 0}`,
		"broken.ipynb":    "{\n \"cells\": [\n",
		"list.ipynb":      `[1, 2]`,
		"nofmt.ipynb":     `{"cells": []}`,
		"nocells.ipynb":   `{"nbformat": 4, "nbformat_minor": 5, "metadata": {}}`,
		"badcell.ipynb":   `{"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [{"source": "x"}]}`,
		"latin1.ipynb":    "{\"cells\": [], \"metadata\": {\"title\": \"caf\xe9\"}, \"nbformat\": 4, \"nbformat_minor\": 5}",
		"sub/placeholder": "",
	}
	for name, content := range files {
		if err := os.MkdirAll(filepath.Dir(e.path(name)), 0o755); err != nil {
			t.Fatal(err)
		}
		writeFile(t, e.path(name), []byte(content), 0o644)
	}
	tests := map[string]string{
		"v3.ipynb":      "v3.ipynb uses nbformat 3; these tools read and write nbformat 4 only. Convert it first, e.g. `jupyter nbconvert --to notebook --nbformat 4 --inplace v3.ipynb`",
		"v5.ipynb":      "v5.ipynb uses nbformat 5.0, which these tools do not know",
		"broken.ipynb":  "broken.ipynb is not valid JSON (line 3, column 1: unexpected end of file, expected a value), so it is not a notebook Jupyter can open",
		"list.ipynb":    "list.ipynb is JSON but not a notebook: its top level is not an object",
		"nofmt.ipynb":   `nofmt.ipynb is JSON but not a Jupyter notebook: it has no integer "nbformat" field`,
		"nocells.ipynb": `nocells.ipynb is not a valid nbformat 4 notebook: it has no "cells" list`,
		"badcell.ipynb": `badcell.ipynb is not a valid nbformat 4 notebook: cell 0 is not an object with a "cell_type"`,
		"latin1.ipynb":  "latin1.ipynb is not valid UTF-8",
		"missing.ipynb": "missing.ipynb does not exist",
		"sub":           "sub is a directory, not a notebook",
	}
	for path, want := range tests {
		t.Run(path, func(t *testing.T) {
			t.Parallel()
			got, isErr := e.call(t, "view_notebook", map[string]any{"path": path})
			if !isErr || !strings.Contains(got, want) {
				t.Errorf("got %q (error %v), want an error containing %q", got, isErr, want)
			}
			if strings.Contains(got, "changed") {
				t.Errorf("view_notebook, a read tool, speaks of changes: %q", got)
			}
		})
	}
}

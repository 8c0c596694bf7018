package notebook

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// FuzzNotebookRoundTrip parses any bytes as a notebook and, when they are
// one, writes it back unmodified. Nothing panics; what is written parses
// again and is written back byte for byte (a file in a consistent style,
// as Jupyter writes them, is already that: the seeds from testdata must
// come back unchanged); whitespace that follows no detected style is
// normalised on the first write, as the package documents.
func FuzzNotebookRoundTrip(f *testing.F) {
	seeds := map[string]bool{}
	for _, name := range []string{"analysis.ipynb", "legacy44.ipynb"} {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		seeds[string(data)] = true
		f.Add(data)
	}
	f.Add([]byte(`{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}`))
	f.Add([]byte("\ufeff{\"nbformat\":4,\"nbformat_minor\":2,\"cells\":[{\"cell_type\":\"raw\",\"source\":\"\\u00e9\"}]}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		nb, err := parseNotebook(data, "f.ipynb")
		if err != nil {
			return
		}
		out := nb.encode()
		again, err := parseNotebook(out, "f.ipynb")
		if err != nil {
			t.Fatalf("the written notebook does not parse: %v\n%q", err, out)
		}
		if out2 := again.encode(); !bytes.Equal(out2, out) {
			t.Fatalf("a written notebook does not round-trip:\n in: %q\nout: %q", out, out2)
		}
		if seeds[string(data)] && !bytes.Equal(out, data) {
			t.Fatalf("a Jupyter-written notebook changed:\n in: %q\nout: %q", data, out)
		}
	})
}

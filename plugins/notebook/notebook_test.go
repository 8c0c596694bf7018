package notebook_test

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ramabana/ramabana-mcp/plugins/notebook"
	"github.com/ramabana/ramabana-mcp/sdk"
	"github.com/ramabana/ramabana-mcp/sdk/sdktest"
)

// env is a served folder holding copies of the fixtures, with the plugin
// connected over gRPC.
type env struct {
	dir string
	g   sdk.Group
}

func newEnv(t *testing.T, readOutside bool) *env {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(dir, "root")
	if err := os.Mkdir(root, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"analysis.ipynb", "legacy44.ipynb"} {
		writeFile(t, filepath.Join(root, name), fixture(t, name), 0o644)
	}
	g, _ := sdktest.Connect(t, notebook.New(), sdk.Host{Roots: []string{root}, ReadOutside: readOutside})
	return &env{dir: root, g: g}
}

func (e *env) path(name string) string { return filepath.Join(e.dir, name) }

func (e *env) call(t *testing.T, tool string, args any) (string, bool) {
	t.Helper()
	res := sdktest.Call(t, e.g, tool, args)
	return res.Text(), res.IsError
}

func fixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func writeFile(t testing.TB, path string, data []byte, mode fs.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, data, mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}

func readFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// parse decodes a notebook with encoding/json, for comparing structures.
func parse(t testing.TB, data []byte) map[string]any {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("written notebook is not JSON: %v", err)
	}
	return v
}

func TestDescribe(t *testing.T) {
	t.Parallel()
	_, d := sdktest.Connect(t, notebook.New(), sdk.Host{Roots: []string{t.TempDir()}})
	type tool struct {
		Name, Kind string
		Required   []string
		Props      []string
	}
	var got []tool
	for _, g := range d.Groups {
		if g.Name != "notebook" || g.Mode != sdk.ModeDefault {
			t.Errorf("group %q mode %v", g.Name, g.Mode)
		}
		for _, s := range g.Tools {
			if s.Title == "" || len(s.Description) < 80 {
				t.Errorf("%s: title %q, description of %d bytes; want both", s.Name, s.Title, len(s.Description))
			}
			var schema struct {
				Type       string                     `json:"type"`
				Required   []string                   `json:"required"`
				Properties map[string]json.RawMessage `json:"properties"`
			}
			if err := json.Unmarshal(s.InputSchema, &schema); err != nil || schema.Type != "object" {
				t.Errorf("%s: input schema %s: %v", s.Name, s.InputSchema, err)
			}
			var props []string
			for name, p := range schema.Properties {
				if strings.Contains(string(p), `"null"`) {
					t.Errorf("%s.%s allows null: %s", s.Name, name, p)
				}
				props = append(props, name)
			}
			slices.Sort(props)
			got = append(got, tool{Name: s.Name, Kind: s.Kind.String(), Required: schema.Required, Props: props})
		}
	}
	want := []tool{
		{Name: "view_notebook", Kind: "read", Required: []string{"path"}, Props: []string{"limit", "outputs", "path", "start"}},
		{Name: "insert_cell", Kind: "write", Required: []string{"path", "index", "cell_type", "source"}, Props: []string{"cell_type", "index", "path", "source"}},
		{Name: "edit_cell", Kind: "write", Required: []string{"path", "source"}, Props: []string{"cell_type", "id", "index", "path", "source"}},
		{Name: "delete_cell", Kind: "write", Required: []string{"path"}, Props: []string{"id", "index", "path"}},
		{Name: "move_cell", Kind: "write", Required: []string{"path", "to"}, Props: []string{"id", "index", "path", "to"}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	if d.Name != "notebook" || d.Version != notebook.Version {
		t.Errorf("plugin %s %s", d.Name, d.Version)
	}
}

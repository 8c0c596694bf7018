package code_test

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ramabana/ramabana-mcp/plugins/code"
	"github.com/ramabana/ramabana-mcp/sdk"
	"github.com/ramabana/ramabana-mcp/sdk/sdktest"
)

// env is a served folder with the plugin connected over gRPC.
type env struct {
	dir string
	g   sdk.Group
}

// newEnv writes tree under a fresh served folder and connects the plugin.
func newEnv(t testing.TB, tree map[string]string) *env {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(dir, "root")
	if err := os.Mkdir(root, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, content := range tree {
		writeFile(t, filepath.Join(root, name), content)
	}
	return connect(t, root)
}

// connect serves the roots with commands allowed, so that inspect_python
// imports project modules; TestInspectPythonWithoutCommands covers the
// read-only case.
func connect(t testing.TB, roots ...string) *env {
	t.Helper()
	g, _ := sdktest.Connect(t, code.New(), sdk.Host{Roots: roots, Commands: true})
	return &env{dir: roots[0], g: g}
}

func (e *env) path(name string) string { return filepath.Join(e.dir, name) }

func writeFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), fs.FileMode(0o644)); err != nil {
		t.Fatal(err)
	}
}

// call calls a tool and returns its text and whether it is an error.
func (e *env) call(t testing.TB, tool string, args any) (string, bool) {
	t.Helper()
	res := sdktest.Call(t, e.g, tool, args)
	return res.Text(), res.IsError
}

// fixtures serves a copy of testdata/src.
func fixtures(t testing.TB) *env {
	t.Helper()
	tree := map[string]string{}
	entries, err := os.ReadDir(filepath.Join("testdata", "src"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join("testdata", "src", e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		tree[e.Name()] = string(b)
	}
	return newEnv(t, tree)
}

func TestDescribe(t *testing.T) {
	t.Parallel()
	_, d := sdktest.Connect(t, code.New(), sdk.Host{Roots: []string{t.TempDir()}})
	type tool struct {
		Name  string
		Kind  sdk.Kind
		Hints sdk.Hints
	}
	var got []tool
	for _, g := range d.Groups {
		if g.Name != "code" || g.Mode != sdk.ModeDefault {
			t.Errorf("group %q mode %v, want code, default", g.Name, g.Mode)
		}
		for _, s := range g.Tools {
			got = append(got, tool{s.Name, s.Kind, s.Hints()})
			if s.Title == "" || len(s.Description) < 80 || s.EffectiveTask() != sdk.TaskCompletion {
				t.Errorf("%s: title %q, description of %d bytes, task %q", s.Name, s.Title, len(s.Description), s.EffectiveTask())
			}
			var schema struct {
				Type       string                     `json:"type"`
				Properties map[string]json.RawMessage `json:"properties"`
			}
			if err := json.Unmarshal(s.InputSchema, &schema); err != nil || schema.Type != "object" || len(schema.Properties) == 0 {
				t.Errorf("%s: input schema %s (%v)", s.Name, s.InputSchema, err)
			}
		}
	}
	readOnly := sdk.Hints{ReadOnly: true, Idempotent: true}
	want := []tool{
		{"search_code", sdk.KindRead, readOnly},
		{"outline", sdk.KindRead, readOnly},
		{"find_symbol", sdk.KindRead, readOnly},
		{"inspect_python", sdk.KindAct, sdk.Hints{Idempotent: true}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	if d.Name != "code" || d.Version != code.Version {
		t.Errorf("plugin %q %q", d.Name, d.Version)
	}
}

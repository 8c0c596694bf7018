package notebook_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ramabana/ramabana-mcp/plugins/notebook"
	"github.com/ramabana/ramabana-mcp/sdk"
	"github.com/ramabana/ramabana-mcp/sdk/sdktest"
)

// TestPathsOutsideRoots checks every tool against paths that leave the
// served folder: all refused without read-outside; with it, view_notebook
// reads them and the write tools are still refused and change nothing.
func TestPathsOutsideRoots(t *testing.T) {
	t.Parallel()
	secret := fixture(t, "legacy44.ipynb")
	paths := map[string]func(outside string) string{
		"dotdot":              func(string) string { return "../outside/secret.ipynb" },
		"absolute":            func(o string) string { return filepath.Join(o, "secret.ipynb") },
		"symlink to file":     func(string) string { return "link.ipynb" },
		"through symlink dir": func(string) string { return "out-dir/secret.ipynb" },
	}
	tools := map[string]struct {
		args  map[string]any
		write bool
	}{
		"view_notebook": {args: map[string]any{}},
		"insert_cell":   {args: map[string]any{"index": 0, "cell_type": "code", "source": "leak"}, write: true},
		"edit_cell":     {args: map[string]any{"index": 0, "source": "leak"}, write: true},
		"delete_cell":   {args: map[string]any{"index": 0}, write: true},
		"move_cell":     {args: map[string]any{"index": 0, "to": 1}, write: true},
	}
	for _, readOutside := range []bool{false, true} {
		e := newEnv(t, readOutside)
		outside := filepath.Join(filepath.Dir(e.dir), "outside")
		if err := os.Mkdir(outside, 0o755); err != nil {
			t.Fatal(err)
		}
		secretPath := filepath.Join(outside, "secret.ipynb")
		writeFile(t, secretPath, secret, 0o600)
		for link, target := range map[string]string{"link.ipynb": secretPath, "out-dir": outside} {
			if err := os.Symlink(target, e.path(link)); err != nil {
				t.Fatal(err)
			}
		}
		for pname, p := range paths {
			for tname, tc := range tools {
				t.Run(strings.Join([]string{map[bool]string{false: "inside only", true: "read outside"}[readOutside], pname, tname}, "/"), func(t *testing.T) {
					args := map[string]any{"path": p(outside)}
					for k, v := range tc.args {
						args[k] = v
					}
					got, isErr := e.call(t, tname, args)
					if readOutside && !tc.write {
						if isErr || !strings.Contains(got, "# Old notebook") {
							t.Errorf("read outside: got %q (error %v)", got, isErr)
						}
						return
					}
					if !isErr || !strings.Contains(got, "outside the served folders") {
						t.Errorf("got %q (error %v), want an error about the served folders", got, isErr)
					}
					if diff := cmp.Diff(string(secret), string(readFile(t, secretPath))); diff != "" {
						t.Errorf("the file outside changed:\n%s", diff)
					}
				})
			}
		}
	}
}

// TestSymlinkInsideIsWrittenThrough edits a notebook through a symlink
// inside the roots: the target changes, the link stays a link.
func TestSymlinkInsideIsWrittenThrough(t *testing.T) {
	t.Parallel()
	e := newEnv(t, false)
	if err := os.Symlink("analysis.ipynb", e.path("alias.ipynb")); err != nil {
		t.Fatal(err)
	}
	res := sdktest.Call(t, e.g, "delete_cell", map[string]any{"path": "alias.ipynb", "index": 9})
	if res.IsError {
		t.Fatal(res.Text())
	}
	if fi, err := os.Lstat(e.path("alias.ipynb")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("alias.ipynb is no longer a symlink: %v %v", fi, err)
	}
	if n := len(cells(parse(t, readFile(t, e.path("analysis.ipynb"))))); n != 9 {
		t.Errorf("target has %d cells, want 9", n)
	}
	if got := res.Changes[0].Path; got != e.path("analysis.ipynb") {
		t.Errorf("change reported for %s, want the target", got)
	}
}

// TestHostContextChange checks that a new Describe with other roots takes
// effect.
func TestHostContextChange(t *testing.T) {
	t.Parallel()
	first, second := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(second, "only-here.ipynb"), fixture(t, "legacy44.ipynb"), 0o644)
	g, _ := sdktest.Connect(t, notebook.New(), sdk.Host{Roots: []string{first}})
	args := map[string]any{"path": "only-here.ipynb"}
	if res := sdktest.Call(t, g, "view_notebook", args); !res.IsError {
		t.Fatalf("first root: %s", res.Text())
	}
	if _, err := g.Describe(t.Context(), sdk.Host{Roots: []string{second}}); err != nil {
		t.Fatal(err)
	}
	if res := sdktest.Call(t, g, "view_notebook", args); res.IsError || !strings.HasPrefix(res.Text(), "only-here.ipynb: nbformat 4.4") {
		t.Fatalf("second root: %s", res.Text())
	}
}

func TestMissingRootIsAFault(t *testing.T) {
	t.Parallel()
	g, _ := sdktest.Connect(t, notebook.New(), sdk.Host{Roots: []string{filepath.Join(t.TempDir(), "gone")}})
	b, _ := json.Marshal(map[string]any{"path": "x.ipynb"})
	if _, err := g.Call(t.Context(), &sdk.Call{Tool: "view_notebook", Arguments: b}, nil); err == nil {
		t.Error("view_notebook with a missing root returned no error")
	}
}

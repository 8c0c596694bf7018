package files_test

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ramabana/ramabana-mcp/plugins/files"
	"github.com/ramabana/ramabana-mcp/plugins/internal/hashline"
	"github.com/ramabana/ramabana-mcp/sdk"
	"github.com/ramabana/ramabana-mcp/sdk/sdktest"
)

// env is a served folder with the files plugin connected over gRPC.
type env struct {
	dir string
	g   sdk.Group
}

// newEnv writes files (name → content) into a fresh served folder and
// connects the plugin to it.
func newEnv(t *testing.T, tree map[string]string, readOutside bool) *env {
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
		writeFile(t, filepath.Join(root, name), content, 0o644)
	}
	g, _ := sdktest.Connect(t, files.New(), sdk.Host{Roots: []string{root}, ReadOutside: readOutside})
	return &env{dir: root, g: g}
}

func (e *env) path(name string) string { return filepath.Join(e.dir, name) }

func writeFile(t *testing.T, path, content string, mode fs.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}

// call calls a tool and returns its text and whether it is an error.
func (e *env) call(t *testing.T, tool string, args any) (string, bool) {
	t.Helper()
	res := sdktest.Call(t, e.g, tool, args)
	return res.Text(), res.IsError
}

// snapshot is a file's bytes and mode, to check it did not change.
type snapshot struct {
	Data []byte
	Mode fs.FileMode
}

func snap(t *testing.T, path string) snapshot {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return snapshot{Data: data, Mode: fi.Mode()}
}

func readString(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// noTempFiles fails if a write left a temporary file in dir.
func noTempFiles(t *testing.T, dir string) {
	t.Helper()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".tmp") {
			t.Errorf("temporary file left behind: %s", p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestDescribe(t *testing.T) {
	t.Parallel()
	_, d := sdktest.Connect(t, files.New(), sdk.Host{Roots: []string{t.TempDir()}})
	type tool struct {
		Name, Kind string
		Required   []string
	}
	type group struct {
		Name, Mode string
		Tools      []tool
	}
	var got []group
	for _, g := range d.Groups {
		gg := group{Name: g.Name, Mode: g.Mode.String()}
		for _, s := range g.Tools {
			if s.Title == "" || len(s.Description) < 80 {
				t.Errorf("%s: title %q, description of %d bytes; want both", s.Name, s.Title, len(s.Description))
			}
			var schema struct {
				Type     string   `json:"type"`
				Required []string `json:"required"`
			}
			if err := json.Unmarshal(s.InputSchema, &schema); err != nil || schema.Type != "object" {
				t.Errorf("%s: input schema %s: %v", s.Name, s.InputSchema, err)
			}
			gg.Tools = append(gg.Tools, tool{Name: s.Name, Kind: s.Kind.String(), Required: schema.Required})
		}
		got = append(got, gg)
	}
	want := []group{
		{Name: "files", Mode: "default", Tools: []tool{
			{Name: "view_file", Kind: "read", Required: []string{"path"}},
			{Name: "view_files", Kind: "read", Required: []string{"paths"}},
			{Name: "file_info", Kind: "read", Required: []string{"paths"}},
			{Name: "list_files", Kind: "read"},
			{Name: "create_file", Kind: "write", Required: []string{"path", "content"}},
			{Name: "replace_text", Kind: "write", Required: []string{"path", "old", "new"}},
			{Name: "move_file", Kind: "write", Required: []string{"from", "to"}},
			{Name: "delete_file", Kind: "write", Required: []string{"path"}},
		}},
		{Name: "exhash", Mode: "opt-in", Tools: []tool{
			{Name: "edit_file", Kind: "write", Required: []string{"path", "edits"}},
		}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("description (-want +got):\n%s", diff)
	}
	if d.Name != "files" || d.Version != files.Version {
		t.Errorf("plugin %s %s", d.Name, d.Version)
	}
}

// TestLineHash checks that LineHash is hashline.Hash, which the package
// hashline tests pin, and keeps one known value here, where docs point.
func TestLineHash(t *testing.T) {
	t.Parallel()
	for _, line := range []string{"", "RESERVE = 16_384", "    return x\n", "    return x\r\n", "a\r", "naïve ✓"} {
		if got, want := files.LineHash(line), hashline.Hash(line); got != want {
			t.Errorf("LineHash(%q) = %q, hashline.Hash %q", line, got, want)
		}
	}
	// FNV-1a("") is 0x811c9dc5, folded 0x811c^0x9dc5.
	if got := files.LineHash(""); got != "1cd9" {
		t.Errorf(`LineHash("") = %q, want "1cd9"`, got)
	}
}

// lines formats "lineno|hash|content" lines from 1-based n.
func lines(n int, contents ...string) string {
	var b bytes.Buffer
	for i, c := range contents {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(strings.Join([]string{strconv.Itoa(n + i), files.LineHash(c), c}, "|"))
	}
	return b.String()
}

// TestHostContextChange checks that a new Describe with other roots takes
// effect: roots are cached per host context, not once.
func TestHostContextChange(t *testing.T) {
	t.Parallel()
	first, second := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(second, "only-here.txt"), "here\n", 0o644)
	g, _ := sdktest.Connect(t, files.New(), sdk.Host{Roots: []string{first}})
	args := map[string]any{"path": "only-here.txt"}
	if res := sdktest.Call(t, g, "view_file", args); !res.IsError {
		t.Fatalf("first root: %s", res.Text())
	}
	if _, err := g.Describe(t.Context(), sdk.Host{Roots: []string{second}}); err != nil {
		t.Fatal(err)
	}
	if res := sdktest.Call(t, g, "view_file", args); res.IsError || res.Text() != lines(1, "here") {
		t.Fatalf("second root: %s", res.Text())
	}
}

func TestMissingRootIsAFault(t *testing.T) {
	t.Parallel()
	g, _ := sdktest.Connect(t, files.New(), sdk.Host{Roots: []string{filepath.Join(t.TempDir(), "gone")}})
	b, _ := json.Marshal(map[string]any{"path": "x"})
	if _, err := g.Call(t.Context(), &sdk.Call{Tool: "view_file", Arguments: b}, nil); err == nil {
		t.Error("view_file with a missing root returned no error")
	}
}

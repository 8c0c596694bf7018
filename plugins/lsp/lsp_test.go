//go:build linux

package lsp_test

import (
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ramabana/ramabana-mcp/plugins/lsp"
	"github.com/ramabana/ramabana-mcp/sdk"
	"github.com/ramabana/ramabana-mcp/sdk/sdktest"
)

// workspace is a fixture copied to a temporary served folder, and the
// plugin serving it with the language servers the config names.
type workspace struct {
	root   string
	cfg    string // the config folder
	plugin *lsp.Plugin
	group  sdk.Group
}

// serve copies testdata/fixture to a temporary folder and serves it with
// a config naming servers (language → command).
func serve(t *testing.T, fixture string, servers map[string][]string, edit func(*sdk.Host)) *workspace {
	t.Helper()
	return serveIn(t, copyFixture(t, fixture), servers, edit)
}

// serveIn serves the folder root.
func serveIn(t *testing.T, root string, servers map[string][]string, edit func(*sdk.Host)) *workspace {
	t.Helper()
	cfg := t.TempDir()
	entry := map[string]any{}
	for lang, cmd := range servers {
		entry[lang] = map[string]any{"command": cmd}
	}
	writeJSON(t, filepath.Join(cfg, "config.json"), map[string]any{"lsp": entry})
	host := sdk.Host{Roots: []string{root}, Write: true, ConfigDir: cfg}
	if edit != nil {
		edit(&host)
	}
	p := lsp.New()
	t.Cleanup(p.Close)
	g, _ := sdktest.Connect(t, p, host)
	return &workspace{root: root, cfg: cfg, plugin: p, group: g}
}

// call calls a tool and returns its text, failing the test on an error
// result unless wantErr.
func (w *workspace) call(t *testing.T, tool string, args map[string]any) string {
	t.Helper()
	res := sdktest.Call(t, w.group, tool, args)
	if res.IsError {
		t.Fatalf("%s %v: %s", tool, args, res.Text())
	}
	return res.Text()
}

// fail calls a tool that must fail, and returns its message.
func (w *workspace) fail(t *testing.T, tool string, args map[string]any) string {
	t.Helper()
	res := sdktest.Call(t, w.group, tool, args)
	if !res.IsError {
		t.Fatalf("%s %v succeeded: %s", tool, args, res.Text())
	}
	return res.Text()
}

func (w *workspace) read(t *testing.T, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(w.root, rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func (w *workspace) write(t *testing.T, rel, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(w.root, rel), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// snapshot is every file of the workspace and its content.
func (w *workspace) snapshot(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(w.root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(w.root, p)
		out[filepath.ToSlash(rel)] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func copyFixture(t *testing.T, name string) string {
	t.Helper()
	dst, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	src := filepath.Join("testdata", name)
	err = filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// shownPlaces are the "file:line" an answer lists: a file's path on a
// line of its own, then its lines as "lineno|hash|content".
func shownPlaces(text string) []string {
	var out []string
	file := ""
	lineRE := regexp.MustCompile(`^(\d+)\|[0-9a-f]{4}\|`)
	for _, l := range strings.Split(text, "\n") {
		if m := lineRE.FindStringSubmatch(l); m != nil {
			out = append(out, file+":"+m[1])
			continue
		}
		if !strings.Contains(l, " ") && strings.Contains(l, ".") {
			file = l
		}
	}
	slices.Sort(out)
	return out
}

// goEnv is an environment for the go command on a fixture.
func goEnv() []string {
	return append(os.Environ(), "GOTOOLCHAIN=local", "GOFLAGS=-mod=mod", "GOPROXY=off")
}

// goCheck runs go build and go vet on the workspace.
func goCheck(t *testing.T, root string) {
	t.Helper()
	for _, args := range [][]string{{"build", "./..."}, {"vet", "./..."}} {
		cmd := exec.Command("go", args...)
		cmd.Dir, cmd.Env = root, goEnv()
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
}

// goplsReferences is what gopls's own command line answers for the
// references of the symbol at place ("file:line:col", 1-based, byte
// column), as sorted "file:line".
func goplsReferences(t *testing.T, gopls []string, root, place string) []string {
	t.Helper()
	cmd := exec.Command(gopls[0], append(gopls[1:], "references", "-d", place)...)
	cmd.Dir, cmd.Env = root, goEnv()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("gopls references %s: %v\n%s", place, err, out)
	}
	var refs []string
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		// /abs/file.go:line:col-endcol
		parts := strings.Split(l, ":")
		if len(parts) < 3 {
			continue
		}
		rel, _ := filepath.Rel(root, parts[0])
		refs = append(refs, filepath.ToSlash(rel)+":"+parts[1])
	}
	slices.Sort(refs)
	return slices.Compact(refs)
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func itoa(n int) string { return strconv.Itoa(n) }

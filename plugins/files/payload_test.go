package files_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ramabana/ramabana-mcp/plugins/files"
	"github.com/ramabana/ramabana-mcp/sdk"
	"github.com/ramabana/ramabana-mcp/sdk/sdktest"
)

// TestPathPayloads tries hostile paths on every path-taking tool, with a
// served folder reached through a symlink: each is refused (a long path
// inside the root may work), and nothing outside changes.
func TestPathPayloads(t *testing.T) {
	t.Parallel()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	real, outside := filepath.Join(base, "real"), filepath.Join(base, "outside")
	writeFile(t, filepath.Join(real, "in.txt"), "in\n", 0o644)
	writeFile(t, filepath.Join(outside, "secret.txt"), "secret\n", 0o644)
	link := filepath.Join(base, "root-link")
	for _, l := range [][2]string{{real, link}, {outside, filepath.Join(real, "c1")}, {"c1", filepath.Join(real, "c2")}, {"c2/../c1", filepath.Join(real, "c3")}, {filepath.Join(outside, "none.txt"), filepath.Join(real, "dangling")}} {
		if err := os.Symlink(l[0], l[1]); err != nil {
			t.Fatal(err)
		}
	}
	// The host sends its folders resolved (a root given as a link is
	// served as its target, tried end to end in cmd/ramabana-mcp); the
	// link stays reachable as an absolute path to resolve.
	g, _ := sdktest.Connect(t, files.New(), sdk.Host{Roots: []string{real}})
	payloads := map[string]string{
		"dotdot":             "../outside/secret.txt",
		"absolute outside":   filepath.Join(outside, "secret.txt"),
		"chain of links":     "c3/secret.txt",
		"dangling to out":    "dangling",
		"nul byte":           "in.txt\x00/../../outside/secret.txt",
		"long component":     strings.Repeat("a", 300),
		"long path":          strings.Repeat("d/", 3000) + "x",
		"through root link":  filepath.Join(link, "c1", "secret.txt"),
		"dotdot from inside": "in.txt/../../outside/secret.txt",
	}
	tools := map[string]func(p string) map[string]any{
		"view_file":    func(p string) map[string]any { return map[string]any{"path": p} },
		"list_files":   func(p string) map[string]any { return map[string]any{"path": p} },
		"create_file":  func(p string) map[string]any { return map[string]any{"path": p, "content": "x", "overwrite": true} },
		"replace_text": func(p string) map[string]any { return map[string]any{"path": p, "old": "secret", "new": "leak"} },
		"edit_file": func(p string) map[string]any {
			return map[string]any{"path": p, "edits": []map[string]any{{"op": "insert_after", "line": 0, "text": "leak"}}}
		},
	}
	tried := 0
	for tool, args := range tools {
		for name, p := range payloads {
			tried++
			res := sdktest.Call(t, g, tool, args(p))
			// A very long path inside the root is still inside: os.Root
			// reaches it one component at a time, past PATH_MAX.
			if !res.IsError && name != "long path" {
				t.Errorf("%s(%s) succeeded: %q", tool, name, res.Text())
			}
			if strings.Contains(res.Text(), "secret\n") || strings.HasSuffix(res.Text(), "|secret") {
				t.Errorf("%s(%s) showed outside content", tool, name)
			}
		}
	}
	entries, _ := os.ReadDir(outside)
	if len(entries) != 1 || readString(t, filepath.Join(outside, "secret.txt")) != "secret\n" {
		t.Errorf("outside changed: %v", entries)
	}
	t.Logf("%d tool x payload cases tried", tried)
}

// TestListBudget checks that list_files stops at max_files
// and say so.
func TestListBudget(t *testing.T) {
	t.Parallel()
	tree := map[string]string{}
	for _, n := range []string{"a", "b", "c", "d", "e", "f", "g", "h"} {
		tree[n+"/x.txt"] = "x\n"
	}
	e := newEnv(t, tree, false)
	got, isErr := e.call(t, "list_files", map[string]any{"max_files": 5})
	if isErr || !strings.Contains(got, "stopped after") || !strings.Contains(got, "narrow path or glob") {
		t.Errorf("list_files with max_files=5 = %q (error %v)", got, isErr)
	}
}

package files_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ramabana/ramabana-mcp/plugins/files"
)

// TestPathsOutsideRoots checks every tool against paths that leave the
// served folder: refused for all without read-outside; with it, allowed for
// the read tools and still refused for the write tools, which change
// nothing outside.
func TestPathsOutsideRoots(t *testing.T) {
	t.Parallel()
	const secret = "top secret\n"
	paths := map[string]func(outside string) string{
		"dotdot":              func(string) string { return "../outside/secret.txt" },
		"absolute outside":    func(o string) string { return filepath.Join(o, "secret.txt") },
		"symlink to file":     func(string) string { return "out-file" },
		"through symlink dir": func(string) string { return "out-dir/secret.txt" },
	}
	newFile := map[string]func(outside string) string{
		"dotdot new":           func(string) string { return "../outside/new.txt" },
		"absolute new":         func(o string) string { return filepath.Join(o, "new.txt") },
		"new through link dir": func(string) string { return "out-dir/new.txt" },
		"dangling symlink":     func(string) string { return "dangling" },
	}
	hash := files.LineHash("top secret")
	tools := map[string]struct {
		args  func(p string) map[string]any
		write bool
		// onlyExisting: the tool needs an existing file.
		onlyExisting bool
		want         string // with read-outside, for a read tool
	}{
		"view_file":    {args: func(p string) map[string]any { return map[string]any{"path": p} }, onlyExisting: true, want: "1|" + hash + "|top secret"},
		"create_file":  {args: func(p string) map[string]any { return map[string]any{"path": p, "content": "x", "overwrite": true} }, write: true},
		"replace_text": {args: func(p string) map[string]any { return map[string]any{"path": p, "old": "top", "new": "bottom"} }, write: true, onlyExisting: true},
		"edit_file": {args: func(p string) map[string]any {
			return map[string]any{"path": p, "edits": []map[string]any{{"op": "replace", "line": 1, "hash": hash, "text": "leaked"}}}
		}, write: true, onlyExisting: true},
	}
	for _, readOutside := range []bool{false, true} {
		e := newEnv(t, nil, readOutside)
		outside := filepath.Join(filepath.Dir(e.dir), "outside")
		writeFile(t, filepath.Join(outside, "secret.txt"), secret, 0o600)
		for name, target := range map[string]string{
			"out-file": filepath.Join(outside, "secret.txt"),
			"out-dir":  outside,
			"dangling": filepath.Join(outside, "missing.txt"),
		} {
			if err := os.Symlink(target, e.path(name)); err != nil {
				t.Fatal(err)
			}
		}
		for toolName, tool := range tools {
			all := map[string]func(string) string{}
			for k, v := range paths {
				all[k] = v
			}
			if !tool.onlyExisting {
				for k, v := range newFile {
					all[k] = v
				}
			}
			for pathName, path := range all {
				p := path(outside)
				t.Run(toolName+"/"+pathName+map[bool]string{true: "/read-outside"}[readOutside], func(t *testing.T) {
					got, isErr := e.call(t, toolName, tool.args(p))
					if readOutside && !tool.write {
						if isErr || got != tool.want {
							t.Errorf("got %q (error %v), want %q", got, isErr, tool.want)
						}
						return
					}
					if !isErr || !strings.Contains(got, "is outside the served folders") {
						t.Errorf("got %q (error %v), want a refusal", got, isErr)
					}
				})
			}
		}
		// Nothing outside changed or appeared.
		entries, err := os.ReadDir(outside)
		if err != nil {
			t.Fatal(err)
		}
		if len(entries) != 1 || readString(t, filepath.Join(outside, "secret.txt")) != secret {
			t.Errorf("outside folder changed: %v", entries)
		}
	}
}

func TestListOutsideRoots(t *testing.T) {
	t.Parallel()
	for _, readOutside := range []bool{false, true} {
		e := newEnv(t, nil, readOutside)
		outside := filepath.Join(filepath.Dir(e.dir), "outside")
		writeFile(t, filepath.Join(outside, "secret.txt"), "", 0o644)
		if err := os.Symlink(outside, e.path("out-dir")); err != nil {
			t.Fatal(err)
		}
		for _, p := range []string{"..", "../outside", outside, "out-dir"} {
			got, isErr := e.call(t, "list_files", map[string]any{"path": p, "glob": "secret.txt"})
			switch {
			case !readOutside && (!isErr || !strings.Contains(got, "is outside the served folders")):
				t.Errorf("list_files(%q) = %q (error %v), want a refusal", p, got, isErr)
			case readOutside && (isErr || !strings.HasSuffix(got, "secret.txt")):
				t.Errorf("list_files(%q) with read-outside = %q (error %v)", p, got, isErr)
			}
		}
		// The listing of the root shows the link but does not follow it.
		got, _ := e.call(t, "list_files", map[string]any{})
		if diff := cmp.Diff("out-dir", got); diff != "" {
			t.Errorf("root listing (-want +got):\n%s", diff)
		}
	}
}

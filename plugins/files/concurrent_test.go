package files_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ramabana/ramabana-mcp/plugins/files"
	"github.com/ramabana/ramabana-mcp/sdk"
	"github.com/ramabana/ramabana-mcp/sdk/sdktest"
)

// writerEnv names the file a helper process edits; writerName its mark.
const (
	writerEnv  = "RAMABANA_TEST_WRITER_FILE"
	writerName = "RAMABANA_TEST_WRITER_NAME"
	edits      = 20
)

// TestHelperWriter is not a test: run by TestConcurrentWriters in a
// separate process, it makes 20 replace_text edits through its own files
// plugin, each inserting a line before the END marker.
func TestHelperWriter(t *testing.T) {
	path := os.Getenv(writerEnv)
	if path == "" {
		t.Skip("helper process for TestConcurrentWriters")
	}
	g, _ := sdktest.Connect(t, files.New(), sdk.Host{Roots: []string{filepath.Dir(path)}})
	for i := range edits {
		line := fmt.Sprintf("%s-%d", os.Getenv(writerName), i)
		res := sdktest.Call(t, g, "replace_text", map[string]any{"path": filepath.Base(path), "old": "END\n", "new": line + "\nEND\n"})
		if res.IsError {
			t.Errorf("edit %s: %s", line, res.Text())
		}
	}
}

// TestConcurrentWriters runs two server processes that each make 20
// replace_text edits of one file at the same time: every edit is in the
// file at the end (none is lost, none refused).
func TestConcurrentWriters(t *testing.T) {
	t.Parallel()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "shared.txt")
	writeFile(t, path, "START\nEND\n", 0o644)
	var cmds []*exec.Cmd
	var outs []*strings.Builder
	for _, name := range []string{"A", "B"} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperWriter$", "-test.count=1")
		cmd.Env = append(os.Environ(), writerEnv+"="+path, writerName+"="+name)
		out := &strings.Builder{}
		cmd.Stdout, cmd.Stderr = out, out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		cmds, outs = append(cmds, cmd), append(outs, out)
	}
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Errorf("writer %d: %v\n%s", i, err, outs[i])
		}
	}
	got := readString(t, path)
	lost := 0
	for _, name := range []string{"A", "B"} {
		for i := range edits {
			if !strings.Contains(got, fmt.Sprintf("\n%s-%d\n", name, i)) {
				lost++
			}
		}
	}
	if lost > 0 || !strings.HasPrefix(got, "START\n") || !strings.HasSuffix(got, "\nEND\n") {
		t.Errorf("%d of %d edits lost; file:\n%s", lost, 2*edits, got)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("temporary files left: %v", entries)
	}
}

// TestBOMKept checks that every edit tool keeps a leading UTF-8 BOM first
// and untouched, and that view_file neither shows nor hashes it.
func TestBOMKept(t *testing.T) {
	t.Parallel()
	const bom = "\ufeff"
	h1 := files.LineHash("one")
	tests := map[string]struct {
		tool string
		args map[string]any
		want string
	}{
		"replace_text line 1": {"replace_text", map[string]any{"path": "f.txt", "old": "one", "new": "uno"}, bom + "uno\ntwo\n"},
		"edit_file replace line 1": {"edit_file", map[string]any{"path": "f.txt", "edits": []map[string]any{
			{"op": "replace", "line": 1, "hash": h1, "text": "uno"}}}, bom + "uno\ntwo\n"},
		"edit_file insert at top": {"edit_file", map[string]any{"path": "f.txt", "edits": []map[string]any{
			{"op": "insert_after", "line": 0, "text": "zero"}}}, bom + "zero\none\ntwo\n"},
		"edit_file delete line 1": {"edit_file", map[string]any{"path": "f.txt", "edits": []map[string]any{
			{"op": "delete", "line": 1, "hash": h1}}}, bom + "two\n"},
		"create_file overwrite without BOM": {"create_file", map[string]any{"path": "f.txt", "content": "new\n", "overwrite": true}, "new\n"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir, err := filepath.EvalSymlinks(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			writeFile(t, filepath.Join(dir, "f.txt"), bom+"one\ntwo\n", 0o644)
			g, _ := sdktest.Connect(t, files.New(), sdk.Host{Roots: []string{dir}})
			if res := sdktest.Call(t, g, "view_file", map[string]any{"path": "f.txt"}); res.Text() != "1|"+h1+"|one\n2|"+files.LineHash("two")+"|two" {
				t.Fatalf("view_file = %q", res.Text())
			}
			res := sdktest.Call(t, g, tc.tool, tc.args)
			if res.IsError {
				t.Fatalf("%s: %s", tc.tool, res.Text())
			}
			if got := readString(t, filepath.Join(dir, "f.txt")); got != tc.want {
				t.Errorf("file = %q, want %q", got, tc.want)
			}
		})
	}
}

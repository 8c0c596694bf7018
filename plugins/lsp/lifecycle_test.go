//go:build linux

package lsp_test

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ramabana/ramabana-mcp/internal/lsp/lsptest"
	"github.com/ramabana/ramabana-mcp/internal/proctest"
	"github.com/ramabana/ramabana-mcp/sdk"
)

// events records what a call streams.
type events struct {
	mu       sync.Mutex
	progress []string
}

func (e *events) Progress(_, _ float64, message string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.progress = append(e.progress, message)
}

func (e *events) Log(sdk.LogLevel, string) {}

// The first call starts the server and says so in its progress; a server
// that dies is started again by the next call, which says what happened;
// an idle server stops, and the next call starts it again.
func TestServerLifecycle(t *testing.T) {
	t.Parallel()
	gopls := lsptest.Gopls(t)
	w := serve(t, "go", map[string][]string{"go": gopls}, nil)
	// Kept running at first, so that its pid can be read whatever the
	// machine's pace.
	writeJSON(t, filepath.Join(w.cfg, "config.json"), map[string]any{"lsp": map[string]any{"go": map[string]any{"command": gopls}, "idle_seconds": 0}})

	ev := &events{}
	res, err := w.group.Call(context.Background(), &sdk.Call{Tool: "find_references", Arguments: []byte(`{"path": "shape/shape.go", "symbol": "Area"}`)}, ev)
	if err != nil || res.IsError {
		t.Fatalf("%v %v", err, res)
	}
	ev.mu.Lock()
	if len(ev.progress) == 0 || !strings.HasPrefix(ev.progress[0], "starting gopls for Go") {
		t.Errorf("the first call's progress: %q", ev.progress)
	}
	ev.mu.Unlock()

	// Idle for a second after a call, the server stops.
	pids := w.plugin.ServerPids()
	if len(pids) != 1 {
		t.Fatalf("servers running: %v", pids)
	}
	writeJSON(t, filepath.Join(w.cfg, "config.json"), map[string]any{"lsp": map[string]any{"go": map[string]any{"command": gopls}, "idle_seconds": 1}})
	w.call(t, "find_references", map[string]any{"path": "shape/shape.go", "symbol": "Area"})
	if !proctest.Await(func() bool { return len(w.plugin.ServerPids()) == 0 && !proctest.Alive(pids[0]) }) {
		t.Fatalf("the idle server %d did not stop", pids[0])
	}
	if refs := w.call(t, "find_references", map[string]any{"path": "shape/shape.go", "symbol": "Area"}); !strings.HasPrefix(refs, "6 references") || strings.Contains(refs, "Note:") {
		t.Errorf("after an idle stop:\n%s", refs)
	}

	// Killed, it starts again at the next call, which says so.
	writeJSON(t, filepath.Join(w.cfg, "config.json"), map[string]any{"lsp": map[string]any{"go": map[string]any{"command": gopls}, "idle_seconds": 0}})
	w.call(t, "find_references", map[string]any{"path": "shape/shape.go", "symbol": "Area"})
	pids = w.plugin.ServerPids()
	if len(pids) != 1 {
		t.Fatalf("servers running: %v", pids)
	}
	if err := proctest.Kill(pids[0]); err != nil {
		t.Fatal(err)
	}
	if !proctest.Await(func() bool { return !proctest.Alive(pids[0]) }) {
		t.Fatal("the killed server lives on")
	}
	refs := w.call(t, "find_references", map[string]any{"path": "shape/shape.go", "symbol": "Area"})
	if !strings.HasPrefix(refs, "6 references") || !strings.Contains(refs, "Note: the Go language server had ended (") || !strings.Contains(refs, "and was started again.") {
		t.Errorf("after a crash:\n%s", refs)
	}
}

// A language without a server: the error names what to install, and
// find_definition answers with tree-sitter's declarations, said as such.
func TestNoServer(t *testing.T) {
	t.Parallel()
	w := serve(t, "go", map[string][]string{"go": {"/nonexistent/gopls"}}, nil)
	msg := w.fail(t, "find_references", map[string]any{"path": "shape/shape.go", "symbol": "Area"})
	for _, s := range []string{"no language server for Go files", `"/nonexistent/gopls"`, "go install golang.org/x/tools/gopls@latest", `"lsp" entry of`} {
		if !strings.Contains(msg, s) {
			t.Errorf("the error lacks %q: %s", s, msg)
		}
	}
	def := w.call(t, "find_definition", map[string]any{"path": "report/report.go", "symbol": "Area"})
	for _, s := range []string{"no language server for Go files", "that tree-sitter finds by name", "shape/shape.go:4-7 function Area", "other/other.go:4-5 function Area"} {
		if !strings.Contains(def, s) {
			t.Errorf("the tree-sitter answer lacks %q:\n%s", s, def)
		}
	}
	if msg := w.fail(t, "rename_symbol", map[string]any{"path": "shape/shape.go", "symbol": "Area", "new_name": "X"}); !strings.Contains(msg, "no language server for Go files") {
		t.Errorf("rename without a server: %s", msg)
	}
}

// Bad input gets a clear error and changes nothing.
func TestBadInput(t *testing.T) {
	t.Parallel()
	w := serve(t, "go", map[string][]string{"go": lsptest.Gopls(t)}, nil)
	before := w.snapshot(t)
	for _, c := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"find_references", map[string]any{"path": "go.mod", "symbol": "x"}, "go.mod is not a file of a language the language servers here cover"},
		{"find_references", map[string]any{"path": "missing.go", "symbol": "x"}, "missing.go does not exist"},
		{"find_references", map[string]any{"path": "shape", "symbol": "x"}, "shape is a directory"},
		{"find_references", map[string]any{"path": "../outside.go", "symbol": "x"}, "outside"},
		{"find_references", map[string]any{"path": "shape/shape.go"}, "name the symbol"},
		{"find_references", map[string]any{"path": "shape/shape.go", "line": 99}, "has 7 lines; line 99 is past its end"},
		{"find_references", map[string]any{"path": "shape/shape.go", "symbol": "Nothing"}, `neither declares nor uses "Nothing"; it declares Area`},
		{"find_references", map[string]any{"path": "shape/shape.go", "symbol": "Area", "line": 1}, `line 1 of shape/shape.go has no "Area"; it reads:`},
		{"rename_symbol", map[string]any{"path": "shape/shape.go", "symbol": "Area", "new_name": "Area"}, "is already named Area"},
		{"rename_symbol", map[string]any{"path": "shape/shape.go", "symbol": "Area", "new_name": "not valid"}, "cannot rename"},
		{"rename_symbol", map[string]any{"path": "shape/shape.go", "symbol": "float64", "line": 5, "new_name": "f"}, "cannot be renamed"},
	} {
		if msg := w.fail(t, c.tool, c.args); !strings.Contains(msg, c.want) {
			t.Errorf("%s %v: %s\nwant it to say %q", c.tool, c.args, msg, c.want)
		}
	}
	if len(w.snapshot(t)) != len(before) {
		t.Error("a refused call left files behind")
	}
	for f, b := range w.snapshot(t) {
		if before[f] != b {
			t.Errorf("a refused call changed %s", f)
		}
	}
}

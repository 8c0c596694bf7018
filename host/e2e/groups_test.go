package e2e

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ramabana/ramabana-mcp/host/internal/mcpserver"
	"github.com/ramabana/ramabana-mcp/internal/proctest"
)

// hints is what a tool's annotations must say.
type hints struct{ readOnly, destructive, openWorld bool }

var (
	read      = hints{readOnly: true}
	write     = hints{destructive: true}
	openWorld = hints{readOnly: true, openWorld: true}
	act       = hints{}
	// Writes that only add (git history, a memory): not destructive.
	additive = hints{}
)

// writeTools are every bundled group's write tools: absent from a
// read-only server.
var allWriteTools = []string{
	"create_file", "replace_text", "edit_file",
	"git_add", "git_commit", "git_branch", "git_checkout",
	"run_command",
	"insert_cell", "edit_cell", "delete_cell", "move_cell",
	"remember", "forget",
}

// groupProject is a served folder with something for every group: source
// files, a git repository with one commit, and a notebook.
func groupProject(t *testing.T) string {
	t.Helper()
	root := project(t)
	nb, err := os.ReadFile(filepath.Join("..", "..", "plugins", "notebook", "testdata", "analysis.ipynb"))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"analysis.ipynb": string(nb),
		"pkg/server.go":  "package pkg\n\ntype Server struct{}\n\n// Run serves.\nfunc (s *Server) Run() error { return nil }\n",
		"pkg/mod.py":     "def area(w: int, h: int) -> int:\n    \"\"\"Area of a w by h rectangle.\"\"\"\n    return w * h\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(root, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{
		{"init", "-q", "-b", "main"},
		{"config", "user.name", "E2E"},
		{"config", "user.email", "e2e@example.com"},
		{"add", "-A"},
		{"commit", "-q", "-m", "first commit"},
	} {
		cmd := exec.Command("git", args...)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return root
}

// webFixtures serves a page to fetch and a SearXNG-style search endpoint,
// and writes the config that points web_search at it.
func webFixtures(t *testing.T, cfg string) string {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/page", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = io.WriteString(w, `<html><head><script>x()</script></head><body><nav>menu</nav><h1>Sizes</h1><p>The reserve is <a href="/reserve">16 KiB</a>.</p></body></html>`)
	})
	mux.HandleFunc("/search", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"results":[{"title":"Reserve sizes","url":"https://example.com/r","content":"How big the reserve is."}]}`)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	conf := fmt.Sprintf(`{"web_search": {"provider": "searxng", "url": %q}}`, srv.URL)
	if err := os.WriteFile(filepath.Join(cfg, "config.json"), []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	return srv.URL
}

func TestEveryGroupThroughMCP(t *testing.T) {
	t.Parallel()
	root := groupProject(t)
	cfg := t.TempDir()
	base := webFixtures(t, cfg)
	s := startStdio(t, root, "--write", "--cfg", cfg)
	ts := tools(t, s.session)

	for _, tc := range []struct {
		tool  string
		hints hints
		args  map[string]any
		want  string
	}{
		{"view_file", read, map[string]any{"path": "pkg/sizes.py"}, "|RESERVE = 16_384"},
		{"list_files", read, map[string]any{"glob": "*.py"}, "pkg/mod.py"},
		{"create_file", write, map[string]any{"path": "notes/new.txt", "content": "hello\n"}, "new.txt"},
		{"replace_text", write, map[string]any{"path": "pkg/sizes.py", "old": "16_384", "new": "32_768"}, "32_768"},
		{"search_code", read, map[string]any{"pattern": "RESERVE"}, "pkg/sizes.py:1:"},
		{"outline", read, map[string]any{"path": "pkg/server.go"}, "Run"},
		{"find_symbol", read, map[string]any{"name": "Server/Run"}, "pkg/server.go"},
		{"inspect_python", act, map[string]any{"target": "pkg.mod.area", "cwd": "."}, "Area of a w by h rectangle"},
		{"git_status", read, map[string]any{}, "main"},
		{"git_log", read, map[string]any{}, "first commit"},
		{"git_diff", read, map[string]any{}, "+RESERVE = 32_768"},
		{"git_show", read, map[string]any{}, "first commit"},
		{"git_blame", read, map[string]any{"path": "pkg/sizes.py"}, "RESERVE"},
		{"git_add", additive, map[string]any{"paths": []string{"notes/new.txt"}}, "notes/new.txt"},
		{"git_commit", additive, map[string]any{"message": "add notes"}, "add notes"},
		{"git_branch", additive, map[string]any{"name": "feature"}, "feature"},
		{"git_checkout", additive, map[string]any{"ref": "feature"}, "feature"},
		{"run_command", write, map[string]any{"command": "echo from-the-shell"}, "from-the-shell"},
		{"fetch_url", openWorld, map[string]any{"url": base + "/page"}, "# Sizes"},
		{"web_search", openWorld, map[string]any{"query": "reserve"}, "Reserve sizes"},
		{"view_notebook", read, map[string]any{"path": "analysis.ipynb"}, "[0] id="},
		{"insert_cell", write, map[string]any{"path": "analysis.ipynb", "index": 0, "cell_type": "markdown", "source": "# Added by e2e"}, "inserted"},
		{"edit_cell", write, map[string]any{"path": "analysis.ipynb", "index": 0, "source": "# Edited by e2e"}, "[0]"},
		{"move_cell", write, map[string]any{"path": "analysis.ipynb", "index": 0, "to": 1}, "[1]"},
		{"delete_cell", write, map[string]any{"path": "analysis.ipynb", "index": 1}, "deleted"},
		{"remember", additive, map[string]any{"content": "The reserve is 16 KiB for safety."}, "Remembered as id"},
		{"recall", read, map[string]any{"query": "reserve safety"}, "16 KiB"},
		{"list_memories", read, map[string]any{}, "16 KiB"},
	} {
		t.Run(tc.tool, func(t *testing.T) {
			tool, ok := ts[tc.tool]
			if !ok {
				t.Fatalf("%s not listed", tc.tool)
			}
			a := tool.Annotations
			if got := (hints{a.ReadOnlyHint, *a.DestructiveHint, *a.OpenWorldHint}); got != tc.hints {
				t.Errorf("annotations = %+v, want %+v", got, tc.hints)
			}
			if meta, _ := tool.Meta[mcpserver.MetaKey].(map[string]any); meta["task"] != "completion" {
				t.Errorf("_meta = %v, want task completion", tool.Meta)
			}
			res, err := call(t, s.session, tc.tool, tc.args)
			if err != nil {
				t.Fatal(err)
			}
			if res.IsError || !strings.Contains(text(res), tc.want) {
				t.Errorf("%s = %q (isError %v), want it to contain %q", tc.tool, text(res), res.IsError, tc.want)
			}
		})
	}
	forgetAll(t, s.session)
}

// forgetAll forgets the memory the test remembered, and checks it is gone.
func forgetAll(t *testing.T, cs *mcp.ClientSession) {
	res, err := call(t, cs, "list_memories", map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`id (\d+)`).FindStringSubmatch(text(res))
	if m == nil {
		t.Fatalf("no memory id in %q", text(res))
	}
	id, _ := strconv.Atoi(m[1])
	if tool := tools(t, cs)["forget"]; tool == nil || !*tool.Annotations.DestructiveHint {
		t.Errorf("forget is not listed as destructive: %+v", tool)
	}
	res, err = call(t, cs, "forget", map[string]any{"id": id})
	if err != nil || res.IsError {
		t.Fatalf("forget %d: %v %q", id, err, text(res))
	}
	res, err = call(t, cs, "recall", map[string]any{"query": "reserve safety"})
	if err != nil || strings.Contains(text(res), "16 KiB") {
		t.Errorf("recall after forget = %q, %v", text(res), err)
	}
}

func TestReadOnlyLeavesOutEveryWriteTool(t *testing.T) {
	t.Parallel()
	s := startStdio(t, groupProject(t))
	ts := tools(t, s.session)
	for _, name := range allWriteTools {
		if _, ok := ts[name]; ok {
			t.Errorf("write tool %s listed on a read-only server", name)
		}
	}
	for _, name := range []string{"inspect_python", "view_notebook", "git_status", "search_code", "recall", "fetch_url"} {
		if _, ok := ts[name]; !ok {
			t.Errorf("%s missing from a read-only server", name)
		}
	}
	s2 := startStdio(t, groupProject(t), "--web=false")
	for _, name := range []string{"fetch_url", "web_search"} {
		if _, ok := tools(t, s2.session)[name]; ok {
			t.Errorf("%s listed with --web=false", name)
		}
	}
}

func TestKilledHostTakesShellCommandsWithIt(t *testing.T) {
	t.Parallel()
	root := project(t)
	s := startStdio(t, root, "--write")
	// The command runs in a pid namespace of its own, where $$ is 1: it is
	// found by a marker in its command line instead.
	marker := "ramabana-killed-host-" + nonce(t)
	ended := make(chan string, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		res, err := s.session.CallTool(ctx, &mcp.CallToolParams{Name: "run_command", Arguments: map[string]any{"command": "exec -a " + marker + " sleep 300"}})
		ended <- resultText(res, err)
	}()
	deadline := time.Now().Add(time.Minute)
	for len(proctest.Marked(marker)) == 0 {
		select {
		case out := <-ended:
			t.Fatalf("the command ended before the host was killed: %s\nserver log:\n%s", out, s.stderr)
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("the command never started; server log:\n%s", s.stderr)
		}
	}
	_ = s.cmd.Process.Kill()
	_ = s.cmd.Wait()
	if left := waitGone(marker, proctest.Patience); len(left) > 0 {
		t.Fatalf("a shell command outlived its killed host: %v", left)
	}
}

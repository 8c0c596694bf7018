//go:build linux

package lsp_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ramabana/ramabana-mcp/internal/lsp/lsptest"
	"github.com/ramabana/ramabana-mcp/sdk"
)

// hostileEnv is an environment for a plugin's servers, the test's own
// with set applied ("NAME=value"; "NAME=" unsets), and their private
// folder, a temporary one; it returns the folder where a program that
// must not run writes its marker: the servers' temporary folder, which the
// sandbox lets them write, so that a marker's absence means the program
// did not run, not that the sandbox stopped its write.
type hostile struct {
	env   []string
	cache string
	marks string
}

func hostileEnv(t *testing.T, set ...string) *hostile {
	t.Helper()
	cache, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	h := &hostile{cache: cache, marks: filepath.Join(cache, "tmp")}
	if err := os.MkdirAll(h.marks, 0o700); err != nil {
		t.Fatal(err)
	}
	h.env = os.Environ()
	for _, kv := range set {
		name, _, _ := strings.Cut(kv, "=")
		h.env = slices.DeleteFunc(h.env, func(e string) bool { return strings.HasPrefix(e, name+"=") })
		h.env = append(h.env, kv)
	}
	return h
}

func (h *hostile) mark(name string) string { return filepath.Join(h.marks, name) }

// serve serves root with the hostile environment.
func (h *hostile) serve(t *testing.T, root string, servers map[string][]string, host sdk.Host) *workspace {
	t.Helper()
	w := serveRoot(t, root, servers, host)
	w.plugin.SetEnviron(h.env, h.cache)
	return w
}

func writeExec(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o755); err != nil {
		t.Fatal(err)
	}
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// A repository whose Go settings would run its own programs (a go.env,
// named by GOENV, that asks for the toolchain its go.mod names from PATH
// and for a -toolexec; a bin folder of its own first on PATH) runs none
// of them through gopls, which still answers.
func TestHostileGoEnvRunsNothing(t *testing.T) {
	t.Parallel()
	gopls := lsptest.Gopls(t)
	root := copyFixture(t, "go")
	h := hostileEnv(t, "GOENV="+filepath.Join(root, "go.env"),
		"PATH="+filepath.Join(root, "bin")+string(filepath.ListSeparator)+os.Getenv("PATH"), "GOTOOLCHAIN=", "GOFLAGS=")
	mark := h.mark
	writeExec(t, filepath.Join(root, "bin", "go1.99.0"), "#!/bin/sh\ntouch "+mark("toolchain")+"\nexit 1\n")
	writeExec(t, filepath.Join(root, "bin", "evil"), "#!/bin/sh\ntouch "+mark("toolexec")+"\nexec \"$@\"\n")
	if err := os.WriteFile(filepath.Join(root, "go.mod"), []byte("module example.com/shapes\n\ngo 1.22\n\ntoolchain go1.99.0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "go.env"), []byte("GOTOOLCHAIN=path\nGOFLAGS=-toolexec="+filepath.Join(root, "bin", "evil")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	// The repository is hostile indeed: the go command run in it runs its
	// toolchain.
	cmd := exec.Command("go", "list", "./...")
	cmd.Dir, cmd.Env = root, h.env
	_ = cmd.Run()
	if !exists(mark("toolchain")) {
		t.Fatal("the go command did not run the repository's toolchain: the fixture proves nothing")
	}
	_ = os.Remove(mark("toolchain"))

	w := h.serve(t, root, map[string][]string{"go": gopls}, sdk.Host{})
	refs := w.call(t, "find_references", map[string]any{"path": "shape/shape.go", "symbol": "Area"})
	if !strings.HasPrefix(refs, "6 references to Area") {
		t.Errorf("gopls did not answer:\n%s", refs)
	}
	if d := w.call(t, "diagnostics", map[string]any{"path": "stats/stats.go"}); !strings.Contains(d, "finds no problems") {
		t.Errorf("diagnostics:\n%s", d)
	}
	for _, m := range []string{"toolchain", "toolexec"} {
		if exists(mark(m)) {
			t.Errorf("the repository's %s ran", m)
		}
	}
}

// A tsconfig that names a plugin, and a node_modules/typescript of the
// repository's own, run nothing: the server gets the tsserver installed
// beside it, which loads plugins from its own install only.
func TestHostileTSConfigRunsNothing(t *testing.T) {
	t.Parallel()
	tsls := lsptest.TypeScript(t)
	h := hostileEnv(t)
	root := copyFixture(t, "typescript")
	mark := h.mark
	touch := func(name string) string {
		return "require('fs').writeFileSync(" + quoteJS(mark(name)) + ", 'ran');\n"
	}
	if err := os.WriteFile(filepath.Join(root, "tsconfig.json"), []byte(`{"compilerOptions": {"strict": true, "target": "es2022", "module": "es2022", "moduleResolution": "bundler", "noEmit": true, "plugins": [{"name": "evil-plugin"}]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	writeExec(t, filepath.Join(root, "node_modules", "evil-plugin", "package.json"), `{"name": "evil-plugin", "version": "1.0.0", "main": "index.js"}`)
	writeExec(t, filepath.Join(root, "node_modules", "evil-plugin", "index.js"), touch("plugin")+"module.exports = () => ({ create: (info) => info.languageService });\n")
	writeExec(t, filepath.Join(root, "node_modules", "typescript", "package.json"), `{"name": "typescript", "version": "9.9.9", "main": "lib/typescript.js"}`)
	for _, f := range []string{"tsserver.js", "typescript.js", "tsserverlibrary.js"} {
		writeExec(t, filepath.Join(root, "node_modules", "typescript", "lib", f), touch("typescript"))
	}

	w := h.serve(t, root, map[string][]string{"typescript": tsls}, sdk.Host{})
	refs := w.call(t, "find_references", map[string]any{"path": "geometry.ts", "symbol": "area"})
	if !strings.HasPrefix(refs, "5 references to area") {
		t.Errorf("the server did not answer:\n%s", refs)
	}
	for _, m := range []string{"plugin", "typescript"} {
		if exists(mark(m)) {
			t.Errorf("the repository's %s ran", m)
		}
	}

	// With commands allowed and the repository's tsserver named, it runs
	// (and fails, being no tsserver): the marker can be written.
	w = h.serve(t, root, nil, sdk.Host{Commands: true})
	writeJSON(t, filepath.Join(w.cfg, "config.json"), map[string]any{"lsp": map[string]any{"typescript": map[string]any{
		"command": tsls, "tsserver": filepath.Join(root, "node_modules", "typescript", "lib", "tsserver.js")}}})
	// The call waits for a project that never loads: it is cancelled once
	// the marker is there, or ends on its own.
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = w.group.Call(ctx, &sdk.Call{Tool: "find_references", Arguments: []byte(`{"path": "geometry.ts", "symbol": "area"}`)}, nil)
	}()
	for !exists(mark("typescript")) {
		select {
		case <-done:
		case <-time.After(50 * time.Millisecond):
			continue
		}
		break
	}
	cancel()
	<-done
	if !exists(mark("typescript")) {
		t.Error("the repository's tsserver, named with commands allowed, did not run: the test above proves nothing")
	}
}

// A virtual environment inside the repository, activated (its bin first
// on PATH, VIRTUAL_ENV set), is not run by pyright while commands are not
// allowed; once they are, its python is the one used.
func TestHostileVenvRunsNothing(t *testing.T) {
	t.Parallel()
	pyright := lsptest.Pyright(t)
	root := copyFixture(t, "python")
	h := hostileEnv(t, "PATH="+filepath.Join(root, ".venv", "bin")+string(filepath.ListSeparator)+os.Getenv("PATH"),
		"VIRTUAL_ENV="+filepath.Join(root, ".venv"))
	mark := h.mark("python")
	for _, name := range []string{"python", "python3"} {
		writeExec(t, filepath.Join(root, ".venv", "bin", name), "#!/bin/sh\ntouch "+mark+"\nexit 1\n")
	}

	w := h.serve(t, root, map[string][]string{"python": pyright}, sdk.Host{})
	refs := w.call(t, "find_references", map[string]any{"path": "geometry.py", "symbol": "area"})
	if !strings.Contains(refs, "references to area") || !strings.Contains(refs, "report.py") {
		t.Errorf("pyright did not answer:\n%s", refs)
	}
	if exists(mark) {
		t.Fatal("the repository's python ran")
	}

	// The same repository with commands allowed: the user's PATH stands.
	w = h.serve(t, root, map[string][]string{"python": pyright}, sdk.Host{Commands: true})
	w.call(t, "symbol_info", map[string]any{"path": "geometry.py", "symbol": "area"})
	if !exists(mark) {
		t.Error("with commands allowed, the activated environment's python was not used: the test above proves nothing")
	}
}

// serveRoot serves root (already filled) as serve does a fixture, with
// host's Commands.
func serveRoot(t *testing.T, root string, servers map[string][]string, host sdk.Host) *workspace {
	t.Helper()
	return serveIn(t, root, servers, func(h *sdk.Host) { h.Commands = host.Commands })
}

func quoteJS(s string) string {
	return "'" + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), "'", `\'`) + "'"
}

// A tsserver the config names that typescript-language-server would not
// take (missing, here) is refused: the server would fall back to the
// workspace's own.
func TestUnusableTSServerRefused(t *testing.T) {
	t.Parallel()
	tsls := lsptest.TypeScript(t)
	h := hostileEnv(t)
	marks := h.marks
	root := copyFixture(t, "typescript")
	writeExec(t, filepath.Join(root, "node_modules", "typescript", "package.json"), `{"name": "typescript", "version": "9.9.9"}`)
	writeExec(t, filepath.Join(root, "node_modules", "typescript", "lib", "tsserver.js"), "require('fs').writeFileSync("+quoteJS(filepath.Join(marks, "typescript"))+", 'ran');\n")
	w := h.serve(t, root, nil, sdk.Host{})
	writeJSON(t, filepath.Join(w.cfg, "config.json"), map[string]any{"lsp": map[string]any{"typescript": map[string]any{
		"command": tsls, "tsserver": filepath.Join(t.TempDir(), "gone", "lib", "tsserver.js")}}})
	msg := w.fail(t, "find_references", map[string]any{"path": "geometry.ts", "symbol": "area"})
	if !strings.Contains(msg, "cannot be used") || !strings.Contains(msg, "the workspace's own node_modules/typescript") {
		t.Errorf("the refusal: %s", msg)
	}
	if exists(filepath.Join(marks, "typescript")) {
		t.Error("the repository's tsserver ran")
	}
}

// A command that names a script of the repository, or a relative one
// (taken from a served folder), is refused while commands are not
// allowed.
func TestServerCommandInsideTheRootsRefused(t *testing.T) {
	t.Parallel()
	root := copyFixture(t, "python")
	writeExec(t, filepath.Join(root, "tools", "server.js"), "")
	node, err := exec.LookPath("node")
	if err != nil {
		node = "/usr/bin/node"
	}
	for _, cmd := range [][]string{{node, filepath.Join(root, "tools", "server.js")}, {node, "./tools/server.js"}, {filepath.Join(root, "tools", "server.js")}} {
		w := serveRoot(t, root, map[string][]string{"python": cmd}, sdk.Host{})
		if msg := w.fail(t, "diagnostics", map[string]any{"path": "geometry.py"}); !strings.Contains(msg, "inside the served folders") {
			t.Errorf("%q: %s", cmd, msg)
		}
	}
}

// A .gitignore that leads to /dev/zero does not stop the scan for changes.
func TestGitignoreNotAFile(t *testing.T) {
	t.Parallel()
	root := copyFixture(t, "go")
	if err := os.Symlink("/dev/zero", filepath.Join(root, ".gitignore")); err != nil {
		t.Fatal(err)
	}
	w := serveRoot(t, root, map[string][]string{"go": lsptest.Gopls(t)}, sdk.Host{})
	w.call(t, "find_references", map[string]any{"path": "shape/shape.go", "symbol": "Area"})
	if refs := w.call(t, "find_references", map[string]any{"path": "shape/shape.go", "symbol": "Area"}); !strings.HasPrefix(refs, "6 references") {
		t.Errorf("find_references:\n%s", refs)
	}
}

package lsp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ramabana/ramabana-mcp/internal/sandbox"
	"github.com/ramabana/ramabana-mcp/sdk"
)

// launch is how one language server starts: its command, environment and
// sandbox, and what it is told at initialize.
type launch struct {
	command []string
	env     []string
	policy  sandbox.Policy
	// tsserver is tsserver.js for typescript-language-server.
	tsserver string
	// python is the interpreter pyright asks for its search paths.
	python string
}

// systemDirs are the folders whose programs a language server may run
// when commands are not allowed: the system's, where interpreters,
// compilers and their helpers live. A folder that holds a served folder
// is left out (its programs would include the repository's).
var systemDirs = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"}

// prepare works out how to start l's server for host, which serves
// rootDirs; cacheDir is the servers' private folder, the only one they may
// write. Unless the user allowed commands (host.Commands), nothing the
// served folders hold may run: their PATH entries, virtual environments
// and Go settings are dropped, the Go toolchain is pinned to the local
// one, typescript-language-server gets the tsserver installed beside it
// (never the workspace's), and the sandbox lets the server execute only
// system programs, the Go toolchain, node and its own program.
func prepare(l *language, cfg *config, host sdk.Host, environ, rootDirs []string, cacheDir string) (*launch, error) {
	guarded := !host.Commands
	inRoots := func(p string) bool { return inside(p, rootDirs) }
	env := childEnv(environ, rootDirs, guarded)
	path := envValue(env, "PATH")

	sc, configured := cfg.servers[l.name]
	var command []string
	if configured {
		command = slices.Clone(sc.Command)
		prog, err := lookPath(command[0], path)
		if err != nil {
			return nil, noServer(l, fmt.Sprintf("the command %q named in the config cannot be run (%v)", command[0], err), cfg, host.ConfigDir)
		}
		command[0] = prog
	} else {
		for _, cand := range l.candidates {
			if prog, err := lookPath(cand[0], path); err == nil {
				command = append([]string{prog}, cand[1:]...)
				break
			}
		}
		if command == nil {
			return nil, noServer(l, fmt.Sprintf("none of %s is on PATH", candidateNames(l)), cfg, host.ConfigDir)
		}
	}
	real, err := filepath.EvalSymlinks(command[0])
	if err != nil {
		return nil, noServer(l, fmt.Sprintf("%s cannot be resolved (%v)", command[0], err), cfg, host.ConfigDir)
	}
	if guarded {
		// Nothing the command names may be the repository's: its program,
		// a script an interpreter runs, a relative argument (taken from
		// the server's folder, a served one), a module run with -m.
		for i, arg := range command {
			p := arg
			if i > 0 && !filepath.IsAbs(p) && (strings.ContainsRune(p, filepath.Separator) || strings.HasPrefix(p, ".")) {
				p = filepath.Join(rootDirs[0], p)
			}
			if i == 0 {
				p = real
			}
			if (i == 0 || filepath.IsAbs(p)) && insideResolved(p, rootDirs) {
				return nil, sdk.Failf("the %s language server's command names %s, inside the served folders, so it would run the repository's code; it runs only when the user allows commands (the shell group)", l.title, arg)
			}
			if arg == "-m" {
				return nil, sdk.Failf("the %s language server's command runs a Python module (-m), which Python looks for in the server's folder, a served one; name the server's program instead, or allow commands (the shell group)", l.title)
			}
		}
	}

	cacheDirs := []string{filepath.Join(cacheDir, "cache"), filepath.Join(cacheDir, "tmp")}
	for _, d := range cacheDirs {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return nil, fmt.Errorf("make the language servers' folder: %w", err)
		}
	}
	env = setEnv(env, "XDG_CACHE_HOME", cacheDirs[0])
	env = setEnv(env, "TMPDIR", cacheDirs[1])
	ln := &launch{command: command, env: env}

	switch l {
	case golang:
		if guarded {
			ln.env = setEnv(ln.env, "GOTOOLCHAIN", "local")
		}
	case typescript:
		ln.tsserver = sc.TSServer
		// The program may be node running the server's script.
		for _, arg := range append([]string{real}, command[1:]...) {
			if ln.tsserver != "" || !filepath.IsAbs(arg) {
				continue
			}
			if r, err := filepath.EvalSymlinks(arg); err == nil {
				ln.tsserver = tsserverBeside(r)
			}
		}
		if ln.tsserver != "" {
			// typescript-language-server takes a tsserver only when it
			// exists and its package names a version; otherwise it falls
			// back to the workspace's own, the repository's code.
			ts, err := checkTSServer(ln.tsserver)
			if err != nil {
				if guarded {
					return nil, sdk.Failf("the tsserver %s cannot be used (%v), and typescript-language-server would run the workspace's own node_modules/typescript instead, the repository's code. Tell the user to install typescript beside typescript-language-server (npm install -g typescript) or to name a working tsserver.js as \"tsserver\" in the \"lsp\" entry of %s", ln.tsserver, err, cfg.where(host.ConfigDir))
				}
				ts = ""
			}
			ln.tsserver = ts
		}
		if ln.tsserver == "" && guarded {
			return nil, sdk.Failf("typescript-language-server (%s) has no typescript installed beside it, and would otherwise run the workspace's own node_modules/typescript, the repository's code. Tell the user to install typescript beside it (npm install -g typescript) or to name tsserver.js as \"tsserver\" in the \"lsp\" entry of %s", command[0], cfg.where(host.ConfigDir))
		}
		if guarded && inRoots(ln.tsserver) {
			return nil, sdk.Failf("the tsserver %s lies inside the served folders, so it is the repository's code; it runs only when the user allows commands (the shell group)", ln.tsserver)
		}
	case python:
		ln.python = pythonPath(ln.env, cacheDirs[1])
	}

	ln.policy = sandbox.Policy{
		NoCapabilities: true,
		NewNamespaces:  true,
		Writable:       append(append([]string{}, cacheDirs...), sandbox.DeviceFiles()...),
	}
	if host.NoSandbox {
		ln.policy.Writable = nil
	}
	if guarded {
		ln.policy.Executable = executables(real, ln, rootDirs)
	}
	return ln, nil
}

// executables are the files and folders a server may execute when
// commands are not allowed.
func executables(program string, ln *launch, rootDirs []string) []string {
	var out []string
	add := func(p string) {
		if p == "" || !filepath.IsAbs(p) {
			return
		}
		if real, err := filepath.EvalSymlinks(p); err == nil {
			p = real
		}
		if inside(p, rootDirs) || holdsRoot(p, rootDirs) || slices.Contains(out, p) {
			return
		}
		out = append(out, p)
	}
	for _, d := range systemDirs {
		add(d)
	}
	add(program)
	if interp := shebang(program); interp != "" {
		add(interp)
	}
	path := envValue(ln.env, "PATH")
	// The programs servers run by name: node for the TypeScript and
	// Python servers' helpers, go for gopls.
	if node, err := lookPath("node", path); err == nil {
		add(node)
	}
	if goBin, err := lookPath("go", path); err == nil {
		if real, err := filepath.EvalSymlinks(goBin); err == nil {
			add(filepath.Dir(filepath.Dir(real))) // GOROOT
		}
	}
	add(ln.python)
	return out
}

// shebang is the interpreter a script names on its first line, or "".
func shebang(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	line, _ := bufio.NewReader(f).ReadString('\n')
	if !strings.HasPrefix(line, "#!") {
		return ""
	}
	fields := strings.Fields(line[2:])
	if len(fields) == 0 {
		return ""
	}
	return fields[0]
}

// tsserverBeside finds tsserver.js of the typescript package installed
// beside typescript-language-server, whose program or script (symlinks
// resolved) is prog: in its own node_modules, or in the node_modules
// holding it; "" when prog is not typescript-language-server's.
func tsserverBeside(prog string) string {
	for dir := filepath.Dir(prog); dir != filepath.Dir(dir); dir = filepath.Dir(dir) {
		if filepath.Base(dir) == "typescript-language-server" {
			for _, cand := range []string{
				filepath.Join(dir, "node_modules", "typescript", "lib", "tsserver.js"),
				filepath.Join(filepath.Dir(dir), "typescript", "lib", "tsserver.js"),
			} {
				if fi, err := os.Stat(cand); err == nil && fi.Mode().IsRegular() {
					return cand
				}
			}
			return ""
		}
	}
	return ""
}

// checkTSServer resolves a tsserver.js and checks it as
// typescript-language-server does before it takes it: a regular file whose
// package (two folders up) names a version.
func checkTSServer(path string) (string, error) {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", err
	}
	if fi, err := os.Stat(real); err != nil || !fi.Mode().IsRegular() {
		return "", fmt.Errorf("%s is not a file", real)
	}
	data, err := os.ReadFile(filepath.Join(filepath.Dir(real), "..", "package.json"))
	if err != nil {
		return "", fmt.Errorf("no package.json beside its lib folder: %w", err)
	}
	var pkg struct {
		Version string `json:"version"`
	}
	if json.Unmarshal(data, &pkg) != nil || pkg.Version == "" {
		return "", fmt.Errorf("its package.json names no version")
	}
	return real, nil
}

// pythonPath is the real interpreter behind python3 (or python) on the
// environment's PATH, past shims such as pyenv's, or "". It runs the
// interpreter once, isolated (-I) and in dir, so that nothing from the
// served folders is imported.
func pythonPath(env []string, dir string) string {
	path := envValue(env, "PATH")
	for _, name := range []string{"python3", "python"} {
		prog, err := lookPath(name, path)
		if err != nil {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		cmd := exec.CommandContext(ctx, prog, "-I", "-c", "import sys; print(sys.executable)")
		cmd.Env, cmd.Dir = env, dir
		out, err := cmd.Output()
		cancel()
		if p := strings.TrimSpace(string(out)); err == nil && filepath.IsAbs(p) {
			return p
		}
	}
	return ""
}

// childEnv is the servers' environment: environ, the plugin's
// (sdk.ChildEnv). When
// guarded (commands not allowed), PATH keeps only absolute folders
// outside the served folders, and variables that would make a server load
// or run the served folders' code (a virtual environment, PYTHONPATH,
// NODE_OPTIONS, a Go config file) go when they point inside them.
func childEnv(env, rootDirs []string, guarded bool) []string {
	if !guarded {
		return env
	}
	var out []string
	for _, kv := range env {
		name, value, _ := strings.Cut(kv, "=")
		switch name {
		case "PATH":
			var keep []string
			for _, dir := range filepath.SplitList(value) {
				if filepath.IsAbs(dir) && !insideResolved(dir, rootDirs) {
					keep = append(keep, dir)
				}
			}
			kv = "PATH=" + strings.Join(keep, string(filepath.ListSeparator))
		case "VIRTUAL_ENV", "CONDA_PREFIX", "PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "PYTHONUSERBASE",
			"NODE_PATH", "GOENV", "GOROOT", "GOPATH", "GOMODCACHE", "GOCACHE", "GOWORK":
			if pointsInside(value, rootDirs) {
				continue
			}
		case "NODE_OPTIONS":
			// -r ./x.js, --import and the like load code, named
			// relatively from the server's folder, a served one.
			continue
		}
		out = append(out, kv)
	}
	return out
}

// pointsInside says a path or path list value names a relative path (taken
// from the server's folder, a served one) or a path inside rootDirs.
func pointsInside(value string, rootDirs []string) bool {
	if value == "off" || value == "" {
		return false
	}
	for _, p := range filepath.SplitList(value) {
		if p != "" && (!filepath.IsAbs(p) || insideResolved(p, rootDirs)) {
			return true
		}
	}
	return false
}

// insideResolved is inside for p with its symlinks resolved, as far as it
// exists.
func insideResolved(p string, rootDirs []string) bool {
	if real, err := filepath.EvalSymlinks(p); err == nil {
		p = real
	}
	return inside(p, rootDirs)
}

// inside says p is one of rootDirs or beneath one.
func inside(p string, rootDirs []string) bool {
	for _, r := range rootDirs {
		if p == r || strings.HasPrefix(p, r+string(filepath.Separator)) || r == string(filepath.Separator) {
			return true
		}
	}
	return false
}

// holdsRoot says a served folder lies beneath dir.
func holdsRoot(dir string, rootDirs []string) bool {
	for _, r := range rootDirs {
		if inside(r, []string{dir}) {
			return true
		}
	}
	return false
}

// lookPath finds a program as exec.LookPath does, on the PATH given.
func lookPath(name, path string) (string, error) {
	if strings.ContainsRune(name, filepath.Separator) {
		if !filepath.IsAbs(name) {
			return "", fmt.Errorf("%s is a relative path; give an absolute one or a name on PATH", name)
		}
		if err := executable(name); err != nil {
			return "", err
		}
		return name, nil
	}
	for _, dir := range filepath.SplitList(path) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue
		}
		p := filepath.Join(dir, name)
		if executable(p) == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s: %w", name, exec.ErrNotFound)
}

func executable(p string) error {
	fi, err := os.Stat(p)
	if err != nil {
		return err
	}
	if fi.IsDir() || fi.Mode()&0o111 == 0 {
		return fmt.Errorf("%s is not an executable file", p)
	}
	return nil
}

func envValue(env []string, name string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], name+"="); ok {
			return v
		}
	}
	return ""
}

func setEnv(env []string, name, value string) []string {
	env = slices.DeleteFunc(env, func(kv string) bool { return strings.HasPrefix(kv, name+"=") })
	return append(env, name+"="+value)
}

func candidateNames(l *language) string {
	var names []string
	for _, c := range l.candidates {
		names = append(names, c[0])
	}
	return strings.Join(names, " or ")
}

// Package lsptest installs the real language servers for tests: gopls
// built from the Go module proxy, pyright and typescript-language-server
// (with typescript) from npm. Each is installed once into a cache folder
// shared by test runs ($RAMABANA_LSP_CACHE, or ramabana-lsp-test in the
// user's cache folder), and at most once a process. A test whose server
// cannot be installed skips, or fails when RAMABANA_REQUIRE_LSP is set
// (CI sets it, having installed what the servers need).
package lsptest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ramabana/ramabana-mcp/internal/proctest"
)

const (
	// RequireEnv, set, makes a server that cannot be installed fail the
	// test rather than skip it.
	RequireEnv = "RAMABANA_REQUIRE_LSP"
	// CacheEnv names the cache folder the servers are installed into;
	// unset, it is ramabana-lsp-test in the user's cache folder.
	CacheEnv = "RAMABANA_LSP_CACHE"
)

// The versions installed. Each names its cache folder, so that changing
// one installs afresh.
const (
	GoplsVersion                    = "v0.23.0" // v0.24 needs a newer Go
	PyrightVersion                  = "1.1.414"
	TypeScriptLanguageServerVersion = "5.3.0"
	TypeScriptVersion               = "5.9.3"
)

// Gopls is the gopls command: the absolute path of the one built into
// the cache, or the one on PATH when it cannot be built. The slice is the
// caller's to change.
func Gopls(t testing.TB) []string {
	t.Helper()
	return []string{gopls.get(t)}
}

// Pyright is the command running pyright's language server on stdio:
// node, the absolute path of langserver.index.js, and --stdio. The slice
// is the caller's to change.
func Pyright(t testing.TB) []string {
	t.Helper()
	return pyright.get(t).command()
}

// TypeScript is the command running typescript-language-server on stdio:
// node, the absolute path of its lib/cli.mjs, and --stdio. The slice is
// the caller's to change.
//
// Unless its initialization options name a tsserver (see TSServer),
// typescript-language-server prefers the workspace's own
// node_modules/typescript, which a test may not mean to run.
func TypeScript(t testing.TB) []string {
	t.Helper()
	return tsls.get(t).command()
}

// TSServer is the absolute path of lib/tsserver.js of the typescript
// package installed beside typescript-language-server, at
// TypeScriptVersion: what its "tsserver": {"path": ...} initialization
// option takes.
func TSServer(t testing.TB) string {
	t.Helper()
	return filepath.Join(tsls.get(t).dir, "node_modules", "typescript", "lib", "tsserver.js")
}

var (
	gopls   = &once[string]{install: installGopls}
	pyright = &once[npmServer]{install: func() (npmServer, error) {
		return installNpm("pyright-"+PyrightVersion, "node_modules/pyright/langserver.index.js",
			"pyright@"+PyrightVersion)
	}}
	tsls = &once[npmServer]{install: func() (npmServer, error) {
		return installNpm("tsls-"+TypeScriptLanguageServerVersion+"-ts-"+TypeScriptVersion,
			"node_modules/typescript-language-server/lib/cli.mjs",
			"typescript-language-server@"+TypeScriptLanguageServerVersion, "typescript@"+TypeScriptVersion)
	}}
)

// once is what an install gives, installing at most once a process.
type once[T any] struct {
	once    sync.Once
	install func() (T, error)
	v       T
	err     error
}

// get is what the install gave, installing first if need be; the test
// skips (or fails, with RequireEnv set) when it failed.
func (o *once[T]) get(t testing.TB) T {
	t.Helper()
	o.once.Do(func() { o.v, o.err = o.install() })
	if o.err != nil {
		proctest.Missing(t, RequireEnv, o.err.Error())
	}
	return o.v
}

// npmServer is a language server installed by npm and run by node.
type npmServer struct {
	node   string // node's absolute path
	dir    string // the cache folder npm installed into
	script string // the server's script, relative to dir
}

// command runs the server on stdio, in a new slice.
func (s npmServer) command() []string {
	return []string{s.node, filepath.Join(s.dir, s.script), "--stdio"}
}

// installDir returns the cache folder name once it holds want, filling a
// fresh folder with fill and moving it there when it does not yet: runs
// at the same time each install, and one of them wins.
func installDir(name, want string, fill func(tmp string) error) (string, error) {
	cache := os.Getenv(CacheEnv)
	if cache == "" {
		dir, err := os.UserCacheDir()
		if err != nil {
			return "", err
		}
		cache = filepath.Join(dir, "ramabana-lsp-test")
	}
	dir := filepath.Join(cache, name)
	if _, err := os.Stat(filepath.Join(dir, want)); err == nil {
		return dir, nil
	}
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp(cache, name+".tmp-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	if err := fill(tmp); err != nil {
		return "", err
	}
	if err := os.Rename(tmp, dir); err != nil {
		if _, serr := os.Stat(filepath.Join(dir, want)); serr != nil {
			return "", err
		}
	}
	return dir, nil
}

// run runs name with args in dir and env, its output in the error when it
// fails.
func run(dir string, env []string, name string, args ...string) error {
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Env = dir, env
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return nil
}

// installGopls builds gopls from the module proxy and returns its path, or
// the one on PATH when it cannot.
func installGopls() (string, error) {
	dir, err := installDir("gopls-"+GoplsVersion, "gopls", func(tmp string) error {
		return run(tmp, append(os.Environ(), "GOBIN="+tmp, "GOFLAGS=-mod=mod", "GOTOOLCHAIN=local"),
			"go", "install", "golang.org/x/tools/gopls@"+GoplsVersion)
	})
	if err != nil {
		if path, lerr := exec.LookPath("gopls"); lerr == nil {
			return path, nil
		}
		return "", fmt.Errorf("cannot install gopls: %v", err)
	}
	return filepath.Join(dir, "gopls"), nil
}

// installNpm installs npm packages into the cache folder name and returns
// the language server whose script is want there.
func installNpm(name, want string, pkgs ...string) (npmServer, error) {
	node, err := exec.LookPath("node")
	if err != nil {
		return npmServer{}, fmt.Errorf("cannot run %s: %v", name, err)
	}
	dir, err := installDir(name, want, func(tmp string) error {
		return run(tmp, os.Environ(), "npm", append([]string{"install", "--prefix", tmp, "--no-fund", "--no-audit", "--no-save"}, pkgs...)...)
	})
	if err != nil {
		return npmServer{}, fmt.Errorf("cannot install %s: %v", name, err)
	}
	return npmServer{node: node, dir: dir, script: want}, nil
}

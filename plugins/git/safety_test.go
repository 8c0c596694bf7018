package git_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ramabana/ramabana-mcp/plugins/git"
	"github.com/ramabana/ramabana-mcp/sdk"
	"github.com/ramabana/ramabana-mcp/sdk/sdktest"
)

// TestFlagInjection passes every argument that reaches git a value git
// would read as an option. Each must be refused before git runs, and none
// may write the file an --output option names.
func TestFlagInjection(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOpts{})
	e.commit(t, "", "one", map[string]string{"a.txt": "a\n", "-p": "a file named like an option\n"})
	e.write(t, map[string]string{"a.txt": "changed\n"})
	out := filepath.Join(filepath.Dir(e.root), "injected")
	opt := "--output=" + out
	tests := map[string]struct {
		tool string
		args map[string]any
	}{
		"diff ref":             {"git_diff", map[string]any{"ref": opt}},
		"diff ref2":            {"git_diff", map[string]any{"ref": "HEAD", "ref2": opt}},
		"diff path":            {"git_diff", map[string]any{"paths": []string{"a.txt", opt}}},
		"log ref":              {"git_log", map[string]any{"ref": opt}},
		"log since":            {"git_log", map[string]any{"since": "-x"}},
		"log since option":     {"git_log", map[string]any{"since": opt}},
		"log path":             {"git_log", map[string]any{"path": opt}},
		"show ref":             {"git_show", map[string]any{"ref": opt}},
		"show path":            {"git_show", map[string]any{"path": "-p"}},
		"blame path":           {"git_blame", map[string]any{"path": "-p"}},
		"blame ref":            {"git_blame", map[string]any{"path": "a.txt", "ref": "--output=x"}},
		"add path":             {"git_add", map[string]any{"paths": []string{"--all"}}},
		"commit path":          {"git_commit", map[string]any{"message": "m", "paths": []string{"--amend"}}},
		"branch name":          {"git_branch", map[string]any{"name": "-D"}},
		"branch start":         {"git_branch", map[string]any{"name": "x", "start_point": "--orphan"}},
		"checkout ref":         {"git_checkout", map[string]any{"ref": "--orphan=x"}},
		"checkout start point": {"git_checkout", map[string]any{"ref": "x", "create": true, "start_point": "-f"}},
		"repo":                 {"git_status", map[string]any{"repo": "-C/tmp"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e.mustFail(t, tc.tool, tc.args, "begins with '-'")
		})
	}
	t.Cleanup(func() {
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%s was written", out)
		}
	})

	// A file whose name begins with '-' is reachable as ./-p.
	t.Run("dot slash", func(t *testing.T) {
		t.Parallel()
		if got := e.mustCall(t, "git_show", map[string]any{"path": "./-p"}); got != "a file named like an option\n" {
			t.Errorf("show ./-p: %q", got)
		}
	})
}

// TestConfinement checks that paths and repositories outside the served
// folders, or outside the repository, are refused.
func TestConfinement(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOpts{sub: "repo"})
	e.commit(t, "", "one", map[string]string{"a.txt": "a\n"})
	base := filepath.Dir(e.root)

	// Outside the served folder: a repository, a file, and links to both.
	outRepo := filepath.Join(base, "outside")
	if err := os.MkdirAll(outRepo, 0o755); err != nil {
		t.Fatal(err)
	}
	gitT(t, outRepo, "init", "-q", "-b", "main")
	if err := os.WriteFile(filepath.Join(outRepo, "secret.txt"), []byte("secret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{
		filepath.Join(e.dir, "out-link"):   outRepo,
		filepath.Join(e.root, "repo-link"): outRepo,
	} {
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
	}
	// A plain folder next to the repository, inside the served folder.
	if err := os.MkdirAll(filepath.Join(e.root, "plain"), 0o755); err != nil {
		t.Fatal(err)
	}

	tests := map[string]struct {
		tool string
		args map[string]any
		want string
	}{
		"dotdot path":          {"git_add", map[string]any{"repo": "repo", "paths": []string{"../plain"}}, "outside the repository"},
		"absolute outside":     {"git_diff", map[string]any{"repo": "repo", "paths": []string{filepath.Join(outRepo, "secret.txt")}}, "outside the served folders"},
		"link out of roots":    {"git_add", map[string]any{"repo": "repo", "paths": []string{"out-link/secret.txt"}}, "outside the served folders"},
		"blame through link":   {"git_blame", map[string]any{"repo": "repo", "path": "out-link/secret.txt"}, "outside the served folders"},
		"git dir":              {"git_add", map[string]any{"repo": "repo", "paths": []string{".git/config"}}, "inside the .git directory"},
		"repo outside":         {"git_status", map[string]any{"repo": outRepo}, "outside the served folders"},
		"repo through link":    {"git_log", map[string]any{"repo": "repo-link"}, "outside the served folders"},
		"write repo outside":   {"git_commit", map[string]any{"repo": outRepo, "message": "x"}, "outside the served folders"},
		"not a repository":     {"git_status", map[string]any{"repo": "plain"}, "plain is not inside a git repository"},
		"default not a repo":   {"git_log", map[string]any{}, ". is not inside a git repository"},
		"missing repo":         {"git_status", map[string]any{"repo": "nope"}, `repo "nope" does not exist`},
		"path in another repo": {"git_show", map[string]any{"repo": "repo", "path": filepath.Join(e.root, "plain")}, "outside the repository"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e.mustFail(t, tc.tool, tc.args, tc.want)
		})
	}

	t.Run("top level above the served folder", func(t *testing.T) {
		t.Parallel()
		sub := filepath.Join(e.dir, "sub")
		if err := os.MkdirAll(sub, 0o755); err != nil {
			t.Fatal(err)
		}
		g, _ := sdktest.Connect(t, git.New(), sdk.Host{Roots: []string{sub}})
		res := sdktest.Call(t, g, "git_status", map[string]any{})
		if !res.IsError || !strings.Contains(res.Text(), "has its top level at "+e.dir+", outside the served folders") {
			t.Errorf("got %q (error %v)", res.Text(), res.IsError)
		}
	})
	t.Run("read outside allowed for reads only", func(t *testing.T) {
		t.Parallel()
		g, _ := sdktest.Connect(t, git.New(), sdk.Host{Roots: []string{e.root}, ReadOutside: true})
		res := sdktest.Call(t, g, "git_status", map[string]any{"repo": outRepo})
		if res.IsError || !strings.Contains(res.Text(), "untracked (1):\n  secret.txt") {
			t.Errorf("status outside with read-outside: %q (error %v)", res.Text(), res.IsError)
		}
		res = sdktest.Call(t, g, "git_add", map[string]any{"repo": outRepo, "paths": []string{"secret.txt"}})
		if !res.IsError || !strings.Contains(res.Text(), "repositories can be changed only inside the served folders") {
			t.Errorf("add outside with read-outside: %q (error %v)", res.Text(), res.IsError)
		}
		if got := gitT(t, outRepo, "diff", "--cached", "--name-only"); got != "" {
			t.Errorf("staged outside: %q", got)
		}
	})
}

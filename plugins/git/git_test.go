package git_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ramabana/ramabana-mcp/plugins/git"
	"github.com/ramabana/ramabana-mcp/sdk"
	"github.com/ramabana/ramabana-mcp/sdk/sdktest"
)

// TestMain isolates git from the machine's configuration: no global or
// system config (so no user.name unless a test sets one), and no variable
// that would point git at another repository.
func TestMain(m *testing.M) {
	home, err := os.MkdirTemp("", "git-plugin-home")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	global := filepath.Join(home, "gitconfig")
	if err := os.WriteFile(global, nil, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for _, k := range []string{"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL",
		"GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "EMAIL", "GIT_AUTHOR_DATE", "GIT_COMMITTER_DATE"} {
		os.Unsetenv(k)
	}
	os.Setenv("HOME", home)
	os.Setenv("XDG_CONFIG_HOME", home)
	os.Setenv("GIT_CONFIG_GLOBAL", global)
	os.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	baseEnv = os.Environ()
	if templatesDir, err = os.MkdirTemp("", "git-plugin-templates"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(templatesDir)
	os.RemoveAll(home)
	os.Exit(code)
}

// env is a served folder holding a repository, with the git plugin
// connected to it over gRPC.
type env struct {
	root string // the served folder
	dir  string // the repository's top level
	g    sdk.Group
}

type envOpts struct {
	// sub puts the repository in this sub-folder of the served folder.
	sub string
	// noIdentity leaves user.name and user.email unset.
	noIdentity  bool
	readOutside bool
	// commands tells the plugin that the user allows commands (the shell
	// group is mounted), so hooks and filters run.
	commands bool
	// repo, when set, is the template the repository is a copy of, in
	// place of an empty one; its own config decides the identity
	// (noIdentity is not looked at).
	repo *repoTemplate
}

// newEnv makes an empty repository (branch main), or a copy of o.repo, in a
// fresh served folder. The empty one is a copy of a template too, made by
// git init -b main (and git config user.name, user.email).
func newEnv(t *testing.T, o envOpts) *env {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(base, "root")
	dir := filepath.Join(root, o.sub)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	tmpl := o.repo
	switch {
	case tmpl != nil:
	case o.noIdentity:
		tmpl = emptyRepo
	default:
		tmpl = identityRepo
	}
	tmpl.copyTo(t, dir)
	g, _ := sdktest.Connect(t, git.New(), sdk.Host{Roots: []string{root}, ReadOutside: o.readOutside, Write: true, Commands: o.commands})
	return &env{root: root, dir: dir, g: g}
}

func (e *env) path(name string) string { return filepath.Join(e.dir, filepath.FromSlash(name)) }

// call calls a tool and returns its text and whether it is an error.
func (e *env) call(t *testing.T, tool string, args any) (string, bool) {
	t.Helper()
	res := sdktest.Call(t, e.g, tool, args)
	return res.Text(), res.IsError
}

// mustCall calls a tool that must succeed.
func (e *env) mustCall(t *testing.T, tool string, args any) string {
	t.Helper()
	text, isErr := e.call(t, tool, args)
	if isErr {
		t.Fatalf("%s %v: error result: %s", tool, args, text)
	}
	return text
}

// mustFail calls a tool that must return an error result containing want.
func (e *env) mustFail(t *testing.T, tool string, args any, want ...string) string {
	t.Helper()
	text, isErr := e.call(t, tool, args)
	if !isErr {
		t.Fatalf("%s %v: want an error result, got: %s", tool, args, text)
	}
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("%s %v: error %q does not contain %q", tool, args, text, w)
		}
	}
	return text
}

// gitT runs git in dir for a test's setup and returns its trimmed output.
// Extra environment entries (KEY=VALUE) may be given before the arguments
// with the env helper.
func gitT(t *testing.T, dir string, args ...string) string {
	t.Helper()
	return gitEnvT(t, dir, nil, args...)
}

func gitEnvT(t *testing.T, dir string, extra []string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), extra...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// write writes files (name → content) into the repository.
func (e *env) write(t *testing.T, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := e.path(name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func (e *env) read(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(e.path(name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// commit writes files, stages everything and commits at date (RFC 3339,
// or "" for now), returning the short hash.
func (e *env) commit(t *testing.T, date, msg string, files map[string]string) string {
	t.Helper()
	e.write(t, files)
	gitT(t, e.dir, "add", "-A")
	var extra []string
	if date != "" {
		extra = []string{"GIT_AUTHOR_DATE=" + date, "GIT_COMMITTER_DATE=" + date}
	}
	gitEnvT(t, e.dir, extra, "commit", "-q", "--allow-empty", "-m", msg)
	return gitT(t, e.dir, "rev-parse", "--short=7", "HEAD")
}

func TestDescribe(t *testing.T) {
	t.Parallel()
	_, d := sdktest.Connect(t, git.New(), sdk.Host{Roots: []string{t.TempDir()}})
	type tool struct {
		Name, Kind string
		Required   []string
		Hints      sdk.Hints
	}
	var got []tool
	if len(d.Groups) != 1 || d.Groups[0].Name != "git" || d.Groups[0].Mode != sdk.ModeDefault {
		t.Fatalf("groups: %+v", d.Groups)
	}
	for _, s := range d.Groups[0].Tools {
		if s.Title == "" || len(s.Description) < 80 {
			t.Errorf("%s: title %q, description of %d bytes; want both", s.Name, s.Title, len(s.Description))
		}
		var schema struct {
			Type       string                     `json:"type"`
			Required   []string                   `json:"required"`
			Properties map[string]json.RawMessage `json:"properties"`
		}
		if err := json.Unmarshal(s.InputSchema, &schema); err != nil || schema.Type != "object" {
			t.Errorf("%s: input schema %s: %v", s.Name, s.InputSchema, err)
		}
		if _, ok := schema.Properties["repo"]; !ok {
			t.Errorf("%s: no repo argument", s.Name)
		}
		got = append(got, tool{Name: s.Name, Kind: s.Kind.String(), Required: schema.Required, Hints: s.Hints()})
	}
	read := sdk.Hints{ReadOnly: true, Idempotent: true}
	want := []tool{
		{Name: "git_status", Kind: "read", Hints: read},
		{Name: "git_diff", Kind: "read", Hints: read},
		{Name: "git_log", Kind: "read", Hints: read},
		{Name: "git_show", Kind: "read", Hints: read},
		{Name: "git_blame", Kind: "read", Required: []string{"path"}, Hints: read},
		{Name: "git_add", Kind: "write", Required: []string{"paths"}, Hints: sdk.Hints{Idempotent: true}},
		{Name: "git_commit", Kind: "write", Required: []string{"message"}},
		{Name: "git_branch", Kind: "write"},
		{Name: "git_checkout", Kind: "write", Required: []string{"ref"}, Hints: sdk.Hints{Idempotent: true}},
		{Name: "git_restore", Kind: "write", Required: []string{"paths"}, Hints: sdk.Hints{Destructive: true, Idempotent: true}},
		{Name: "git_stash", Kind: "write", Required: []string{"action"}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
}

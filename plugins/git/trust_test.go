package git_test

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ramabana/ramabana-mcp/plugins/git"
	"github.com/ramabana/ramabana-mcp/sdk"
	"github.com/ramabana/ramabana-mcp/sdk/sdktest"
)

// trustEnv is a served folder holding a repository set up to tempt git into
// running programs: prog, outside the served folder, records each run as a
// file in markers, named after what ran it.
type trustEnv struct {
	base, root, dir string
	prog, markers   string
}

// newTrustEnv makes a repository with a history that every tool has
// something to do with: .gitattributes naming the drivers "drv" for *.t,
// a branch "other" that changes c.t (checkout writes it), a HEAD commit
// that changes a.t (show diffs it) and carries a signature (log and show
// verify it when asked), a.t changed in the work tree and b.t touched so
// that git must read it again to know it is unchanged. The history is a
// copy of trustRepo.
func newTrustEnv(t *testing.T) *trustEnv {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	e := &trustEnv{base: base, root: filepath.Join(base, "root"), markers: filepath.Join(base, "markers"), prog: filepath.Join(base, "prog")}
	e.dir = filepath.Join(e.root, "repo")
	for _, d := range []string{e.dir, e.markers} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// prog NAME [cat | file PATH]: mark, then pass stdin or a file through.
	script := fmt.Sprintf("#!/bin/sh\ntouch %q/\"$1\"\ncase \"$2\" in\ncat) exec cat ;;\nfile) exec cat \"$3\" ;;\nesac\nexit 0\n", e.markers)
	if err := os.WriteFile(e.prog, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	trustRepo.copyTo(t, e.dir)
	e.write(t, map[string]string{"a.t": "a3\n"})
	if err := os.Chtimes(filepath.Join(e.dir, "b.t"), time2000, time2000); err != nil {
		t.Fatal(err)
	}
	return e
}

// trustRepo is newTrustEnv's repository up to the history: the work tree
// matches HEAD.
var trustRepo = &repoTemplate{name: "trust", build: func(b *builder) {
	b.git("init", "-q", "-b", "main")
	b.git("config", "user.name", "Ada Lovelace")
	b.git("config", "user.email", "ada@example.com")
	b.write(map[string]string{".gitattributes": "*.t diff=drv filter=drv merge=drv\n", "a.t": "a\n", "b.t": "b\n", "c.t": "c\n"})
	b.git("add", "-A")
	b.git("commit", "-q", "-m", "base")
	b.write(map[string]string{"a.t": "a2\n"})
	b.git("commit", "-q", "-am", "change a")
	b.git("checkout", "-q", "-b", "other")
	b.write(map[string]string{"c.t": "c other\n"})
	b.git("commit", "-q", "-am", "other")
	b.git("checkout", "-q", "main")
	// A signature git verifies with gpg.program when log.showSignature
	// is set.
	raw := b.git("cat-file", "commit", "HEAD")
	head, msg, _ := strings.Cut(raw, "\n\n")
	signed := head + "\ngpgsig -----BEGIN PGP SIGNATURE-----\n \n iQEzBAABCAAdFiEE\n -----END PGP SIGNATURE-----\n\n" + msg + "\n"
	oid := b.gitEnvIn(nil, signed, "hash-object", "-t", "commit", "-w", "--stdin")
	b.git("update-ref", "refs/heads/main", oid)
}}

func (e *trustEnv) write(t *testing.T, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(e.dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		mode := os.FileMode(0o644)
		if strings.Contains(name, "hooks/") {
			mode = 0o755
		}
		if err := os.WriteFile(p, []byte(content), mode); err != nil {
			t.Fatal(err)
		}
	}
}

// cmd is prog's command line for a marker name.
func (e *trustEnv) cmd(name string, rest ...string) string {
	return strings.Join(append([]string{e.prog, name}, rest...), " ")
}

// ran lists the markers, and removes them.
func (e *trustEnv) ran(t *testing.T) []string {
	t.Helper()
	ents, err := os.ReadDir(e.markers)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, d := range ents {
		names = append(names, d.Name())
		os.Remove(filepath.Join(e.markers, d.Name()))
	}
	return names
}

// programClass is one way repository data names a program.
type programClass struct {
	// config is set in the repository's config (git config key value).
	config [][2]string
	// files are written into the repository after the history is made.
	files func(e *trustEnv) map[string]string
	// setup does the rest (before config and files).
	setup func(t *testing.T, e *trustEnv)
	// filter says a.t is filtered by a program from repository config:
	// git_add and git_commit of it are refused without commands.
	filter bool
	// smudge says the files a checkout writes are smudged by a program
	// from repository config: a git_checkout that writes files (not the
	// creation of a branch at HEAD) is refused without commands.
	smudge bool
}

// allHooks are the hooks git_add, git_commit, git_branch and git_checkout
// could run.
var allHooks = []string{"pre-commit", "prepare-commit-msg", "commit-msg", "post-commit", "post-checkout",
	"reference-transaction", "post-index-change", "pre-auto-gc", "post-rewrite", "fsmonitor-watchman"}

func programClasses(e *trustEnv) map[string]programClass {
	hooks := func(dir string) map[string]string {
		m := map[string]string{}
		for _, h := range allHooks {
			m[dir+"/"+h] = "#!/bin/sh\n" + e.cmd("hook-"+h) + "\n"
		}
		return m
	}
	return map[string]programClass{
		"core.fsmonitor":      {config: [][2]string{{"core.fsmonitor", e.cmd("fsmonitor")}}},
		"core.fsmonitor true": {config: [][2]string{{"core.fsmonitor", "true"}}},
		"core.sshCommand":     {config: [][2]string{{"core.sshCommand", e.cmd("ssh")}}},
		"core.pager":          {config: [][2]string{{"core.pager", e.cmd("pager", "cat")}, {"pager.log", e.cmd("pager-log", "cat")}, {"pager.status", e.cmd("pager-status", "cat")}}},
		"core.editor":         {config: [][2]string{{"core.editor", e.cmd("editor")}, {"sequence.editor", e.cmd("seq-editor")}}},
		"core.askPass":        {config: [][2]string{{"core.askPass", e.cmd("askpass")}}},
		"diff.external":       {config: [][2]string{{"diff.external", e.cmd("diff-external")}}},
		"diff.drv.command":    {config: [][2]string{{"diff.drv.command", e.cmd("diff-command")}}},
		"diff.drv.textconv":   {config: [][2]string{{"diff.drv.textconv", e.cmd("textconv", "file")}}},
		"filter.drv.clean":    {config: [][2]string{{"filter.drv.clean", e.cmd("filter-clean", "cat")}}, filter: true},
		"filter.drv.smudge":   {config: [][2]string{{"filter.drv.smudge", e.cmd("filter-smudge", "cat")}}, smudge: true},
		"filter.drv.process":  {config: [][2]string{{"filter.drv.process", e.cmd("filter-process")}, {"filter.drv.required", "true"}}, filter: true, smudge: true},
		"merge.drv.driver":    {config: [][2]string{{"merge.drv.driver", e.cmd("merge-driver")}}},
		"gpg.program":         {config: [][2]string{{"gpg.program", e.cmd("gpg")}, {"commit.gpgSign", "true"}, {"log.showSignature", "true"}}},
		"gpg.ssh.program":     {config: [][2]string{{"gpg.format", "ssh"}, {"gpg.ssh.program", e.cmd("gpg-ssh")}, {"user.signingKey", "key::ssh-ed25519 AAAA"}, {"commit.gpgSign", "true"}, {"gpg.ssh.defaultKeyCommand", e.cmd("gpg-ssh-key")}}},
		"gpg.x509.program":    {config: [][2]string{{"gpg.format", "x509"}, {"gpg.x509.program", e.cmd("gpg-x509")}, {"commit.gpgSign", "true"}}},
		"credential.helper":   {config: [][2]string{{"credential.helper", e.cmd("credential")}, {"credential.https://example.com.helper", e.cmd("credential-url")}}},
		"core.hooksPath":      {config: [][2]string{{"core.hooksPath", "myhooks"}}, files: func(*trustEnv) map[string]string { return hooks("myhooks/hooks") }},
		"hooks in .git/hooks": {files: func(*trustEnv) map[string]string { return hooks(".git/hooks") }},
		"trailer and friends": {config: [][2]string{{"trailer.sign.command", e.cmd("trailer")}, {"core.alternateRefsCommand", e.cmd("alt-refs")}, {"interactive.diffFilter", e.cmd("diff-filter")}, {"core.gitProxy", e.cmd("git-proxy")}}},
		"include.path": {
			config: [][2]string{{"include.path", "../inc.cfg"}},
			files: func(*trustEnv) map[string]string {
				return map[string]string{"inc.cfg": fmt.Sprintf("[core]\n\tfsmonitor = %s\n[filter \"drv\"]\n\tclean = %s\n", e.cmd("inc-fsmonitor"), e.cmd("inc-clean", "cat"))}
			},
			filter: true,
		},
		"includeIf gitdir": {
			config: [][2]string{{"includeIf.gitdir:" + e.dir + "/.git.path", filepath.Join(e.dir, "sub.cfg")}},
			files: func(*trustEnv) map[string]string {
				return map[string]string{"sub.cfg": fmt.Sprintf("[diff \"drv\"]\n\ttextconv = %s\n[core]\n\tfsmonitor = %s\n\thooksPath = myhooks\n", e.cmd("incif-textconv", "file"), e.cmd("incif-fsmonitor")),
					"myhooks/pre-commit": "#!/bin/sh\n" + e.cmd("incif-hook") + "\n"}
			},
		},
		"config.worktree": {
			setup: func(t *testing.T, e *trustEnv) {
				gitT(t, e.dir, "config", "extensions.worktreeConfig", "true")
				gitT(t, e.dir, "config", "--worktree", "core.fsmonitor", e.cmd("wt-fsmonitor"))
				gitT(t, e.dir, "config", "--worktree", "filter.drv.smudge", e.cmd("wt-smudge", "cat"))
			},
			smudge: true,
		},
		"hostile submodule": {
			setup: func(t *testing.T, e *trustEnv) {
				sub := filepath.Join(e.dir, "sub")
				if err := os.MkdirAll(sub, 0o755); err != nil {
					t.Fatal(err)
				}
				gitT(t, sub, "init", "-q", "-b", "main")
				gitT(t, sub, "config", "user.name", "x")
				gitT(t, sub, "config", "user.email", "x@x")
				if err := os.WriteFile(filepath.Join(sub, "s.x"), []byte("s\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(sub, ".gitattributes"), []byte("*.x filter=sdrv diff=sdrv\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				gitT(t, sub, "add", "-A")
				gitT(t, sub, "commit", "-q", "-m", "s")
				e.write(t, map[string]string{".gitmodules": "[submodule \"sub\"]\n\tpath = sub\n\turl = ./sub\n\tignore = none\n"})
				gitT(t, e.dir, "add", "sub", ".gitmodules")
				gitT(t, e.dir, "commit", "-q", "-m", "submodule", "--", "sub", ".gitmodules")
				gitT(t, sub, "config", "core.fsmonitor", e.cmd("sub-fsmonitor"))
				gitT(t, sub, "config", "filter.sdrv.clean", e.cmd("sub-clean", "cat"))
				gitT(t, sub, "config", "diff.sdrv.textconv", e.cmd("sub-textconv", "file"))
				if err := os.Chtimes(filepath.Join(sub, "s.x"), time2000, time2000); err != nil {
					t.Fatal(err)
				}
			},
		},
	}
}

// toolCall is one call of every tool, in an order that leaves each with
// work: reads first, then add, commit, branch and checkout.
type toolCall struct {
	tool  string
	args  map[string]any
	write bool
}

// run runs the tool on the repository "repo" of the served folder.
func (c toolCall) run(t *testing.T, g sdk.Group) *sdk.Result {
	t.Helper()
	args := map[string]any{"repo": "repo"}
	maps.Copy(args, c.args)
	return sdktest.Call(t, g, c.tool, args)
}

var everyTool = []toolCall{
	{tool: "git_status", args: map[string]any{}},
	{tool: "git_diff", args: map[string]any{}},
	{tool: "git_diff", args: map[string]any{"ref": "HEAD~1", "ref2": "HEAD"}},
	{tool: "git_log", args: map[string]any{}},
	{tool: "git_log", args: map[string]any{"path": "a.t"}},
	{tool: "git_show", args: map[string]any{}},
	{tool: "git_blame", args: map[string]any{"path": "a.t"}},
	{tool: "git_add", args: map[string]any{"paths": []string{"a.t", "b.t"}}, write: true},
	{tool: "git_commit", args: map[string]any{"message": "m", "paths": []string{"a.t"}}, write: true},
	{tool: "git_branch", args: map[string]any{"name": "nb"}, write: true},
	{tool: "git_branch", args: map[string]any{}, write: true},
	{tool: "git_checkout", args: map[string]any{"ref": "other"}, write: true},
	{tool: "git_checkout", args: map[string]any{"ref": "nb2", "create": true}, write: true},
}

// TestNoProgramsFromRepository tries every class of program a repository
// can name against every tool without commands: nothing may run. A filter
// from repository config makes git_add and git_commit of its paths refuse.
//
// The read tools run under a read-only host, the write tools then under a
// host that allows writes, on the same repository. A read tool does the
// same under either host (its confinement follows its kind, not the host's
// mode: see tool in git.go), so it is not run again under the second.
func TestNoProgramsFromRepository(t *testing.T) {
	t.Parallel()
	var tried, held, broken atomic.Int64
	t.Cleanup(func() {
		t.Logf("program cases: %d tried, %d held, %d broken", tried.Load(), held.Load(), broken.Load())
	})
	for name := range programClasses(&trustEnv{}) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e := newTrustEnv(t)
			c := programClasses(e)[name]
			e.apply(t, c)
			for _, write := range []bool{false, true} {
				g, _ := sdktest.Connect(t, git.New(), sdk.Host{Roots: []string{e.root}, Write: write})
				for _, tc := range everyTool {
					if tc.write != write {
						continue
					}
					tried.Add(1)
					res := tc.run(t, g)
					ok := true
					if ran := e.ran(t); len(ran) > 0 {
						t.Errorf("%s %v ran %v", tc.tool, tc.args, ran)
						ok = false
					}
					refuse := c.filter && (tc.tool == "git_add" || tc.tool == "git_commit") || c.smudge && tc.tool == "git_checkout" && tc.args["create"] != true
					switch {
					case refuse && (!res.IsError || !strings.Contains(res.Text(), "names filter drv")):
						t.Errorf("%s %v: want a refusal naming filter drv, got %q (error %v)", tc.tool, tc.args, res.Text(), res.IsError)
						ok = false
					case !refuse && res.IsError:
						t.Errorf("%s %v: error result: %s", tc.tool, tc.args, res.Text())
						ok = false
					}
					if ok {
						held.Add(1)
					} else {
						broken.Add(1)
					}
				}
			}
		})
	}
}

// TestProgramsRunWithCommands checks that with commands allowed git is the
// user's own: hooks, filters and fsmonitor run.
func TestProgramsRunWithCommands(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		class string
		call  toolCall
		want  string
	}{
		"pre-commit hook":     {"hooks in .git/hooks", everyTool[8], "hook-pre-commit"},
		"post-checkout hook":  {"hooks in .git/hooks", everyTool[11], "hook-post-checkout"},
		"clean filter":        {"filter.drv.clean", everyTool[7], "filter-clean"},
		"smudge filter":       {"filter.drv.smudge", everyTool[11], "filter-smudge"},
		"fsmonitor":           {"core.fsmonitor", everyTool[0], "fsmonitor"},
		"textconv":            {"diff.drv.textconv", everyTool[1], "textconv"},
		"included fsmonitor":  {"include.path", everyTool[0], "inc-fsmonitor"},
		"submodule fsmonitor": {"hostile submodule", everyTool[0], "sub-fsmonitor"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e := newTrustEnv(t)
			e.apply(t, programClasses(e)[tc.class])
			g, _ := sdktest.Connect(t, git.New(), sdk.Host{Roots: []string{e.root}, Write: true, Commands: true})
			res := tc.call.run(t, g)
			if ran := e.ran(t); !slices.Contains(ran, tc.want) {
				t.Errorf("%s: ran %v, want %s; result %q (error %v)", tc.call.tool, ran, tc.want, res.Text(), res.IsError)
			}
		})
	}
}

// apply sets a class up in the repository.
func (e *trustEnv) apply(t *testing.T, c programClass) {
	t.Helper()
	if c.setup != nil {
		c.setup(t, e)
	}
	for _, kv := range c.config {
		gitT(t, e.dir, "config", kv[0], kv[1])
	}
	if c.files != nil {
		e.write(t, c.files(e))
	}
	if ran := e.ran(t); len(ran) > 0 {
		t.Fatalf("setup ran %v", ran)
	}
}

// TestTrustedGlobalFilter checks that a filter from the user's global
// config runs without commands, and that the repository cannot replace
// its command. Not parallel: it sets GIT_CONFIG_GLOBAL for the process.
func TestTrustedGlobalFilter(t *testing.T) {
	e := newTrustEnv(t)
	global := filepath.Join(e.base, "global")
	gprog := e.builtinProg(t)
	body := fmt.Sprintf("[filter \"drv\"]\n\tclean = %s global-clean cat\n\tsmudge = %s global-smudge cat\n[core]\n\tfsmonitor = false\n", gprog, gprog)
	if err := os.WriteFile(global, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GIT_CONFIG_GLOBAL", global)
	e.apply(t, programClass{config: [][2]string{{"filter.drv.clean", e.cmd("repo-clean", "cat")}}})
	g, _ := sdktest.Connect(t, git.New(), sdk.Host{Roots: []string{e.root}, Write: true})
	res := sdktest.Call(t, g, "git_add", map[string]any{"repo": "repo", "paths": []string{"a.t"}})
	if res.IsError {
		t.Fatalf("git_add: %s", res.Text())
	}
	if ran := e.ran(t); !slices.Equal(ran, []string{"global-clean"}) {
		t.Errorf("ran %v; want global-clean only", ran)
	}
	// A process command of the repository's would hide the global clean
	// (git prefers process): refused.
	e.apply(t, programClass{config: [][2]string{{"filter.drv.process", e.cmd("repo-process")}}})
	e.write(t, map[string]string{"a.t": "a4\n"})
	res = sdktest.Call(t, g, "git_add", map[string]any{"repo": "repo", "paths": []string{"a.t"}})
	if !res.IsError || !strings.Contains(res.Text(), "names filter drv") {
		t.Errorf("git_add with a repository process: %q (error %v); want a refusal", res.Text(), res.IsError)
	}
	if ran := e.ran(t); len(ran) > 0 {
		t.Errorf("ran %v", ran)
	}
}

// builtinProg writes a program like prog that starts no other program
// (shell builtins only), as the exec sandbox requires of a trusted one:
// it allows the program and its interpreter, not what they start.
func (e *trustEnv) builtinProg(t *testing.T) string {
	t.Helper()
	p := filepath.Join(e.base, "gprog")
	script := fmt.Sprintf("#!/bin/sh\n: > %q/\"$1\"\nif [ \"$2\" = cat ]; then while IFS= read -r l || [ -n \"$l\" ]; do printf '%%s\\n' \"$l\"; done; fi\nexit 0\n", e.markers)
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// time2000 is a modification time no file of a test has.
var time2000 = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// snapshotTree maps every file and link under dir to a hash of its content
// or target, to compare a tree before and after.
func snapshotTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	m := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			m[rel] = "link " + target
		case d.Type().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			sum := sha256.Sum256(b)
			m[rel] = hex.EncodeToString(sum[:])
		case d.IsDir():
			m[rel+"/"] = "dir"
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestLayoutConfinement points a repository in the served folder at git
// data outside it in every way git allows, and calls every tool: each call
// is refused (reads may go out only with reads outside allowed, writes
// never), and nothing outside changes.
func TestLayoutConfinement(t *testing.T) {
	t.Parallel()
	type layoutCase struct {
		repo  string
		setup func(t *testing.T, root, outside string)
	}
	// worktree adds a linked worktree of the outside repository at dir.
	worktree := func(t *testing.T, outside, dir string) {
		gitT(t, outside, "worktree", "add", "-q", "-b", "wt-"+filepath.Base(dir), dir)
		if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("changed\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// workTree makes root/repo a work tree with a.txt changed.
	workTree := func(t *testing.T, root string) string {
		dir := filepath.Join(root, "repo")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("changed\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	// ownRepo makes root/repo a repository of its own, with a.txt
	// committed as changed (a copy of layoutOwnRepo).
	ownRepo := func(t *testing.T, root string) string {
		dir := filepath.Join(root, "repo")
		layoutOwnRepo.copyTo(t, dir)
		return dir
	}
	cases := map[string]layoutCase{
		".git file": {"repo", func(t *testing.T, root, outside string) {
			dir := workTree(t, root)
			if err := os.WriteFile(filepath.Join(dir, ".git"), []byte("gitdir: "+filepath.Join(outside, ".git")+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}},
		".git link": {"repo", func(t *testing.T, root, outside string) {
			dir := workTree(t, root)
			if err := os.Symlink(filepath.Join(outside, ".git"), filepath.Join(dir, ".git")); err != nil {
				t.Fatal(err)
			}
		}},
		"core.worktree": {"repo", func(t *testing.T, root, outside string) {
			dir := ownRepo(t, root)
			gitT(t, dir, "config", "core.worktree", outside)
		}},
		"linked worktree": {"wt", func(t *testing.T, root, outside string) {
			worktree(t, outside, filepath.Join(root, "wt"))
		}},
		"common dir outside": {"wt", func(t *testing.T, root, outside string) {
			// The worktree's own git dir is moved inside; its commondir
			// still names the outside repository.
			wt := filepath.Join(root, "wt")
			worktree(t, outside, wt)
			gd := filepath.Join(root, "gd")
			if err := os.Rename(filepath.Join(outside, ".git", "worktrees", "wt"), gd); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(wt, ".git"), []byte("gitdir: "+gd+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(gd, "commondir"), []byte(filepath.Join(outside, ".git")+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}},
		"refs link": {"repo", func(t *testing.T, root, outside string) {
			dir := ownRepo(t, root)
			refs := filepath.Join(dir, ".git", "refs")
			if err := os.RemoveAll(refs); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(filepath.Join(outside, ".git", "refs"), refs); err != nil {
				t.Fatal(err)
			}
		}},
		"alternates": {"repo", func(t *testing.T, root, outside string) {
			dir := ownRepo(t, root)
			alt := filepath.Join(dir, ".git", "objects", "info", "alternates")
			if err := os.WriteFile(alt, []byte(filepath.Join(outside, ".git", "objects")+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}},
		"repo ..": {"..", func(t *testing.T, root, outside string) {}},
	}
	calls := []toolCall{
		{tool: "git_status", args: map[string]any{}},
		{tool: "git_diff", args: map[string]any{}},
		{tool: "git_log", args: map[string]any{}},
		{tool: "git_show", args: map[string]any{}},
		{tool: "git_blame", args: map[string]any{"path": "a.txt"}},
		{tool: "git_add", args: map[string]any{"paths": []string{"a.txt"}}, write: true},
		{tool: "git_commit", args: map[string]any{"message": "m", "paths": []string{"a.txt"}}, write: true},
		{tool: "git_branch", args: map[string]any{"name": "nb"}, write: true},
		{tool: "git_checkout", args: map[string]any{"ref": "other"}, write: true},
	}
	modes := map[string]sdk.Host{
		"read-only":    {},
		"write":        {Write: true},
		"read-outside": {Write: true, ReadOutside: true},
		"commands":     {Write: true, Commands: true},
	}
	var tried, held, broken atomic.Int64
	t.Cleanup(func() {
		t.Logf("layout cases: %d tried, %d held, %d broken", tried.Load(), held.Load(), broken.Load())
	})
	for name, lc := range cases {
		for mode, host := range modes {
			t.Run(name+"/"+mode, func(t *testing.T) {
				t.Parallel()
				base, err := filepath.EvalSymlinks(t.TempDir())
				if err != nil {
					t.Fatal(err)
				}
				root, outside := filepath.Join(base, "root"), filepath.Join(base, "outside")
				for _, d := range []string{root, outside} {
					if err := os.MkdirAll(d, 0o755); err != nil {
						t.Fatal(err)
					}
				}
				layoutOutsideRepo.copyTo(t, outside)
				lc.setup(t, root, outside)
				before := snapshotTree(t, outside)
				host.Roots = []string{root}
				g, _ := sdktest.Connect(t, git.New(), host)
				for _, tc := range calls {
					if tc.write && !host.Write {
						continue
					}
					tried.Add(1)
					args := map[string]any{"repo": lc.repo}
					for k, v := range tc.args {
						args[k] = v
					}
					res := sdktest.Call(t, g, tc.tool, args)
					mayRead := host.ReadOutside && !tc.write
					if !mayRead && (!res.IsError || !strings.Contains(res.Text(), "outside")) {
						t.Errorf("%s %v: want a refusal, got %q (error %v)", tc.tool, tc.args, res.Text(), res.IsError)
						broken.Add(1)
						continue
					}
					held.Add(1)
				}
				after := snapshotTree(t, outside)
				for p, h := range after {
					if before[p] != h {
						t.Errorf("outside changed: %s", p)
					}
				}
				for p := range before {
					if _, ok := after[p]; !ok {
						t.Errorf("outside removed: %s", p)
					}
				}
			})
		}
	}
}

// layoutOutsideRepo is TestLayoutConfinement's repository outside the
// served folder: a.txt committed, and a branch other.
var layoutOutsideRepo = &repoTemplate{name: "layout-outside", build: func(b *builder) {
	b.git("init", "-q", "-b", "main")
	b.git("config", "user.name", "x")
	b.git("config", "user.email", "x@x")
	b.write(map[string]string{"a.txt": "a\n"})
	b.git("add", "a.txt")
	b.git("commit", "-q", "-m", "outside")
	b.git("branch", "other")
}}

// layoutOwnRepo is a repository of its own inside the served folder, for
// the layouts that point it outside.
var layoutOwnRepo = &repoTemplate{name: "layout-own", build: func(b *builder) {
	b.write(map[string]string{"a.txt": "changed\n"})
	b.git("init", "-q", "-b", "main")
	b.git("config", "user.name", "x")
	b.git("config", "user.email", "x@x")
	b.git("add", "a.txt")
	b.git("commit", "-q", "-m", "own")
}}

// TestRepositoryEnvIgnored sets the variables that would point git at
// another repository in the plugin's own environment: the tools still work
// on the repository the call names, and the other one is untouched. Not
// parallel: it sets the process environment.
func TestRepositoryEnvIgnored(t *testing.T) {
	e := newTrustEnv(t)
	outside := filepath.Join(e.base, "outside")
	gitT(t, e.base, "init", "-q", "-b", "main", outside)
	before := snapshotTree(t, outside)
	t.Setenv("GIT_DIR", filepath.Join(outside, ".git"))
	t.Setenv("GIT_WORK_TREE", outside)
	t.Setenv("GIT_INDEX_FILE", filepath.Join(outside, ".git", "index"))
	t.Setenv("GIT_COMMON_DIR", filepath.Join(outside, ".git"))
	g, _ := sdktest.Connect(t, git.New(), sdk.Host{Roots: []string{e.root}, Write: true})
	for _, tc := range everyTool {
		if res := tc.run(t, g); res.IsError {
			t.Errorf("%s %v: %s", tc.tool, tc.args, res.Text())
		}
	}
	if after := snapshotTree(t, outside); !maps.Equal(before, after) {
		t.Errorf("outside repository changed")
	}
	own := filepath.Join(e.dir, ".git")
	if got := gitEnvT(t, e.dir, []string{"GIT_DIR=" + own, "GIT_WORK_TREE=" + e.dir, "GIT_INDEX_FILE=" + filepath.Join(own, "index"), "GIT_COMMON_DIR=" + own},
		"log", "-1", "--format=%s", "main"); got != "m" {
		t.Errorf("main of the named repository: %q; want the commit git_commit made", got)
	}
}

package git_test

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ramabana/ramabana-mcp/sdk"
	"github.com/ramabana/ramabana-mcp/sdk/sdktest"
)

func TestAddCommitRoundTrip(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOpts{})
	e.write(t, map[string]string{"a.txt": "a\n", "dir/b.txt": "b\n"})

	got := e.mustCall(t, "git_add", map[string]any{"paths": []string{"a.txt", "dir"}})
	want := "staged 2 paths:\n  added: a.txt\n  added: dir/b.txt\n2 files staged in all; commit with git_commit"
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("add (-want +got):\n%s", diff)
	}
	got = e.mustCall(t, "git_add", map[string]any{"paths": []string{"a.txt"}})
	if want := "nothing new to stage: the paths have no changes that are not staged already\n2 files staged in all; commit with git_commit"; got != want {
		t.Errorf("add again: %q, want %q", got, want)
	}

	got = e.mustCall(t, "git_commit", map[string]any{"message": "Add a and b\n\nThe body."})
	if !regexp.MustCompile(`^\[main \(root-commit\) [0-9a-f]{7}\] Add a and b\n 2 files changed, 2 insertions\(\+\)`).MatchString(got) {
		t.Errorf("commit: %q", got)
	}
	if msg := gitT(t, e.dir, "log", "-1", "--format=%an <%ae>|%B"); msg != "Ada Lovelace <ada@example.com>|Add a and b\n\nThe body." {
		t.Errorf("commit recorded %q", msg)
	}
	if got := e.mustCall(t, "git_status", map[string]any{}); !strings.HasSuffix(got, "nothing to commit, working tree clean") {
		t.Errorf("status after commit: %q", got)
	}

	// A deletion is staged by naming the deleted path.
	if err := os.Remove(e.path("dir/b.txt")); err != nil {
		t.Fatal(err)
	}
	got = e.mustCall(t, "git_add", map[string]any{"paths": []string{"dir/b.txt"}})
	if want := "staged 1 path:\n  removed: dir/b.txt\n1 file staged in all; commit with git_commit"; got != want {
		t.Errorf("add deletion: %q, want %q", got, want)
	}
	// A message that looks like an option is only a message.
	e.mustCall(t, "git_commit", map[string]any{"message": "--amend"})
	if got := gitT(t, e.dir, "log", "--format=%s"); got != "--amend\nAdd a and b" {
		t.Errorf("log after a commit whose message looks like an option: %q", got)
	}
}

func TestCommitOnlyPaths(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOpts{})
	e.commit(t, "", "one", map[string]string{"a.txt": "a\n", "b.txt": "b\n"})
	e.write(t, map[string]string{"a.txt": "a2\n", "b.txt": "b2\n", "new.txt": "n\n"})
	gitT(t, e.dir, "add", "b.txt")

	e.mustCall(t, "git_commit", map[string]any{"message": "only a", "paths": []string{"a.txt"}})
	if got := gitT(t, e.dir, "show", "--name-only", "--format=", "HEAD"); got != "a.txt" {
		t.Errorf("commit changed %q; want a.txt only", got)
	}
	if got := gitT(t, e.dir, "diff", "--cached", "--name-only"); got != "b.txt" {
		t.Errorf("staged after commit: %q; want b.txt still staged", got)
	}
	e.mustFail(t, "git_commit", map[string]any{"message": "new", "paths": []string{"new.txt"}}, "stage new files with git_add first")
}

func TestCommitRefusals(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		opts  envOpts
		setup func(t *testing.T, e *env)
		args  map[string]any
		want  []string
	}{
		"nothing staged": {
			setup: func(t *testing.T, e *env) { e.write(t, map[string]string{"a.txt": "changed\n"}) },
			args:  map[string]any{"message": "x"},
			want:  []string{"nothing to commit: no changes are staged. Stage changes with git_add"},
		},
		"nothing at all on a new repository": {
			args: map[string]any{"message": "x"},
			want: []string{"nothing to commit"},
		},
		"paths without changes": {
			args: map[string]any{"message": "x", "paths": []string{"a.txt"}},
			want: []string{"nothing to commit"},
		},
		"empty message": {
			setup: func(t *testing.T, e *env) {
				e.write(t, map[string]string{"a.txt": "changed\n"})
				gitT(t, e.dir, "add", "a.txt")
			},
			args: map[string]any{"message": " \n\t"},
			want: []string{"message is empty"},
		},
		"no identity": {
			opts: envOpts{noIdentity: true},
			setup: func(t *testing.T, e *env) {
				e.write(t, map[string]string{"a.txt": "changed\n"})
				gitT(t, e.dir, "add", "a.txt")
			},
			args: map[string]any{"message": "x"},
			want: []string{"user.name and user.email are not set", `git config --global user.name "Their Name"`, "git config --global user.email"},
		},
		"failing pre-commit hook": {
			opts: envOpts{commands: true},
			setup: func(t *testing.T, e *env) {
				hook := filepath.Join(e.dir, ".git", "hooks", "pre-commit")
				if err := os.WriteFile(hook, []byte("#!/bin/sh\necho 'lint: a.txt is not formatted' >&2\nexit 1\n"), 0o755); err != nil {
					t.Fatal(err)
				}
				e.write(t, map[string]string{"a.txt": "changed\n"})
				gitT(t, e.dir, "add", "a.txt")
			},
			args: map[string]any{"message": "x"},
			want: []string{"nothing was committed", "lint: a.txt is not formatted"},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			opts := tc.opts
			if name != "nothing at all on a new repository" {
				// Two commits, by x: an empty one, then a.txt.
				opts.repo = refusalsRepo
				if opts.noIdentity {
					opts.repo = refusalsRepoNoIdentity
				}
			}
			e := newEnv(t, opts)
			if tc.setup != nil {
				tc.setup(t, e)
			}
			before := gitT(t, e.dir, "rev-list", "--all", "--count")
			e.mustFail(t, "git_commit", tc.args, tc.want...)
			if after := gitT(t, e.dir, "rev-list", "--all", "--count"); after != before {
				t.Errorf("commits: %s before, %s after; want no new commit", before, after)
			}
		})
	}
}

// refusalsRepo is TestCommitRefusals' repository: an empty commit "base"
// and a commit "a" adding a.txt, both by x, with the repository's identity
// set (refusalsRepo) or not (refusalsRepoNoIdentity).
var refusalsRepo, refusalsRepoNoIdentity = refusalsTemplate("refusals", true), refusalsTemplate("refusals-no-identity", false)

func refusalsTemplate(name string, identity bool) *repoTemplate {
	return &repoTemplate{name: name, build: func(b *builder) {
		b.git("init", "-q", "-b", "main")
		if identity {
			b.git("config", "user.name", "Ada Lovelace")
			b.git("config", "user.email", "ada@example.com")
		}
		x := []string{"GIT_AUTHOR_NAME=x", "GIT_AUTHOR_EMAIL=x@x", "GIT_COMMITTER_NAME=x", "GIT_COMMITTER_EMAIL=x@x"}
		b.gitEnvIn(x, "", "commit", "-q", "--allow-empty", "-m", "base")
		b.write(map[string]string{"a.txt": "a\n"})
		b.git("add", "a.txt")
		b.gitEnvIn(x, "", "commit", "-q", "-m", "a")
	}}
}

func TestAddRefusals(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOpts{})
	e.commit(t, "", "one", map[string]string{".gitignore": "*.log\n"})
	e.write(t, map[string]string{"debug.log": "x\n", "ok.txt": "ok\n"})
	e.mustFail(t, "git_add", map[string]any{"paths": []string{"debug.log", "ok.txt"}}, "refused ignored paths (nothing was staged):\n  debug.log\n", "git_add does not add files matched by .gitignore")
	e.mustFail(t, "git_add", map[string]any{"paths": []string{}}, "invalid arguments for git_add: \"paths\" must not be empty")
	e.mustFail(t, "git_add", map[string]any{"paths": []string{"missing.txt"}}, "did not match any files")
	if got := gitT(t, e.dir, "diff", "--cached", "--name-only"); got != "" {
		t.Errorf("staged after refusals: %q", got)
	}
}

func TestBranch(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOpts{})
	if got := e.mustCall(t, "git_branch", map[string]any{}); got != "no branches yet in .: the first commit creates the current branch" {
		t.Errorf("list on a new repository: %q", got)
	}
	h1 := e.commit(t, "", "one", nil)
	h2 := e.commit(t, "", "two", nil)

	got := e.mustCall(t, "git_branch", map[string]any{"name": "feature"})
	if want := `created branch feature at ` + h2 + ` two; it is not checked out (switch with git_checkout ref: "feature")`; got != want {
		t.Errorf("create: %q, want %q", got, want)
	}
	e.mustCall(t, "git_branch", map[string]any{"name": "old/fix", "start_point": "HEAD~1"})
	got = e.mustCall(t, "git_branch", map[string]any{})
	want := "  feature " + h2 + " two\n* main " + h2 + " two\n  old/fix " + h1 + " one"
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("list (-want +got):\n%s", diff)
	}

	// The refusals run in parallel; the group returns when all are done.
	t.Run("refusals", func(t *testing.T) {
		for name, tc := range map[string]struct {
			args map[string]any
			want string
		}{
			"exists":                {map[string]any{"name": "feature"}, "already exists"},
			"space":                 {map[string]any{"name": "bad name"}, "is not a valid branch name"},
			"dot dot":               {map[string]any{"name": "a..b"}, "is not a valid branch name"},
			"option":                {map[string]any{"name": "-D"}, "begins with '-'"},
			"option start":          {map[string]any{"name": "x", "start_point": "--orphan"}, "begins with '-'"},
			"unknown start":         {map[string]any{"name": "x", "start_point": "nope"}, `start_point "nope" does not name a commit`},
			"start_point, no name":  {map[string]any{"start_point": "HEAD"}, "start_point needs name"},
			"at sign":               {map[string]any{"name": "@"}, "is not a valid branch name"},
			"previous branch magic": {map[string]any{"name": "@{-1}"}, "is not a valid branch name"},
		} {
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				e.mustFail(t, "git_branch", tc.args, tc.want)
			})
		}
	})
	if got := gitT(t, e.dir, "branch", "--format=%(refname:short)"); got != "feature\nmain\nold/fix" {
		t.Errorf("branches after refusals: %q", got)
	}
}

func TestBranchRemotes(t *testing.T) {
	t.Parallel()
	up := newEnv(t, envOpts{sub: "up"})
	h := up.commit(t, "", "one", nil)
	gitT(t, up.dir, "branch", "feature")
	clone := filepath.Join(up.root, "clone")
	gitT(t, up.root, "clone", "-q", up.dir, clone)
	gitEnvT(t, clone, []string{"GIT_AUTHOR_NAME=B", "GIT_AUTHOR_EMAIL=b@x", "GIT_COMMITTER_NAME=B", "GIT_COMMITTER_EMAIL=b@x"},
		"commit", "-q", "--allow-empty", "-m", "local")
	got := up.mustCall(t, "git_branch", map[string]any{"repo": "clone", "all": true})
	local := headShort(t, clone)
	want := "* main " + local + " [origin/main: ahead 1] local\n  origin/feature " + h + " one\n  origin/main " + h + " one"
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("list all (-want +got):\n%s", diff)
	}

	// A name that exists only on the remote makes a tracking branch.
	res := sdktest.Call(t, up.g, "git_checkout", map[string]any{"repo": "clone", "ref": "feature"})
	if res.IsError || !strings.Contains(res.Text(), "Switched to a new branch 'feature'") {
		t.Errorf("checkout of a remote branch: %s", res.Text())
	}
	if got := gitT(t, clone, "rev-parse", "--abbrev-ref", "feature@{upstream}"); got != "origin/feature" {
		t.Errorf("upstream of feature: %q", got)
	}
}

func sha(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// checkoutRepo is TestCheckout's repository: on main, a.txt and same.txt
// committed and tagged v1; branch feature changes a.txt and adds f.txt.
var checkoutRepo = &repoTemplate{name: "checkout", build: func(b *builder) {
	b.git("init", "-q", "-b", "main")
	b.git("config", "user.name", "Ada Lovelace")
	b.git("config", "user.email", "ada@example.com")
	b.commit("one", map[string]string{"a.txt": "a\n", "same.txt": "s\n"})
	b.git("tag", "v1")
	b.git("checkout", "-q", "-b", "feature")
	b.vals["feature"] = b.commit("feature", map[string]string{"a.txt": "feature a\n", "f.txt": "f\n"})
	b.git("checkout", "-q", "main")
}}

func TestCheckout(t *testing.T) {
	t.Parallel()
	// setup makes a copy of checkoutRepo, and returns the short hash of
	// its branch feature.
	setup := func(t *testing.T) (*env, string) {
		e := newEnv(t, envOpts{repo: checkoutRepo})
		_, vals := checkoutRepo.get(t)
		return e, vals["feature"]
	}

	t.Run("switch", func(t *testing.T) {
		t.Parallel()
		e, h := setup(t)
		e.write(t, map[string]string{"same.txt": "local edit\n"})
		res := sdktest.Call(t, e.g, "git_checkout", map[string]any{"ref": "feature"})
		want := "Switched to branch 'feature'\nuncommitted changes kept:\nM\tsame.txt\nHEAD: " + h + " feature\n2 files changed in the work tree"
		if diff := cmp.Diff(want, res.Text()); diff != "" || res.IsError {
			t.Errorf("checkout (-want +got):\n%s", diff)
		}
		wantChanges := []sdk.FileChange{
			{Path: e.path("a.txt"), BeforeSHA256: sha("a\n"), AfterSHA256: sha("feature a\n")},
			{Path: e.path("f.txt"), AfterSHA256: sha("f\n")},
		}
		if diff := cmp.Diff(wantChanges, res.Changes); diff != "" {
			t.Errorf("changes (-want +got):\n%s", diff)
		}
		if got := e.read(t, "same.txt"); got != "local edit\n" {
			t.Errorf("local edit lost: %q", got)
		}
	})
	t.Run("create", func(t *testing.T) {
		t.Parallel()
		e, h := setup(t)
		got := e.mustCall(t, "git_checkout", map[string]any{"ref": "topic", "create": true, "start_point": "feature"})
		if want := "Switched to a new branch 'topic'\nHEAD: " + h + " feature\n2 files changed in the work tree"; got != want {
			t.Errorf("create: %q, want %q", got, want)
		}
		if got := gitT(t, e.dir, "rev-parse", "--abbrev-ref", "HEAD"); got != "topic" {
			t.Errorf("on %q", got)
		}
	})
	t.Run("detach at a tag", func(t *testing.T) {
		t.Parallel()
		e, _ := setup(t)
		gitT(t, e.dir, "checkout", "-q", "feature")
		got := e.mustCall(t, "git_checkout", map[string]any{"ref": "v1"})
		if !strings.HasPrefix(got, "HEAD is now at") || !strings.Contains(got, "\nHEAD: detached at ") || !strings.Contains(got, "create: true") || !strings.HasSuffix(got, "2 files changed in the work tree") {
			t.Errorf("detach: %q", got)
		}
	})
	t.Run("local changes in the way", func(t *testing.T) {
		t.Parallel()
		e, _ := setup(t)
		e.write(t, map[string]string{"a.txt": "precious\n"})
		e.mustFail(t, "git_checkout", map[string]any{"ref": "feature"},
			"git checkout refused, nothing changed", "Your local changes to the following files would be overwritten", "a.txt", "git_commit")
		if got := e.read(t, "a.txt"); got != "precious\n" {
			t.Errorf("a.txt: %q", got)
		}
		if got := gitT(t, e.dir, "rev-parse", "--abbrev-ref", "HEAD"); got != "main" {
			t.Errorf("on %q", got)
		}
	})
	t.Run("a file name is never checked out over local changes", func(t *testing.T) {
		t.Parallel()
		e, _ := setup(t)
		e.write(t, map[string]string{"a.txt": "precious\n"})
		e.mustFail(t, "git_checkout", map[string]any{"ref": "a.txt"}, "invalid reference", "git_branch")
		if got := e.read(t, "a.txt"); got != "precious\n" {
			t.Errorf("a.txt: %q", got)
		}
	})
	t.Run("refusals", func(t *testing.T) {
		t.Parallel()
		e, _ := setup(t)
		for _, tc := range []struct {
			args map[string]any
			want string
		}{
			{map[string]any{"ref": "-f"}, "begins with '-'"},
			{map[string]any{"ref": "--orphan=x"}, "begins with '-'"},
			{map[string]any{"ref": "x", "create": true, "start_point": "-f"}, "begins with '-'"},
			{map[string]any{"ref": "-b", "create": true}, "begins with '-'"},
			{map[string]any{"ref": "bad name", "create": true}, "not a valid branch name"},
			{map[string]any{"ref": "feature", "create": true}, "already exists"},
			{map[string]any{"ref": "x", "start_point": "HEAD"}, "start_point goes with create: true"},
			{map[string]any{"ref": "nope"}, "invalid reference"},
		} {
			e.mustFail(t, "git_checkout", tc.args, tc.want)
		}
		if got := gitT(t, e.dir, "branch", "--show-current"); got != "main" {
			t.Errorf("on %q", got)
		}
	})
	t.Run("new branch before the first commit", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t, envOpts{})
		got := e.mustCall(t, "git_checkout", map[string]any{"ref": "trunk", "create": true})
		if want := "Switched to a new branch 'trunk'\nHEAD: (no commits yet)"; got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	})
}

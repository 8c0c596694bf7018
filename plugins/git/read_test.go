package git_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestStatus(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		setup func(t *testing.T, e *env)
		want  string
	}{
		"no commits yet": {
			setup: func(t *testing.T, e *env) { e.write(t, map[string]string{"a.txt": "a\n"}) },
			want:  "repository: .\nbranch: main (no commits yet)\nuntracked (1):\n  a.txt",
		},
		"clean": {
			setup: func(t *testing.T, e *env) { e.commit(t, "", "one", map[string]string{"a.txt": "a\n"}) },
			want:  "repository: .\nbranch: main\nnothing to commit, working tree clean",
		},
		"edits": {
			setup: func(t *testing.T, e *env) {
				e.commit(t, "", "one", map[string]string{"a.txt": "a\n", "b.txt": "b\n", "old.txt": "old\n", "gone.txt": "g\n", "both.txt": "1\n"})
				e.write(t, map[string]string{"a.txt": "a2\n", "both.txt": "2\n", "new/deep/x.txt": "x\n", "top.txt": "t\n", "staged-new.txt": "s\n"})
				gitT(t, e.dir, "add", "both.txt", "staged-new.txt")
				e.write(t, map[string]string{"both.txt": "3\n"})
				gitT(t, e.dir, "mv", "old.txt", "renamed.txt")
				if err := os.Remove(e.path("gone.txt")); err != nil {
					t.Fatal(err)
				}
			},
			want: `repository: .
branch: main
staged (3):
  modified: both.txt
  renamed: old.txt -> renamed.txt
  added: staged-new.txt
unstaged (3):
  modified: a.txt
  modified: both.txt
  deleted: gone.txt
untracked (2):
  new/
  top.txt`,
		},
		"detached": {
			setup: func(t *testing.T, e *env) {
				e.commit(t, "", "one", nil)
				e.commit(t, "", "two", nil)
				gitT(t, e.dir, "checkout", "-q", "--detach", "HEAD~1")
			},
			want: "repository: .\nHEAD detached at {{HEAD}}\nnothing to commit, working tree clean",
		},
		"conflict": {
			setup: func(t *testing.T, e *env) {
				e.commit(t, "", "base", map[string]string{"c.txt": "base\n"})
				gitT(t, e.dir, "checkout", "-q", "-b", "other")
				e.commit(t, "", "theirs", map[string]string{"c.txt": "theirs\n"})
				gitT(t, e.dir, "checkout", "-q", "main")
				e.commit(t, "", "ours", map[string]string{"c.txt": "ours\n"})
				cmdFails(t, e.dir, "merge", "-q", "other")
			},
			want: "repository: .\nbranch: main\nin progress: merge (resolve the conflicts, git_add the files, then git_commit)\nconflicts (1):\n  both modified: c.txt",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, envOpts{})
			tc.setup(t, e)
			want := tc.want
			if strings.Contains(want, "{{HEAD}}") {
				want = strings.ReplaceAll(want, "{{HEAD}}", headShort(t, e.dir))
			}
			if diff := cmp.Diff(want, e.mustCall(t, "git_status", map[string]any{})); diff != "" {
				t.Errorf("status (-want +got):\n%s", diff)
			}
		})
	}
}

func TestStatusUpstream(t *testing.T) {
	t.Parallel()
	up := newEnv(t, envOpts{sub: "up"})
	up.commit(t, "", "one", map[string]string{"a.txt": "a\n"})
	clone := filepath.Join(up.root, "clone")
	gitT(t, up.root, "clone", "-q", up.dir, clone)
	up.commit(t, "", "two upstream", nil)
	gitT(t, clone, "config", "user.name", "B")
	gitT(t, clone, "config", "user.email", "b@example.com")
	gitT(t, clone, "commit", "-q", "--allow-empty", "-m", "local 1")
	gitT(t, clone, "commit", "-q", "--allow-empty", "-m", "local 2")
	gitT(t, clone, "fetch", "-q")
	if err := os.WriteFile(filepath.Join(clone, "a.txt"), []byte("wip\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitT(t, clone, "stash", "push", "-q", "-m", "wip")
	got := up.mustCall(t, "git_status", map[string]any{"repo": "clone"})
	want := "repository: clone\nbranch: main\nupstream: origin/main (ahead 2, behind 1)\nstash: 1 entry\nnothing to commit, working tree clean"
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("status (-want +got):\n%s", diff)
	}
}

// cmdFails runs git and expects it to fail (a merge with conflicts).
func cmdFails(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err == nil {
		t.Fatalf("git %v succeeded; want a failure:\n%s", args, out)
	}
}

func headShort(t *testing.T, dir string) string {
	t.Helper()
	return gitT(t, dir, "rev-parse", "--short=7", "HEAD")
}

func TestDiff(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOpts{})
	e.commit(t, "", "one", map[string]string{"a.txt": "1\n2\n3\n4\n5\n6\n7\n8\n9\n", "b.txt": "b\n"})
	e.commit(t, "", "two", map[string]string{"b.txt": "b2\n"})
	e.write(t, map[string]string{"a.txt": "1\n2\n3\n4\nfive\n6\n7\n8\n9\n", "c.txt": "c\n"})
	gitT(t, e.dir, "add", "c.txt")

	aHunk := "diff --git a/a.txt b/a.txt\nindex %s..%s 100644\n--- a/a.txt\n+++ b/a.txt\n"
	blob := func(rev string) string { return gitT(t, e.dir, "rev-parse", "--short=7", rev) }
	aOld, aNew := blob("HEAD:a.txt"), gitT(t, e.dir, "hash-object", "a.txt")[:7]
	bOld, bNew := blob("HEAD~1:b.txt"), blob("HEAD:b.txt")
	cBlob := blob(":c.txt")
	unstagedA := fmt.Sprintf(aHunk, aOld, aNew) + "@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8"
	stagedC := fmt.Sprintf("diff --git a/c.txt b/c.txt\nnew file mode 100644\nindex 0000000..%s\n--- /dev/null\n+++ b/c.txt\n@@ -0,0 +1 @@\n+c", cBlob)
	bDiff := fmt.Sprintf("diff --git a/b.txt b/b.txt\nindex %s..%s 100644\n--- a/b.txt\n+++ b/b.txt\n@@ -1 +1 @@\n-b\n+b2", bOld, bNew)

	tests := map[string]struct {
		args    map[string]any
		want    string
		wantErr string
	}{
		"unstaged": {args: map[string]any{}, want: unstagedA},
		"context_lines 0": {args: map[string]any{"context_lines": 0},
			want: fmt.Sprintf(aHunk, aOld, aNew) + "@@ -5 +5 @@\n-5\n+five"},
		"staged":          {args: map[string]any{"staged": true}, want: stagedC},
		"against ref":     {args: map[string]any{"ref": "HEAD~1", "paths": []string{"b.txt"}}, want: bDiff},
		"ref to ref2":     {args: map[string]any{"ref": "HEAD~1", "ref2": "HEAD"}, want: bDiff},
		"two-dot range":   {args: map[string]any{"ref": "HEAD~1..HEAD"}, want: bDiff},
		"three-dot range": {args: map[string]any{"ref": "HEAD~1...main"}, want: bDiff},
		"paths narrow":    {args: map[string]any{"paths": []string{"b.txt"}}, want: "no differences between the work tree and the index (unstaged changes; use staged: true for staged ones)"},
		"stat":            {args: map[string]any{"ref": "HEAD~1", "ref2": "HEAD", "stat": true}, want: " b.txt | 2 +-\n 1 file changed, 1 insertion(+), 1 deletion(-)"},
		"same ref": {args: map[string]any{"ref": "HEAD", "ref2": "HEAD"},
			want: "no differences between HEAD and HEAD"},
		"ref2 without ref":     {args: map[string]any{"ref2": "HEAD"}, wantErr: "ref2 needs ref"},
		"staged with ref2":     {args: map[string]any{"ref": "HEAD~1", "ref2": "HEAD", "staged": true}, wantErr: "cannot be combined"},
		"unknown ref":          {args: map[string]any{"ref": "nope"}, wantErr: `ref "nope" does not name a commit or tree`},
		"negative context":     {args: map[string]any{"context_lines": -1}, wantErr: "invalid arguments for git_diff: \"context_lines\" must be at least 0 (got -1)"},
		"range and ref2":       {args: map[string]any{"ref": "HEAD~1..HEAD", "ref2": "HEAD"}, wantErr: "already a range"},
		"bad side of a range":  {args: map[string]any{"ref": "HEAD..nope"}, wantErr: `"nope" does not name a commit`},
		"flag in a range side": {args: map[string]any{"ref": "HEAD..-p"}, wantErr: "begins with '-'"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if tc.wantErr != "" {
				e.mustFail(t, "git_diff", tc.args, tc.wantErr)
				return
			}
			if diff := cmp.Diff(tc.want, e.mustCall(t, "git_diff", tc.args)); diff != "" {
				t.Errorf("diff (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDiffCut(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOpts{})
	// Ten files of about 20 KiB of diff each, so that some fit in 100 KiB,
	// and one last file whose diff alone is larger.
	files := map[string]string{}
	for i := range 10 {
		files[fmt.Sprintf("f%02d.txt", i)] = strings.Repeat(fmt.Sprintf("line of file %d\n", i), 600)
	}
	var big strings.Builder
	for i := range 8000 {
		fmt.Fprintf(&big, "line %d\n", i)
	}
	files["zz-big.txt"] = big.String()
	e.commit(t, "", "one", files)
	for name, content := range files {
		files[name] = strings.ReplaceAll(content, "line", "LINE")
	}
	e.write(t, files)
	got := e.mustCall(t, "git_diff", map[string]any{})
	body, note, ok := strings.Cut(got, "(diff cut at 100 KiB: ")
	if !ok {
		t.Fatalf("no cut note in %d bytes: ...%s", len(got), got[max(0, len(got)-300):])
	}
	if len(body) > 100<<10 {
		t.Errorf("body is %d bytes; want at most 100 KiB", len(body))
	}
	shown := strings.Count(body, "diff --git ")
	if shown == 0 || shown >= 10 || !strings.HasSuffix(body, "+LINE of file "+fmt.Sprint(shown-1)+"\n") {
		t.Errorf("body does not end at a file boundary after %d files: ...%q", shown, body[max(0, len(body)-80):])
	}
	want := fmt.Sprintf("%d of 11 files are not shown. Narrow it with paths, context_lines: 0, or stat: true. Not shown:", 11-shown)
	for i := shown; i < 10; i++ {
		want += fmt.Sprintf("\n  f%02d.txt (+600 -600)", i)
	}
	want += "\n  zz-big.txt (+8000 -8000))"
	if diff := cmp.Diff(want, note); diff != "" {
		t.Errorf("note (-want +got):\n%s", diff)
	}

	// A single file larger than the cap is shown in part.
	one := e.mustCall(t, "git_diff", map[string]any{"paths": []string{"zz-big.txt"}})
	body, note, ok = strings.Cut(one, "(diff cut at 100 KiB: ")
	if !ok || len(body) > 100<<10 || !strings.HasSuffix(body, "\n") || !strings.HasPrefix(note, "the first file's diff alone is larger and is shown only in part; 0 of 1 files are not shown") {
		t.Errorf("single big file: %d bytes, ends %q", len(one), one[max(0, len(one)-300):])
	}
}

func TestLog(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOpts{})
	h1 := e.commit(t, "2020-01-01T10:00:00Z", "first", map[string]string{"a.txt": "a\n"})
	h2 := e.commit(t, "2021-06-01T10:00:00Z", "second: touches b", map[string]string{"b.txt": "b\n"})
	gitT(t, e.dir, "tag", "v1")
	h3 := e.commit(t, "2022-03-04T10:00:00Z", "third", map[string]string{"a.txt": "a2\n"})
	gitT(t, e.dir, "checkout", "-q", "-b", "feature")
	h4 := e.commit(t, "2023-01-01T10:00:00Z", "feature work", map[string]string{"f.txt": "f\n"})
	gitT(t, e.dir, "checkout", "-q", "main")
	gitT(t, e.dir, "mv", "a.txt", "moved.txt")
	gitEnvT(t, e.dir, []string{"GIT_AUTHOR_DATE=2024-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2024-01-01T00:00:00Z"}, "commit", "-q", "-m", "rename a")
	h5 := headShort(t, e.dir)

	line := func(h, date, subject, refs string) string {
		s := fmt.Sprintf("%s %s Ada Lovelace: %s", h, date, subject)
		if refs != "" {
			s += " [" + refs + "]"
		}
		return s
	}
	l1 := line(h1, "2020-01-01", "first", "")
	l2 := line(h2, "2021-06-01", "second: touches b", "tag: v1")
	l3 := line(h3, "2022-03-04", "third", "")
	l4 := line(h4, "2023-01-01", "feature work", "feature")
	l5 := line(h5, "2024-01-01", "rename a", "HEAD -> main")
	tests := map[string]struct {
		args    map[string]any
		want    []string
		wantErr string
	}{
		"default":          {args: map[string]any{}, want: []string{l5, l3, l2, l1}},
		"limit":            {args: map[string]any{"limit": 2}, want: []string{l5, l3, "(more commits; continue with start=2)"}},
		"limit and start":  {args: map[string]any{"limit": 2, "start": 2}, want: []string{l2, l1}},
		"path":             {args: map[string]any{"path": "b.txt"}, want: []string{l2}},
		"path follows":     {args: map[string]any{"path": "moved.txt"}, want: []string{l5, l3, l1}},
		"folder path":      {args: map[string]any{"path": "."}, want: []string{l5, l3, l2, l1}},
		"since date":       {args: map[string]any{"since": "2021-01-01"}, want: []string{l5, l3, l2}},
		"since words":      {args: map[string]any{"since": "2 weeks ago"}, want: []string{"no commits in HEAD match since 2 weeks ago"}},
		"ref":              {args: map[string]any{"ref": "feature", "limit": 2}, want: []string{l4, l3, "(more commits; continue with start=2)"}},
		"range":            {args: map[string]any{"ref": "main..feature"}, want: []string{l4}},
		"tag":              {args: map[string]any{"ref": "v1"}, want: []string{l2, l1}},
		"path no match":    {args: map[string]any{"path": "nope.txt"}, want: []string{"no commits in HEAD match path nope.txt"}},
		"since garbage":    {args: map[string]any{"since": "banana"}, wantErr: `since "banana" is not a date git understands`},
		"limit too big":    {args: map[string]any{"limit": 501}, wantErr: "invalid arguments for git_log: \"limit\" must be at most 500 (got 501)"},
		"unknown ref":      {args: map[string]any{"ref": "nope"}, wantErr: `ref "nope" does not name a commit`},
		"negative start":   {args: map[string]any{"start": -1}, wantErr: "invalid arguments for git_log: \"start\" must be at least 0 (got -1)"},
		"since is flag":    {args: map[string]any{"since": "-x"}, wantErr: "begins with '-'"},
		"ref is an option": {args: map[string]any{"ref": "--output=x"}, wantErr: "begins with '-'"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if tc.wantErr != "" {
				e.mustFail(t, "git_log", tc.args, tc.wantErr)
				return
			}
			got := strings.Split(e.mustCall(t, "git_log", tc.args), "\n")
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("log (-want +got):\n%s", diff)
			}
		})
	}

	t.Run("today", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t, envOpts{})
		e.commit(t, "2020-01-01T10:00:00Z", "old", nil)
		h := e.commit(t, "", "now", nil)
		want := []string{fmt.Sprintf("%s %s Ada Lovelace: now [HEAD -> main]", h, gitT(t, e.dir, "log", "-1", "--format=%ad", "--date=short"))}
		got := strings.Split(e.mustCall(t, "git_log", map[string]any{"since": "today"}), "\n")
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("log since today (-want +got):\n%s", diff)
		}
	})
	t.Run("no commits", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t, envOpts{})
		e.mustFail(t, "git_log", map[string]any{}, "has no commits yet")
	})
}

func TestShow(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOpts{})
	e.commit(t, "2020-01-01T10:00:00Z", "first", map[string]string{"src/a.go": "package a\n", "bin.dat": "x\x00y", "empty.txt": ""})
	e.commit(t, "2021-01-01T10:00:00Z", "second\n\nWith a body.", map[string]string{"src/a.go": "package a\n\nvar X = 1\n"})
	e.write(t, map[string]string{"src/a.go": "changed in the work tree\n"})
	head := gitT(t, e.dir, "rev-parse", "HEAD")

	t.Run("commit", func(t *testing.T) {
		t.Parallel()
		got := e.mustCall(t, "git_show", map[string]any{})
		for _, want := range []string{
			"commit " + head,
			"Author: Ada Lovelace <ada@example.com>",
			"Date:   2021-01-01 10:00:00 +0000",
			"\n    second\n",
			"\n    With a body.\n",
			" src/a.go | 2 ++\n 1 file changed, 2 insertions(+)",
			"+var X = 1",
		} {
			if !strings.Contains(got, want) {
				t.Errorf("git_show does not contain %q:\n%s", want, got)
			}
		}
	})
	tests := map[string]struct {
		args    map[string]any
		want    string
		wantErr string
	}{
		"file at HEAD":    {args: map[string]any{"path": "src/a.go"}, want: "package a\n\nvar X = 1\n"},
		"file at HEAD~1":  {args: map[string]any{"path": "src/a.go", "ref": "HEAD~1"}, want: "package a\n"},
		"absolute path":   {args: map[string]any{"path": e.path("src/a.go"), "ref": "HEAD~1"}, want: "package a\n"},
		"folder":          {args: map[string]any{"path": "."}, want: ". at HEAD (3 entries):\nbin.dat\nempty.txt\nsrc/"},
		"binary":          {args: map[string]any{"path": "bin.dat"}, want: "bin.dat at HEAD is a binary file of 3 bytes; not shown"},
		"empty":           {args: map[string]any{"path": "empty.txt"}, want: "(empty.txt at HEAD is empty)"},
		"missing path":    {args: map[string]any{"path": "src/nope.go"}, wantErr: `src/nope.go does not exist at HEAD; list its folder with git_show path: "src"`},
		"unknown ref":     {args: map[string]any{"ref": "nope"}, wantErr: `ref "nope" does not name an object`},
		"ref is a flag":   {args: map[string]any{"ref": "--output=/tmp/x"}, wantErr: "begins with '-'"},
		"path is a flag":  {args: map[string]any{"path": "-p"}, wantErr: "begins with '-'"},
		"path outside":    {args: map[string]any{"path": "../x"}, wantErr: "outside"},
		"inside .git dir": {args: map[string]any{"path": ".git/config"}, wantErr: "inside the .git directory"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if tc.wantErr != "" {
				e.mustFail(t, "git_show", tc.args, tc.wantErr)
				return
			}
			if diff := cmp.Diff(tc.want, e.mustCall(t, "git_show", tc.args)); diff != "" {
				t.Errorf("show (-want +got):\n%s", diff)
			}
		})
	}
}

func TestShowBigFile(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOpts{})
	var b strings.Builder
	for i := 1; i <= 20000; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	e.commit(t, "", "big", map[string]string{"big.txt": b.String()})
	got := e.mustCall(t, "git_show", map[string]any{"path": "big.txt"})
	body, note, ok := strings.Cut(got, "(cut at 100 KiB after ")
	if !ok || len(body) > 100<<10 || !strings.HasPrefix(b.String(), body) {
		t.Fatalf("show of a big file: %d bytes, ends %q", len(got), got[max(0, len(got)-200):])
	}
	lines := strings.Count(body, "\n")
	want := fmt.Sprintf("%d lines of a %d KiB file; see later lines with git_blame path: \"big.txt\" ref: \"HEAD\" start: %d)", lines, b.Len()>>10, lines+1)
	if note != want {
		t.Errorf("note %q, want %q", note, want)
	}
}

func TestBlame(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOpts{})
	h1 := e.commit(t, "2020-01-01T10:00:00+02:00", "first", map[string]string{"a.txt": "one\ntwo\nthree\n"})
	gitT(t, e.dir, "config", "user.name", "Grace Brewster Murray Hopper")
	h2 := e.commit(t, "2021-02-03T23:30:00-05:00", "second", map[string]string{"a.txt": "one\nTWO\nthree\nfour\n"})
	e.write(t, map[string]string{"a.txt": "one\nTWO\nthree\nfour\nfive\n"})
	ada, grace := "Ada Lovelace        ", "Grace Brewster Murr…"
	tests := map[string]struct {
		args    map[string]any
		want    []string
		wantErr string
	}{
		"whole file": {args: map[string]any{"path": "a.txt"}, want: []string{
			h1 + " 2020-01-01 " + ada + " 1| one",
			h2 + " 2021-02-03 " + grace + " 2| TWO",
			h1 + " 2020-01-01 " + ada + " 3| three",
			h2 + " 2021-02-03 " + grace + " 4| four",
			"0000000 YYYY-MM-DD (uncommitted)        5| five",
		}},
		"start and end": {args: map[string]any{"path": "a.txt", "start": 2, "end": 3}, want: []string{
			h2 + " 2021-02-03 Grace Brewster Murr… 2| TWO",
			h1 + " 2020-01-01 Ada Lovelace         3| three",
		}},
		"start only": {args: map[string]any{"path": "a.txt", "start": 4, "ref": "HEAD"}, want: []string{
			h2 + " 2021-02-03 Grace Brewster Murr… 4| four",
		}},
		"at a ref": {args: map[string]any{"path": "a.txt", "ref": "HEAD~1"}, want: []string{
			h1 + " 2020-01-01 Ada Lovelace 1| one",
			h1 + " 2020-01-01 Ada Lovelace 2| two",
			h1 + " 2020-01-01 Ada Lovelace 3| three",
		}},
		"past the end":  {args: map[string]any{"path": "a.txt", "start": 9, "ref": "HEAD"}, wantErr: "has only 4 lines"},
		"start > end":   {args: map[string]any{"path": "a.txt", "start": 3, "end": 2}, wantErr: "start=3 is after end=2"},
		"missing file":  {args: map[string]any{"path": "nope.txt"}, wantErr: "nope.txt does not exist in the work tree"},
		"unknown ref":   {args: map[string]any{"path": "a.txt", "ref": "nope"}, wantErr: `ref "nope" does not name a commit`},
		"ref is a flag": {args: map[string]any{"path": "a.txt", "ref": "--contents=/etc/passwd"}, wantErr: "begins with '-'"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if tc.wantErr != "" {
				e.mustFail(t, "git_blame", tc.args, tc.wantErr)
				return
			}
			got := strings.Split(e.mustCall(t, "git_blame", tc.args), "\n")
			if name == "whole file" {
				// The uncommitted line is dated now; compare its shape.
				got[4] = got[4][:8] + tc.want[4][8:18] + got[4][18:]
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("blame (-want +got):\n%s", diff)
			}
		})
	}
}

func TestBlameCut(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOpts{})
	var b strings.Builder
	for i := 1; i <= 5000; i++ {
		fmt.Fprintf(&b, "this is line number %d of a long file\n", i)
	}
	e.commit(t, "", "big", map[string]string{"big.txt": b.String()})
	got := e.mustCall(t, "git_blame", map[string]any{"path": "big.txt"})
	lines := strings.Split(got, "\n")
	last := lines[len(lines)-1]
	var next int
	if _, err := fmt.Sscanf(last, "(cut at 100 KiB; continue with start=%d)", &next); err != nil {
		t.Fatalf("last line %q: %v", last, err)
	}
	if len(got)-len(last) > 100<<10 || next != len(lines) {
		t.Errorf("%d bytes, %d lines, continue at %d", len(got), len(lines)-1, next)
	}
	again := e.mustCall(t, "git_blame", map[string]any{"path": "big.txt", "start": next, "end": next})
	if want := fmt.Sprintf("| this is line number %d of a long file", next); !strings.HasSuffix(again, want) {
		t.Errorf("continuing: %q, want suffix %q", again, want)
	}
}

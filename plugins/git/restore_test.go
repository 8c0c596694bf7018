package git_test

import (
	"os"
	"strings"
	"testing"
)

// TestRestore: git_restore discards the work tree's changes to the paths
// named (back to the staged content, or to source), leaves the others,
// unstages with staged, and refuses a path git does not know.
func TestRestore(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOpts{})
	e.write(t, map[string]string{"a.txt": "a1\n", "b.txt": "b1\n"})
	e.mustCall(t, "git_add", map[string]any{"paths": []string{"."}})
	e.mustCall(t, "git_commit", map[string]any{"message": "one"})
	e.write(t, map[string]string{"a.txt": "a2\n", "b.txt": "b2\n"})

	got := e.mustCall(t, "git_restore", map[string]any{"paths": []string{"a.txt"}})
	if got != "restored 1 file\n  a.txt" {
		t.Errorf("restore a.txt: %q", got)
	}
	if b, _ := os.ReadFile(e.path("a.txt")); string(b) != "a1\n" {
		t.Errorf("a.txt = %q after restore, want the committed a1", b)
	}
	if b, _ := os.ReadFile(e.path("b.txt")); string(b) != "b2\n" {
		t.Errorf("b.txt = %q, want its change kept", b)
	}
	if got := e.mustCall(t, "git_restore", map[string]any{"paths": []string{"a.txt"}}); !strings.HasPrefix(got, "nothing to restore") {
		t.Errorf("restore again: %q", got)
	}

	// Staged, then unstaged: the work tree keeps the change.
	e.mustCall(t, "git_add", map[string]any{"paths": []string{"b.txt"}})
	if got := e.mustCall(t, "git_restore", map[string]any{"paths": []string{"b.txt"}, "staged": true}); !strings.HasPrefix(got, "unstaged") {
		t.Errorf("restore staged: %q", got)
	}
	if staged := gitT(t, e.dir, "diff", "--cached", "--name-only"); staged != "" {
		t.Errorf("still staged: %q", staged)
	}
	if b, _ := os.ReadFile(e.path("b.txt")); string(b) != "b2\n" {
		t.Errorf("b.txt = %q after unstaging, want the work tree kept", b)
	}

	// From a source commit.
	e.write(t, map[string]string{"a.txt": "a3\n"})
	e.mustCall(t, "git_add", map[string]any{"paths": []string{"a.txt"}})
	e.mustCall(t, "git_commit", map[string]any{"message": "two"})
	e.mustCall(t, "git_restore", map[string]any{"paths": []string{"a.txt"}, "source": "HEAD~1"})
	if b, _ := os.ReadFile(e.path("a.txt")); string(b) != "a1\n" {
		t.Errorf("a.txt = %q after restore from HEAD~1, want a1", b)
	}

	e.mustFail(t, "git_restore", map[string]any{"paths": []string{"nope.txt"}}, "nothing changed")
	e.mustFail(t, "git_restore", map[string]any{"paths": []string{"a.txt"}, "source": "--orphan"}, "source")
}

// TestStash: push sets the changes aside (the work tree is HEAD's), list
// shows the stash with its message, pop brings the changes back; pop with
// nothing stashed is refused.
func TestStash(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOpts{})
	e.write(t, map[string]string{"a.txt": "a1\n"})
	e.mustCall(t, "git_add", map[string]any{"paths": []string{"."}})
	e.mustCall(t, "git_commit", map[string]any{"message": "one"})
	e.mustFail(t, "git_stash", map[string]any{"action": "pop"}, "no stashes")
	if got := e.mustCall(t, "git_stash", map[string]any{"action": "push"}); !strings.HasPrefix(got, "nothing to stash") {
		t.Errorf("push on a clean tree: %q", got)
	}
	e.write(t, map[string]string{"a.txt": "a2\n", "new.txt": "n\n"})
	got := e.mustCall(t, "git_stash", map[string]any{"action": "push", "message": "work in progress"})
	if !strings.HasPrefix(got, "stashed; 1 file set aside") {
		t.Errorf("push: %q", got)
	}
	if b, _ := os.ReadFile(e.path("a.txt")); string(b) != "a1\n" {
		t.Errorf("a.txt = %q after push, want HEAD's", b)
	}
	if b, _ := os.ReadFile(e.path("new.txt")); string(b) != "n\n" {
		t.Errorf("the untracked new.txt = %q after push, want it left", b)
	}
	if got := e.mustCall(t, "git_stash", map[string]any{"action": "list"}); !strings.Contains(got, "stash@{0}: On main: work in progress") {
		t.Errorf("list: %q", got)
	}
	got = e.mustCall(t, "git_stash", map[string]any{"action": "pop"})
	if !strings.HasPrefix(got, "popped the newest stash; 1 file changed") {
		t.Errorf("pop: %q", got)
	}
	if b, _ := os.ReadFile(e.path("a.txt")); string(b) != "a2\n" {
		t.Errorf("a.txt = %q after pop, want a2", b)
	}
	if b, _ := os.ReadFile(e.path("new.txt")); string(b) != "n\n" {
		t.Errorf("new.txt = %q after pop", b)
	}
	if got := e.mustCall(t, "git_stash", map[string]any{"action": "list"}); got != "no stashes" {
		t.Errorf("list after pop: %q", got)
	}
	e.mustFail(t, "git_stash", map[string]any{"action": "drop"}, `"push", "pop", "list"`)
}

package git_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckoutRefusesAnUnrunSmudge: with commands not allowed, a checkout
// that would write files whose filter's smudge program only the
// repository's config names is refused (git would write them unfiltered:
// LFS pointers instead of content), and nothing runs or changes; with
// commands allowed the filter runs and the checkout goes through.
func TestCheckoutRefusesAnUnrunSmudge(t *testing.T) {
	t.Parallel()
	for _, commands := range []bool{false, true} {
		t.Run(fmt.Sprintf("commands=%v", commands), func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, envOpts{commands: commands, repo: smudgeRepo})
			marker := filepath.Join(t.TempDir(), "smudged")
			script := filepath.Join(t.TempDir(), "smudge.sh")
			if err := os.WriteFile(script, []byte("#!/bin/sh\ntouch "+marker+"\ncat\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			gitT(t, e.dir, "config", "filter.lfsish.smudge", script)

			text, isErr := e.call(t, "git_checkout", map[string]any{"ref": "other"})
			_, ran := os.Stat(marker)
			head := strings.TrimSpace(gitT(t, e.dir, "branch", "--show-current"))
			if !commands {
				if !isErr || !strings.Contains(text, "filter lfsish") || !strings.Contains(text, "a.bin") {
					t.Errorf("without commands: %q (error %v), want a refusal naming the filter and the file", text, isErr)
				}
				if ran == nil || head != "main" {
					t.Errorf("without commands: smudge ran %v, HEAD %s; want neither", ran == nil, head)
				}
				return
			}
			if isErr || ran != nil || head != "other" {
				t.Errorf("with commands: %q (error %v), smudge ran %v, HEAD %s; want the checkout through the filter", text, isErr, ran == nil, head)
			}
		})
	}
}

// smudgeRepo is TestCheckoutRefusesAnUnrunSmudge's repository, before the
// filter's program is set: *.bin files have filter lfsish, and a.bin is
// "one" on main and "two" on branch other.
var smudgeRepo = &repoTemplate{name: "smudge", build: func(b *builder) {
	b.git("init", "-q", "-b", "main")
	b.git("config", "user.name", "Ada Lovelace")
	b.git("config", "user.email", "ada@example.com")
	b.write(map[string]string{".gitattributes": "*.bin filter=lfsish\n", "a.bin": "one\n"})
	b.git("add", "-A")
	b.git("commit", "-q", "-m", "one")
	b.git("checkout", "-q", "-b", "other")
	b.write(map[string]string{"a.bin": "two\n"})
	b.git("commit", "-q", "-am", "two")
	b.git("checkout", "-q", "main")
}}

// TestRestoreRefusesAnUnrunSmudge: a restore that would write a file
// whose filter's smudge program only the repository's config names is
// refused without commands, and nothing runs or changes.
func TestRestoreRefusesAnUnrunSmudge(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOpts{repo: smudgeRepo})
	marker := filepath.Join(t.TempDir(), "smudged")
	script := filepath.Join(t.TempDir(), "smudge.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\ntouch "+marker+"\ncat\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	gitT(t, e.dir, "config", "filter.lfsish.smudge", script)
	if err := os.WriteFile(e.path("a.bin"), []byte("changed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	text, isErr := e.call(t, "git_restore", map[string]any{"paths": []string{"a.bin"}})
	if !isErr || !strings.Contains(text, "filter lfsish") || !strings.Contains(text, "a.bin") {
		t.Errorf("restore: %q (error %v), want a refusal naming the filter and the file", text, isErr)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the smudge program ran")
	}
	if b, _ := os.ReadFile(e.path("a.bin")); string(b) != "changed\n" {
		t.Errorf("a.bin = %q, want it unchanged", b)
	}
}

package git_test

import (
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
		e := newEnv(t, envOpts{commands: commands})
		marker := filepath.Join(t.TempDir(), "smudged")
		script := filepath.Join(t.TempDir(), "smudge.sh")
		if err := os.WriteFile(script, []byte("#!/bin/sh\ntouch "+marker+"\ncat\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		e.write(t, map[string]string{".gitattributes": "*.bin filter=lfsish\n", "a.bin": "one\n"})
		gitT(t, e.dir, "add", "-A")
		gitT(t, e.dir, "commit", "-q", "-m", "one")
		gitT(t, e.dir, "checkout", "-q", "-b", "other")
		e.write(t, map[string]string{"a.bin": "two\n"})
		gitT(t, e.dir, "commit", "-q", "-am", "two")
		gitT(t, e.dir, "checkout", "-q", "main")
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
			continue
		}
		if isErr || ran != nil || head != "other" {
			t.Errorf("with commands: %q (error %v), smudge ran %v, HEAD %s; want the checkout through the filter", text, isErr, ran == nil, head)
		}
	}
}

package git

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/ramabana/ramabana-mcp/internal/sandbox"
)

// TestSandboxStopsUnknownPrograms runs git in the exec sandbox with a
// program set the way guard never would (as if a key it does not know, or
// a config written after its list, named it): the program must not run,
// where the kernel has Landlock.
func TestSandboxStopsUnknownPrograms(t *testing.T) {
	t.Parallel()
	if sandbox.Probe().Landlock == 0 {
		t.Skip("no Landlock on this kernel")
	}
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	dir, marker := filepath.Join(base, "repo"), filepath.Join(base, "marker")
	prog := filepath.Join(base, "prog")
	if err := os.WriteFile(prog, []byte("#!/bin/sh\ntouch "+marker+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"init", "-q", dir}, {"-C", dir, "config", "core.fsmonitor", prog}} {
		if out, err := exec.Command("git", args...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "a"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, confine := range []bool{true, false} {
		if _, err := git(context.Background(), dir, run{confine: confine}, "status", "--porcelain"); err != nil {
			t.Fatal(err)
		}
		_, err := os.Stat(marker)
		if ran := err == nil; ran == confine {
			t.Errorf("confine %v: program ran %v", confine, ran)
		}
		os.Remove(marker)
	}
}

// TestSandboxAllowsTrustedOnly runs git in the exec sandbox with a trusted
// program allowed (as guard.trusted would): that program runs, a program
// the trusted list does not hold still cannot.
func TestSandboxAllowsTrustedOnly(t *testing.T) {
	t.Parallel()
	if sandbox.Probe().Landlock == 0 {
		t.Skip("no Landlock on this kernel")
	}
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(base, "repo")
	progs := map[string]string{}
	for _, name := range []string{"good", "bad"} {
		progs[name] = filepath.Join(base, name)
		// Builtins only: the sandbox allows the program, not what it starts.
		script := "#!/bin/sh\n: > " + filepath.Join(base, name+".ran") + "\n"
		if err := os.WriteFile(progs[name], []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	trusted := programsOf(progs["good"])
	for name, prog := range progs {
		env := []string{"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=core.fsmonitor", "GIT_CONFIG_VALUE_0=" + prog}
		if _, err := git(context.Background(), dir, run{confine: true, trusted: trusted, env: env}, "status", "--porcelain"); err != nil {
			t.Fatal(err)
		}
		_, err := os.Stat(filepath.Join(base, name+".ran"))
		if ran := err == nil; ran != (name == "good") {
			t.Errorf("%s: ran %v", name, ran)
		}
	}
}

package roots_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ramabana/ramabana-mcp/sdk/roots"
)

// TestLookPathSkipsTheServedFolders: a program on a PATH entry inside a
// served folder (or linked into one, or relative) is never chosen, nor one
// beside a virtualenv's pyvenv.cfg inside one; the user's own is.
func TestLookPathSkipsTheServedFolders(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	served, user, venv := filepath.Join(base, "repo"), filepath.Join(base, "user-bin"), filepath.Join(base, "venv-out")
	inBin, linked := filepath.Join(served, "bin"), filepath.Join(base, "linked-bin")
	for _, d := range []string{inBin, user, filepath.Join(venv, "bin")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(inBin, linked); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{filepath.Join(inBin, "tool"), filepath.Join(user, "tool"), filepath.Join(venv, "bin", "tool")} {
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// A virtualenv outside whose pyvenv.cfg is a link into the repository.
	if err := os.WriteFile(filepath.Join(served, "pyvenv.cfg"), []byte("home = /x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(served, "pyvenv.cfg"), filepath.Join(venv, "pyvenv.cfg")); err != nil {
		t.Fatal(err)
	}
	r, err := roots.New([]string{served}, false)
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", "bin:"+inBin+":"+linked+":"+filepath.Join(venv, "bin")+":"+user)
	got, err := r.LookPath("tool")
	if err != nil || got != filepath.Join(user, "tool") {
		t.Errorf("LookPath(tool) = %q, %v; want the user's %s", got, err, filepath.Join(user, "tool"))
	}
	t.Setenv("PATH", inBin)
	if got, err := r.LookPath("tool"); err == nil {
		t.Errorf("LookPath(tool) = %q with only the served folder on PATH; want an error", got)
	}
}

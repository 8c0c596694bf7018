package proctest

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The second Build of a package copies what the first linked, without a
// link of its own (go build -x prints the linker's command when it links),
// and each caller gets a copy of its own; other flags are another binary.
func TestBuildSharesALink(t *testing.T) {
	if !canLock {
		t.Skip("no file locks here: Build builds straight to its destination")
	}
	shared := t.TempDir()
	t.Setenv(SharedBuildsEnv, shared)
	var outputs [][]byte
	buildOutput = func(b []byte) { outputs = append(outputs, b) }
	t.Cleanup(func() { buildOutput = nil })
	linked := func(i int) bool {
		return bytes.Contains(outputs[i], []byte(string(filepath.Separator)+"link"))
	}

	dir := t.TempDir()
	// second's folder does not exist: Build makes it, as go build -o does.
	first, second, trimmed := filepath.Join(dir, "first"), filepath.Join(dir, "nested", "second"), filepath.Join(dir, "trimmed")
	for _, dst := range []string{first, second} {
		if err := Build(dst, []string{"-x"}, "./testdata/hello"); err != nil {
			t.Fatal(err)
		}
	}
	if !linked(0) {
		t.Fatalf("the first Build did not link (go build -x printed no link command):\n%s", outputs[0])
	}
	if linked(1) {
		t.Errorf("the second Build linked again:\n%s", outputs[1])
	}
	built := sharedBinaries(t, shared)
	if len(built) != 1 {
		t.Fatalf("shared builds after two Builds of one package: %v", built)
	}
	for _, p := range []string{first, second} {
		if same, err := sameFile(p, built[0]); err != nil || same {
			t.Errorf("%s is the shared file (%v), not a copy", p, err)
		}
		if out, err := exec.Command(p).Output(); err != nil || strings.TrimSpace(string(out)) != "hello" {
			t.Errorf("%s printed %q, %v", p, out, err)
		}
	}
	if err := Build(trimmed, []string{"-x", "-trimpath"}, "./testdata/hello"); err != nil {
		t.Fatal(err)
	}
	if !linked(2) {
		t.Errorf("a Build with other flags did not link its own binary:\n%s", outputs[2])
	}
	if got := sharedBinaries(t, shared); len(got) != 2 {
		t.Errorf("shared builds after a Build with other flags: %v; want two", got)
	}
	if err := Build(first, []string{"-x"}, "./testdata/hello"); err == nil {
		t.Error("Build over an existing file succeeded")
	}
}

// sharedBinaries are the binaries in the shared folder (not the locks).
func sharedBinaries(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if !e.IsDir() && !strings.HasSuffix(e.Name(), ".lock") {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	return out
}

func sameFile(a, b string) (bool, error) {
	fa, err := os.Stat(a)
	if err != nil {
		return false, err
	}
	fb, err := os.Stat(b)
	if err != nil {
		return false, err
	}
	return os.SameFile(fa, fb), nil
}

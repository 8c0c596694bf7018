package python

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ramabana/ramabana-mcp/internal/proctest"
)

// requireKits makes a missing toolchain a failure rather than a skip: CI
// sets it, since it installs Debian's grpcio and protobuf.
const requireKits = "RAMABANA_REQUIRE_KITS"

// python is the interpreter the kit is tested with: Debian's, whose
// python3-grpcio and python3-protobuf packages import under it only.
const python = "/usr/bin/python3"

// The kit's own suite: the contract up to date with proto/, and its tests
// (a plugin served over real gRPC as its own process, the token, the
// lifeline, every task helper, schemas from type hints, the roots'
// confinement, the bundle).
func TestKitSuite(t *testing.T) {
	if out, err := exec.Command(python, "-c", "import grpc, google.protobuf").CombinedOutput(); err != nil {
		proctest.Missing(t, requireKits, "the Python kit needs grpcio and protobuf for "+python+" (Debian: apt-get install python3-grpcio python3-protobuf): "+strings.TrimSpace(string(out)))
	}
	cache := t.TempDir() // no __pycache__ left in the tree
	for _, args := range [][]string{
		{"gen_contract.py", "--check"},
		{"-m", "unittest", "discover", "-s", "tests"},
	} {
		cmd := exec.Command(python, args...)
		cmd.Env = append(os.Environ(), "PYTHONPYCACHEPREFIX="+cache)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("python3 %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
}

// Kit holds every module of the package: what plugin new copies must be
// the whole kit.
func TestKitIsThePackage(t *testing.T) {
	entries, err := os.ReadDir("ramabana_plugin")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	if err := fs.WalkDir(Kit(), ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			names = append(names, p)
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if filepath.Ext(e.Name()) == ".py" && !slices.Contains(names, e.Name()) {
			t.Errorf("ramabana_plugin/%s is not in Kit()", e.Name())
		}
		if e.IsDir() && e.Name() != "__pycache__" {
			t.Errorf("ramabana_plugin/%s is a folder: the kit is flat, so that plugin new copies it whole", e.Name())
		}
	}
	if !slices.Contains(names, "__init__.py") {
		t.Errorf("Kit() = %v; want __init__.py among them", names)
	}
}

// `pip install ./sdk/python` installs the kit as a package, here offline:
// into a venv that sees Debian's grpcio and protobuf, built with Debian's
// setuptools (a copy of the folder is built, so the tree stays clean).
func TestPipInstall(t *testing.T) {
	if out, err := exec.Command(python, "-c", "import grpc, google.protobuf, setuptools, venv, ensurepip").CombinedOutput(); err != nil {
		proctest.Missing(t, requireKits, "pip install needs grpcio, protobuf, setuptools and venv for "+python+" (Debian: apt-get install python3-grpcio python3-protobuf python3-setuptools python3-venv): "+strings.TrimSpace(string(out)))
	}
	tmp := t.TempDir()
	src := filepath.Join(tmp, "src")
	if err := os.CopyFS(src, os.DirFS(".")); err != nil {
		t.Fatal(err)
	}
	venv := filepath.Join(tmp, "venv")
	for _, args := range [][]string{
		{python, "-m", "venv", "--system-site-packages", venv},
		{filepath.Join(venv, "bin", "pip"), "install", "--quiet", "--no-build-isolation", "--no-deps", "--no-index", src},
	} {
		if out, err := exec.Command(args[0], args[1:]...).CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	cmd := exec.Command(filepath.Join(venv, "bin", "python"), "-c", "import ramabana_plugin as rp; print(rp.__file__); print(rp.Toolbox.__name__)")
	cmd.Dir = tmp // not the source folder, whose package would shadow the installed one
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("import the installed kit: %v\n%s", err, out)
	}
	if !strings.HasPrefix(string(out), filepath.Join(venv, "lib")) || !strings.Contains(string(out), "Toolbox") {
		t.Errorf("the kit imports from %q; want the venv's site-packages", out)
	}
}

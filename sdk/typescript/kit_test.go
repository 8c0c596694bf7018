package typescript

import (
	"io/fs"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/ramabana/ramabana-mcp/internal/proctest"
)

// requireKits makes a missing toolchain a failure rather than a skip: CI
// sets it, since it installs Node and npm.
const requireKits = "RAMABANA_REQUIRE_KITS"

// The kit's own suite, as `npm ci && npm run check && npm test` runs it in
// this folder: the contract up to date with proto/, the sources
// type-checked, and its tests (a plugin served over real gRPC, the roots'
// confinement, every task helper) passing.
func TestKitSuite(t *testing.T) {
	if _, err := exec.LookPath("npm"); err != nil {
		proctest.Missing(t, requireKits, "npm is not installed")
	}
	for _, args := range [][]string{
		{"ci", "--no-fund", "--no-audit"},
		{"run", "check"},
		{"test"},
	} {
		cmd := exec.Command("npm", args...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("npm %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
}

// Kit holds every source of the kit, and only sources: what plugin new
// copies must import nothing outside itself.
func TestKitIsTheSources(t *testing.T) {
	var names []string
	if err := fs.WalkDir(Kit(), ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			names = append(names, p)
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir("src")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".ts") && !slices.Contains(names, e.Name()) {
			t.Errorf("src/%s is not in Kit()", e.Name())
		}
	}
	if !slices.Contains(names, "index.ts") {
		t.Errorf("Kit() = %v; want index.ts among them", names)
	}
	for _, n := range names {
		b, _ := fs.ReadFile(Kit(), n)
		for _, line := range strings.Split(string(b), "\n") {
			if strings.Contains(line, "from \"../") || strings.Contains(line, "from '../") {
				t.Errorf("%s imports outside the kit: %s", n, line)
			}
		}
	}
}

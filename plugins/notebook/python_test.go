package notebook

import (
	"bytes"
	"os"
	"os/exec"
	"testing"
)

// python returns a python3 interpreter, or skips the test when there is
// none. Tests use it only with the standard json module, as the reference
// for what Jupyter writes.
func python(t testing.TB) string {
	t.Helper()
	if _, err := os.Stat("/usr/bin/python3"); err == nil {
		return "/usr/bin/python3"
	}
	p, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed")
	}
	return p
}

// runPython runs script with stdin and returns its stdout.
func runPython(t testing.TB, script string, stdin []byte) []byte {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), python(t), "-c", script)
	cmd.Stdin = bytes.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("python: %v\n%s", err, errb.String())
	}
	return out.Bytes()
}

// jupyterDump is how nbformat writes a notebook.
const jupyterDump = `import json, sys
nb = json.loads(sys.stdin.buffer.read().decode("utf-8"))
sys.stdout.buffer.write((json.dumps(nb, indent=1, sort_keys=True, ensure_ascii=False) + "\n").encode("utf-8"))
`

// canonical is data as Jupyter would write it.
func canonical(t testing.TB, data []byte) []byte {
	t.Helper()
	return runPython(t, jupyterDump, data)
}

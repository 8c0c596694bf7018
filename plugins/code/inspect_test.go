package code_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ramabana/ramabana-mcp/plugins/code"
	"github.com/ramabana/ramabana-mcp/sdk"
	"github.com/ramabana/ramabana-mcp/sdk/sdktest"
)

// needPython skips a test when python3 is missing: the only thing that may.
func needPython(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not on PATH")
	}
}

const shapesModule = `"""Shapes to measure."""
import json
from collections import OrderedDict

print("printed at import")

UNITS = "cm"


def area(width: float, height: float = 1.0) -> float:
    """Return the area of a rectangle.

    Both sides are in UNITS.
    """
    return width * height


class Shape:
    """A shape with a name."""

    sides = 0

    def __init__(self, name: str):
        self.name = name

    def describe(self, verbose=False) -> str:
        """Describe the shape."""
        return self.name

    @staticmethod
    def unit() -> "Shape":
        return Shape("unit")

    @property
    def label(self):
        """The name in capitals."""
        return self.name.upper()


class Square(Shape):
    sides = 4

    def side(self):
        return 1
`

func TestInspectPython(t *testing.T) {
	t.Parallel()
	needPython(t)
	e := newEnv(t, map[string]string{
		"geo/__init__.py": "",
		"geo/shapes.py":   shapesModule,
		"broken.py":       "def oops(:\n",
		"needs_dep.py":    "import surely_not_installed_dep\n",
		"sub/local.py":    "def here():\n    \"\"\"In sub.\"\"\"\n",
	})
	tests := map[string]struct {
		args    map[string]any
		want    string
		wantErr string
	}{
		"function: signature, docstring, source": {
			args: map[string]any{"target": "geo.shapes.area"},
			want: "geo.shapes.area: function (Python *)\n" +
				"signature: (width: float, height: float = 1.0) -> float\n" +
				"source: geo/shapes.py:10-15\n\n" +
				"Return the area of a rectangle.\n\nBoth sides are in UNITS.",
		},
		"class with methods": {
			args: map[string]any{"target": "geo.shapes.Shape"},
			want: "geo.shapes.Shape: class (Python *)\n" +
				"signature: (name: str)\n" +
				"bases: object\n" +
				"source: geo/shapes.py:18-37\n\n" +
				"A shape with a name.\n\n" +
				"members:\n" +
				"  value of type builtins.int sides = 0\n" +
				"  function __init__(self, name: str)\n" +
				"  function describe(self, verbose=False) -> str  # Describe the shape.\n" +
				"  staticmethod unit() -> 'Shape'\n" +
				"  property label(self)  # The name in capitals.",
		},
		"subclass lists inherited members": {
			args: map[string]any{"target": "geo.shapes.Square"},
			want: "geo.shapes.Square: class (Python *)\n" +
				"signature: (name: str)\n" +
				"bases: geo.shapes.Shape\n" +
				"source: geo/shapes.py:40-44\n\n" +
				"A shape with a name.\n\n" +
				"members:\n" +
				"  value of type builtins.int sides = 4\n" +
				"  function side(self)\n\n" +
				"inherited:\n" +
				"  describe (from Shape)\n" +
				"  unit (from Shape)\n" +
				"  label (from Shape)",
		},
		"method": {
			args: map[string]any{"target": "geo.shapes.Shape.describe"},
			want: "geo.shapes.Shape.describe: function (Python *)\n" +
				"signature: (self, verbose=False) -> str\n" +
				"source: geo/shapes.py:26-28\n\nDescribe the shape.",
		},
		"module members leave imports out": {
			args: map[string]any{"target": "geo.shapes"},
			want: "geo.shapes: module (Python *)\n" +
				"source: geo/shapes.py:1-44\n\n" +
				"Shapes to measure.\n\n" +
				"members (names imported from other modules left out):\n" +
				"  value of type builtins.str UNITS = 'cm'\n" +
				"  function area(width: float, height: float = 1.0) -> float  # Return the area of a rectangle.\n" +
				"  class Shape(name: str)  # A shape with a name.\n" +
				"  class Square(name: str)",
		},
		"cwd puts a folder first on sys.path": {
			args: map[string]any{"target": "local.here", "cwd": "sub"},
			want: "local.here: function (Python *)\nsignature: ()\nsource: sub/local.py:1-2\n\nIn sub.",
		},
		"missing attribute": {
			args:    map[string]any{"target": "geo.shapes.aera"},
			wantErr: `geo.shapes (a module) has no attribute "aera"; did you mean area?`,
		},
		"missing module": {
			args:    map[string]any{"target": "nosuchmodule.thing"},
			wantErr: `no module "nosuchmodule" can be imported from . (python3: ModuleNotFoundError: No module named 'nosuchmodule')`,
		},
		"syntax error in the module": {
			args:    map[string]any{"target": "broken.oops"},
			wantErr: "importing broken failed: SyntaxError:",
		},
		"missing dependency of the module": {
			args:    map[string]any{"target": "needs_dep"},
			wantErr: "importing needs_dep failed: ModuleNotFoundError: No module named 'surely_not_installed_dep'",
		},
		"not a dotted name": {
			args:    map[string]any{"target": "json.dumps()"},
			wantErr: `target "json.dumps()" is not a dotted Python name`,
		},
		"cwd outside the roots": {
			args:    map[string]any{"target": "json", "cwd": "/tmp"},
			wantErr: "outside the served folders",
		},
		"cwd not a directory": {
			args:    map[string]any{"target": "json", "cwd": "broken.py"},
			wantErr: "cwd broken.py is not a directory",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, isErr := e.call(t, "inspect_python", tc.args)
			if !sdktest.Outcome(t, got, isErr, tc.wantErr) {
				return
			}
			if diff := cmp.Diff(tc.want, maskPython(got)); diff != "" {
				t.Errorf("inspect_python (-want +got):\n%s", diff)
			}
		})
	}
}

// maskPython replaces the interpreter's version in the header line.
func maskPython(s string) string {
	head, rest, _ := strings.Cut(s, "\n")
	if i := strings.LastIndex(head, "(Python "); i >= 0 {
		head = head[:i] + "(Python *)"
	}
	if rest == "" {
		return head
	}
	return head + "\n" + rest
}

func TestInspectPythonStdlib(t *testing.T) {
	t.Parallel()
	needPython(t)
	e := newEnv(t, map[string]string{})
	got, isErr := e.call(t, "inspect_python", map[string]any{"target": "json.dumps"})
	if isErr {
		t.Fatal(got)
	}
	for _, want := range []string{
		"json.dumps: function (Python 3.",
		"signature: (obj, *, skipkeys=False, ensure_ascii=True,",
		"json/__init__.py:",
		"Serialize ``obj`` to a JSON formatted ``str``.",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("inspect_python json.dumps: %q is missing from:\n%s", want, got)
		}
	}
	got, isErr = e.call(t, "inspect_python", map[string]any{"target": "json"})
	if isErr {
		t.Fatal(got)
	}
	for _, want := range []string{"json: package (Python 3.", "members (from __all__):", "  function dumps(obj, *,", "  class JSONDecoder("} {
		if !strings.Contains(got, want) {
			t.Errorf("inspect_python json: %q is missing from:\n%s", want, got)
		}
	}
}

// TestInspectPythonWithoutCommands: without commands allowed (read-only,
// or the shell group left out), importing a project module would run the
// repository's code; inspect_python refuses it, runs none of it, and still
// inspects the standard library.
func TestInspectPythonWithoutCommands(t *testing.T) {
	t.Parallel()
	needPython(t)
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(dir, "imported")
	for name, src := range map[string]string{
		"evil.py":          "open(" + strconv.Quote(marker) + ", 'w').write('ran')\ndef f(): pass\n",
		"json.py":          "open(" + strconv.Quote(marker) + ", 'w').write('shadowed')\n",
		"sitecustomize.py": "open(" + strconv.Quote(marker) + ", 'w').write('site')\n",
		"usercustomize.py": "open(" + strconv.Quote(marker) + ", 'w').write('user')\n",
		"pkg/__init__.py":  "open(" + strconv.Quote(marker) + ", 'w').write('pkg')\n",
	} {
		writeFile(t, filepath.Join(dir, name), src)
	}
	g, _ := sdktest.Connect(t, code.New(), sdk.Host{Roots: []string{dir}})
	e := &env{dir: dir, g: g}
	for _, target := range []string{"evil.f", "pkg", "evil"} {
		got, isErr := e.call(t, "inspect_python", map[string]any{"target": target})
		if !isErr || !strings.Contains(got, "project modules are imported only when commands are allowed") {
			t.Errorf("inspect_python %s: got %q (error %v), want a refusal that says why", target, got, isErr)
		}
	}
	got, isErr := e.call(t, "inspect_python", map[string]any{"target": "json.dumps"})
	if isErr || !strings.Contains(got, "json.dumps: function") {
		t.Errorf("inspect_python json.dumps without commands: %q (error %v)", got, isErr)
	}
	if b, err := os.ReadFile(marker); err == nil {
		t.Errorf("the repository's code ran: %q", b)
	}
}

// TestInspectPythonSkipsARepositoryPython: with a python3 inside the served
// folder first on PATH (a project's .venv/bin, say), inspect_python without
// commands runs the user's python3 from further down PATH, never that one.
// Not parallel: it sets PATH.
func TestInspectPythonSkipsARepositoryPython(t *testing.T) {
	needPython(t)
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(t.TempDir(), "ran")
	writeFile(t, filepath.Join(dir, ".venv", "bin", "python3"), "#!/bin/sh\ntouch "+marker+"\nexit 1\n")
	if err := os.Chmod(filepath.Join(dir, ".venv", "bin", "python3"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", filepath.Join(dir, ".venv", "bin")+string(os.PathListSeparator)+os.Getenv("PATH"))
	g, _ := sdktest.Connect(t, code.New(), sdk.Host{Roots: []string{dir}})
	e := &env{dir: dir, g: g}
	got, isErr := e.call(t, "inspect_python", map[string]any{"target": "json.dumps"})
	if isErr || !strings.Contains(got, "json.dumps: function") {
		t.Errorf("inspect_python json.dumps: %q (error %v)", got, isErr)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the repository's python3 ran")
	}
}

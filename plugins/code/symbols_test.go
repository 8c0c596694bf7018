package code_test

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ramabana/ramabana-mcp/sdk/sdktest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// golden compares got with testdata/golden/name, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.WriteFile(path, []byte(got+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(strings.TrimSuffix(string(want), "\n"), got); diff != "" {
		t.Errorf("%s (-want +got):\n%s", name, diff)
	}
}

func TestOutlineGolden(t *testing.T) {
	t.Parallel()
	e := fixtures(t)
	tests := map[string]map[string]any{
		"outline-go.txt":         {"path": "sample.go"},
		"outline-python.txt":     {"path": "sample.py", "depth": 3},
		"outline-javascript.txt": {"path": "sample.js"},
		"outline-typescript.txt": {"path": "sample.ts"},
		"outline-tsx.txt":        {"path": "sample.tsx"},
		"outline-dir-depth1.txt": {"path": ".", "depth": 1},
	}
	for name, args := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, isErr := e.call(t, "outline", args)
			if isErr {
				t.Fatal(got)
			}
			golden(t, name, got)
		})
	}
}

func TestOutline(t *testing.T) {
	t.Parallel()
	e := newEnv(t, map[string]string{
		"a.go":           "package a\n\n// F does it.\nfunc F() {}\n\ntype T struct {\n\tX, Y int\n}\n",
		"empty.py":       "# nothing here\nimport os\n",
		"notes.txt":      "text\n",
		"docs/readme.md": "# docs\n",
		".gitignore":     "ignored.go\n",
		"ignored.go":     "package a\nfunc Hidden() {}\n",
		"broken.py":      "def ok():\n    pass\n\ndef broken(:\n",
		"bin.go":         "package a\x00",
	})
	tests := map[string]struct {
		args    map[string]any
		want    string
		wantErr string
	}{
		"depth 1 hides members": {
			args: map[string]any{"path": "a.go", "depth": 1},
			want: "a.go (Go, 8 lines)\nfunction F (line 4): func F()\nstruct T (lines 6-8): type T struct [+2 members]",
		},
		"two names on one field line": {
			args: map[string]any{"path": "a.go"},
			want: "a.go (Go, 8 lines)\nfunction F (line 4): func F()\nstruct T (lines 6-8): type T struct\n  field X (line 7): X, Y int\n  field Y (line 7): X, Y int",
		},
		"no symbols": {
			args: map[string]any{"path": "empty.py"},
			want: "empty.py (Python, 2 lines)\n(no symbols)",
		},
		"syntax errors keep what parses": {
			args: map[string]any{"path": "broken.py", "depth": 1},
			want: "broken.py (Python, 4 lines)\nfunction ok (lines 1-2): def ok()\nfunction broken (line 4): def broken(",
		},
		"directory skips ignored, unsupported and binary files": {
			args: map[string]any{"path": ".", "depth": 1},
			want: "a.go (Go, 8 lines)\nfunction F (line 4): func F()\nstruct T (lines 6-8): type T struct [+2 members]\n\n(bin.go is a binary file)\n\nbroken.py (Python, 4 lines)\nfunction ok (lines 1-2): def ok()\nfunction broken (line 4): def broken(\n\nempty.py (Python, 2 lines)\n(no symbols)",
		},
		"unsupported extension": {
			args:    map[string]any{"path": "notes.txt"},
			wantErr: "notes.txt: outline reads Go (.go), Python (.py .pyi), JavaScript (.js .jsx .mjs .cjs), TypeScript (.ts .mts .cts), TSX (.tsx); for other files use view_file or search_code",
		},
		"directory without sources": {
			args:    map[string]any{"path": "docs"},
			wantErr: "docs has no files outline reads directly in it (it is not recursive)",
		},
		"missing": {
			args:    map[string]any{"path": "nope.go"},
			wantErr: "nope.go does not exist",
		},
		"outside": {
			args:    map[string]any{"path": "/etc/hostname"},
			wantErr: "outside the served folders",
		},
		"bad depth": {
			args:    map[string]any{"path": "a.go", "depth": 11},
			wantErr: "invalid arguments for outline: \"depth\" must be at most 10 (got 11)",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, isErr := e.call(t, "outline", tc.args)
			if !sdktest.Outcome(t, got, isErr, tc.wantErr) {
				return
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("outline (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFindSymbol(t *testing.T) {
	t.Parallel()
	e := fixtures(t)
	tests := map[string]struct {
		args    map[string]any
		want    string
		wantErr string
	}{
		"plain name across languages": {
			args: map[string]any{"name": "render"},
			want: "sample.js:36-38 method Widget/render: render()\nsample.tsx:14-16 method Panel/render: render()\n(2 symbols in 5 source files searched)",
		},
		"go method by receiver": {
			args: map[string]any{"name": "Server/Run"},
			want: "sample.go:46-48 method Server/Run: func (s *Server) Run(ctx context.Context) error\n(1 symbol in 5 source files searched)",
		},
		"go method as written in code": {
			args: map[string]any{"name": "(*Server).Run"},
			want: "sample.go:46-48 method Server/Run: func (s *Server) Run(ctx context.Context) error\n(1 symbol in 5 source files searched)",
		},
		"go interface method and struct field": {
			args: map[string]any{"name": "Runner.Run"},
			want: "sample.go:30 method Runner/Run: Run(ctx context.Context) error\n(1 symbol in 5 source files searched)",
		},
		"python method with dots": {
			args: map[string]any{"name": "Base.make"},
			want: "sample.py:22-27 method Base/make: @staticmethod def make(name: str, size: int = 0) -> \"Base\"\n(1 symbol in 5 source files searched)",
		},
		"nested class": {
			args: map[string]any{"name": "Base/Inner/deep"},
			want: "sample.py:30-31 method Base/Inner/deep: def deep(self)\n(1 symbol in 5 source files searched)",
		},
		"suffix of the name path": {
			args: map[string]any{"name": "Inner/deep"},
			want: "sample.py:30-31 method Base/Inner/deep: def deep(self)\n(1 symbol in 5 source files searched)",
		},
		"absolute name path": {
			args: map[string]any{"name": "/Inner/deep"},
			want: "(no symbol matches name path \"/Inner/deep\" in 5 source files under .; try substring: true, or just \"deep\"; search_code finds text anywhere)",
		},
		"typescript class method": {
			args: map[string]any{"name": "Polygon/perimeter"},
			want: "sample.ts:24-26 method Polygon/perimeter: perimeter(length: number): number\n(1 symbol in 5 source files searched)",
		},
		"kind filter": {
			args: map[string]any{"name": "name", "kind": "field"},
			want: "sample.ts:3 field Shape/name: name: string\nsample.ts:15 field Polygon/name: name = \"polygon\"\n(2 symbols in 5 source files searched)",
		},
		"kind": {
			args: map[string]any{"name": "MAX_ITEMS", "kind": "constant"},
			want: "sample.js:4 constant MAX_ITEMS: export const MAX_ITEMS = 10\n(1 symbol in 5 source files searched)",
		},
		"substring ignores case": {
			args: map[string]any{"name": "server", "substring": true, "kind": "function"},
			want: "sample.go:40-43 function NewServer: func NewServer(addr string, port int) *Server\n(1 symbol in 5 source files searched)",
		},
		"arrow function": {
			args: map[string]any{"name": "Badge"},
			want: "sample.tsx:11 function Badge: export const Badge = ({ title }: Props) =>\n(1 symbol in 5 source files searched)",
		},
		"members with depth": {
			args: map[string]any{"name": "Color", "depth": 1},
			want: "sample.ts:9-12 enum Color: export enum Color\n  enum_member Red (line 10): Red\n  enum_member Green (line 11): Green = \"green\"\n(1 symbol in 5 source files searched)",
		},
		"one file": {
			args: map[string]any{"name": "Run", "path": "sample.go"},
			want: "sample.go:30 method Runner/Run: Run(ctx context.Context) error\nsample.go:46-48 method Server/Run: func (s *Server) Run(ctx context.Context) error\n(2 symbols in 1 source file searched)",
		},
		"cap": {
			args: map[string]any{"name": "a", "substring": true, "kind": "method", "limit": 2},
			want: "sample.go:50 method Pair/Swap: func (p Pair[K, V]) Swap() Pair[K, V]\nsample.js:32-34 method Widget/label: get label()\n(2 symbols shown; limit=2 reached: 1 more symbol in 1 file left out, and later files were not searched; narrow name, kind or path, or raise limit)",
		},
		"no match": {
			args: map[string]any{"name": "Nope", "kind": "class"},
			want: "(no symbol matches name \"Nope\" of kind class in 5 source files under .; try substring: true, or no kind; search_code finds text anywhere)",
		},
		"bad kind": {
			args:    map[string]any{"name": "x", "kind": "widget"},
			wantErr: "invalid arguments for find_symbol: \"kind\" must be one of \"function\", \"method\", \"class\", \"struct\", \"interface\", \"type\", \"enum\", \"enum_member\", \"field\", \"constant\", \"variable\", \"namespace\" (got \"widget\")",
		},
		"empty name": {
			args:    map[string]any{"name": "/"},
			wantErr: "has no name in it",
		},
		"outside": {
			args:    map[string]any{"name": "x", "path": "/etc"},
			wantErr: "outside the served folders",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, isErr := e.call(t, "find_symbol", tc.args)
			if !sdktest.Outcome(t, got, isErr, tc.wantErr) {
				return
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("find_symbol (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFindSymbolBody(t *testing.T) {
	t.Parallel()
	e := fixtures(t)
	tests := map[string]struct {
		args map[string]any
		want string
	}{
		"go method with its doc comment": {
			args: map[string]any{"name": "Server/Run", "include_body": true},
			want: "sample.go:45-48 method Server/Run\n// Run runs the server.\nfunc (s *Server) Run(ctx context.Context) error {\n\treturn nil\n}\n\n(1 symbol in 5 source files searched)",
		},
		"python method keeps indentation and decorators": {
			args: map[string]any{"name": "Base/label", "include_body": true},
			want: "sample.py:18-20 method Base/label\n    @property\n    def label(self):\n        return self.name.upper()\n\n(1 symbol in 5 source files searched)",
		},
		"javascript export with jsdoc": {
			args: map[string]any{"name": "greet", "include_body": true},
			want: "sample.js:7-10 function greet\n/** Greets someone. */\nexport function greet(name) {\n  return `hello ${name}`;\n}\n\n(1 symbol in 5 source files searched)",
		},
		"typescript class method": {
			args: map[string]any{"name": "Polygon/perimeter", "include_body": true},
			want: "sample.ts:24-26 method Polygon/perimeter\n  perimeter(length: number): number {\n    return this.sides * length;\n  }\n\n(1 symbol in 5 source files searched)",
		},
		"two bodies": {
			args: map[string]any{"name": "render", "include_body": true},
			want: "sample.js:36-38 method Widget/render\n  render() {\n    return `<div>${this.name}</div>`;\n  }\n\n" +
				"sample.tsx:14-16 method Panel/render\n  render() {\n    return <section>{this.props.title}</section>;\n  }\n\n(2 symbols in 5 source files searched)",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, isErr := e.call(t, "find_symbol", tc.args)
			if isErr {
				t.Fatal(got)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("find_symbol (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFindSymbolLongBodyAndTree(t *testing.T) {
	t.Parallel()
	var long strings.Builder
	long.WriteString("def long():\n")
	for range 450 {
		long.WriteString("    x = 1\n")
	}
	e := newEnv(t, map[string]string{
		"pkg/long.py":        long.String(),
		"pkg/sub/helpers.py": "def helper():\n    pass\n",
		"pkg/sub/h.go":       "package sub\n\nfunc helper() {}\n",
		".gitignore":         "vendor/\n",
		"vendor/v.py":        "def helper():\n    pass\n",
		"notes.txt":          "def helper(): pass\n",
	})
	got, isErr := e.call(t, "find_symbol", map[string]any{"name": "helper"})
	if isErr {
		t.Fatal(got)
	}
	want := "pkg/sub/h.go:3 function helper: func helper()\npkg/sub/helpers.py:1-2 function helper: def helper()\n(2 symbols in 3 source files searched)"
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("find_symbol over a tree (-want +got):\n%s", diff)
	}
	got, isErr = e.call(t, "find_symbol", map[string]any{"name": "long", "include_body": true})
	if isErr {
		t.Fatal(got)
	}
	lines := strings.Split(got, "\n")
	if lines[0] != "pkg/long.py:1-451 function long" || len(lines) != 1+400+1+1+1 {
		t.Errorf("got %d lines starting %q", len(lines), lines[0])
	}
	if want := "… (51 more lines; view_file pkg/long.py from line 401)"; lines[401] != want {
		t.Errorf("cut note %q, want %q", lines[401], want)
	}
	got, isErr = e.call(t, "find_symbol", map[string]any{"name": "helper", "path": "notes.txt"})
	if want := "notes.txt: find_symbol reads Go (.go)"; !isErr || !strings.HasPrefix(got, want) {
		t.Errorf("unsupported file: got %q (error %v), want an error starting %q", got, isErr, want)
	}
}

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

// Builds a test case is for, besides "" for both: with cgo (tree-sitter
// reads every language), or without (go/parser reads Go, other languages
// are refused).
const (
	cgoBuild   = "cgo"
	noCgoBuild = "nocgo"
)

// onlyOn skips a test case meant for the other build.
func onlyOn(t *testing.T, build string) {
	t.Helper()
	switch {
	case build == cgoBuild && !withCgo:
		t.Skip("parsing languages other than Go needs a build with cgo")
	case build == noCgoBuild && withCgo:
		t.Skip("what a build without cgo answers")
	}
}

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
	tests := map[string]struct {
		args  map[string]any
		build string
	}{
		"outline-go.txt":               {args: map[string]any{"path": "sample.go"}},
		"outline-python.txt":           {args: map[string]any{"path": "sample.py", "depth": 3}, build: cgoBuild},
		"outline-javascript.txt":       {args: map[string]any{"path": "sample.js"}, build: cgoBuild},
		"outline-typescript.txt":       {args: map[string]any{"path": "sample.ts"}, build: cgoBuild},
		"outline-tsx.txt":              {args: map[string]any{"path": "sample.tsx"}, build: cgoBuild},
		"outline-dir-depth1.txt":       {args: map[string]any{"path": ".", "depth": 1}, build: cgoBuild},
		"outline-dir-depth1-nocgo.txt": {args: map[string]any{"path": ".", "depth": 1}, build: noCgoBuild},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			onlyOn(t, tc.build)
			got, isErr := e.call(t, "outline", tc.args)
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
		"py/only.py":     "def f():\n    pass\n",
	})
	tests := map[string]struct {
		args    map[string]any
		want    string
		wantErr string
		build   string
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
			args:  map[string]any{"path": "empty.py"},
			want:  "empty.py (Python, 2 lines)\n(no symbols)",
			build: cgoBuild,
		},
		"syntax errors keep what parses": {
			args:  map[string]any{"path": "broken.py", "depth": 1},
			want:  "broken.py (Python, 4 lines)\nfunction ok (lines 1-2): def ok()\nfunction broken (line 4): def broken(",
			build: cgoBuild,
		},
		"directory skips ignored, unsupported and binary files": {
			args:  map[string]any{"path": ".", "depth": 1},
			want:  "a.go (Go, 8 lines)\nfunction F (line 4): func F()\nstruct T (lines 6-8): type T struct [+2 members]\n\n(bin.go is a binary file)\n\nbroken.py (Python, 4 lines)\nfunction ok (lines 1-2): def ok()\nfunction broken (line 4): def broken(\n\nempty.py (Python, 2 lines)\n(no symbols)",
			build: cgoBuild,
		},
		"directory without cgo": {
			args: map[string]any{"path": ".", "depth": 1},
			want: "a.go (Go, 8 lines)\nfunction F (line 4): func F()\nstruct T (lines 6-8): type T struct [+2 members]\n\n(bin.go is a binary file)\n\n" +
				"(2 Python files left out: parsing them needs a build with cgo (CGO_ENABLED=1 and a C compiler); this binary was built without it)",
			build: noCgoBuild,
		},
		"python without cgo": {
			args:    map[string]any{"path": "broken.py"},
			wantErr: "outline of Python sources needs a build with cgo (CGO_ENABLED=1 and a C compiler); this binary was built without it; Go sources work",
			build:   noCgoBuild,
		},
		"directory of python without cgo": {
			args:    map[string]any{"path": "py"},
			wantErr: "outline of Python sources needs a build with cgo",
			build:   noCgoBuild,
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
			onlyOn(t, tc.build)
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
		build   string
	}{
		"plain name across languages": {
			args:  map[string]any{"name": "render"},
			want:  "sample.js:36-38 method Widget/render: render()\nsample.tsx:14-16 method Panel/render: render()\n(2 symbols in 5 source files searched)",
			build: cgoBuild,
		},
		"go method by receiver": {
			args: map[string]any{"name": "Server/Run", "path": "sample.go"},
			want: "sample.go:46-48 method Server/Run: func (s *Server) Run(ctx context.Context) error\n(1 symbol in 1 source file searched)",
		},
		"go method as written in code": {
			args: map[string]any{"name": "(*Server).Run", "path": "sample.go"},
			want: "sample.go:46-48 method Server/Run: func (s *Server) Run(ctx context.Context) error\n(1 symbol in 1 source file searched)",
		},
		"go interface method and struct field": {
			args: map[string]any{"name": "Runner.Run", "path": "sample.go"},
			want: "sample.go:30 method Runner/Run: Run(ctx context.Context) error\n(1 symbol in 1 source file searched)",
		},
		"python method with dots": {
			args:  map[string]any{"name": "Base.make"},
			want:  "sample.py:22-27 method Base/make: @staticmethod def make(name: str, size: int = 0) -> \"Base\"\n(1 symbol in 5 source files searched)",
			build: cgoBuild,
		},
		"nested class": {
			args:  map[string]any{"name": "Base/Inner/deep"},
			want:  "sample.py:30-31 method Base/Inner/deep: def deep(self)\n(1 symbol in 5 source files searched)",
			build: cgoBuild,
		},
		"suffix of the name path": {
			args:  map[string]any{"name": "Inner/deep"},
			want:  "sample.py:30-31 method Base/Inner/deep: def deep(self)\n(1 symbol in 5 source files searched)",
			build: cgoBuild,
		},
		"absolute name path": {
			args:  map[string]any{"name": "/Inner/deep"},
			want:  "(no symbol matches name path \"/Inner/deep\" in 5 source files under .; try substring: true, or just \"deep\"; search_code finds text anywhere)",
			build: cgoBuild,
		},
		"typescript class method": {
			args:  map[string]any{"name": "Polygon/perimeter"},
			want:  "sample.ts:24-26 method Polygon/perimeter: perimeter(length: number): number\n(1 symbol in 5 source files searched)",
			build: cgoBuild,
		},
		"kind filter": {
			args:  map[string]any{"name": "name", "kind": "field"},
			want:  "sample.ts:3 field Shape/name: name: string\nsample.ts:15 field Polygon/name: name = \"polygon\"\n(2 symbols in 5 source files searched)",
			build: cgoBuild,
		},
		"kind": {
			args:  map[string]any{"name": "MAX_ITEMS", "kind": "constant"},
			want:  "sample.js:4 constant MAX_ITEMS: export const MAX_ITEMS = 10\n(1 symbol in 5 source files searched)",
			build: cgoBuild,
		},
		"substring ignores case": {
			args: map[string]any{"name": "server", "substring": true, "kind": "function", "path": "sample.go"},
			want: "sample.go:40-43 function NewServer: func NewServer(addr string, port int) *Server\n(1 symbol in 1 source file searched)",
		},
		"arrow function": {
			args:  map[string]any{"name": "Badge"},
			want:  "sample.tsx:11 function Badge: export const Badge = ({ title }: Props) =>\n(1 symbol in 5 source files searched)",
			build: cgoBuild,
		},
		"members with depth": {
			args:  map[string]any{"name": "Color", "depth": 1},
			want:  "sample.ts:9-12 enum Color: export enum Color\n  enum_member Red (line 10): Red\n  enum_member Green (line 11): Green = \"green\"\n(1 symbol in 5 source files searched)",
			build: cgoBuild,
		},
		"one file": {
			args: map[string]any{"name": "Run", "path": "sample.go"},
			want: "sample.go:30 method Runner/Run: Run(ctx context.Context) error\nsample.go:46-48 method Server/Run: func (s *Server) Run(ctx context.Context) error\n(2 symbols in 1 source file searched)",
		},
		"cap": {
			args:  map[string]any{"name": "a", "substring": true, "kind": "method", "limit": 2},
			want:  "sample.go:50 method Pair/Swap: func (p Pair[K, V]) Swap() Pair[K, V]\nsample.js:32-34 method Widget/label: get label()\n(2 symbols shown; limit=2 reached: 1 more symbol in 1 file left out, and later files were not searched; narrow name, kind or path, or raise limit)",
			build: cgoBuild,
		},
		"no match": {
			args:  map[string]any{"name": "Nope", "kind": "class"},
			want:  "(no symbol matches name \"Nope\" of kind class in 5 source files under .; try substring: true, or no kind; search_code finds text anywhere)",
			build: cgoBuild,
		},
		"directory without cgo": {
			args: map[string]any{"name": "Run"},
			want: "sample.go:30 method Runner/Run: Run(ctx context.Context) error\nsample.go:46-48 method Server/Run: func (s *Server) Run(ctx context.Context) error\n" +
				"(2 symbols in 1 source file searched; 4 Python, JavaScript, TypeScript and TSX files not searched: parsing them needs a build with cgo (CGO_ENABLED=1 and a C compiler); this binary was built without it)",
			build: noCgoBuild,
		},
		"python file without cgo": {
			args:    map[string]any{"name": "Base", "path": "sample.py"},
			wantErr: "find_symbol in Python sources needs a build with cgo (CGO_ENABLED=1 and a C compiler); this binary was built without it; Go sources work",
			build:   noCgoBuild,
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
			onlyOn(t, tc.build)
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
		args  map[string]any
		want  string
		build string
	}{
		"go method with its doc comment": {
			args: map[string]any{"name": "Server/Run", "include_body": true, "path": "sample.go"},
			want: "sample.go:45-48 method Server/Run\n// Run runs the server.\nfunc (s *Server) Run(ctx context.Context) error {\n\treturn nil\n}\n\n(1 symbol in 1 source file searched)",
		},
		"python method keeps indentation and decorators": {
			args:  map[string]any{"name": "Base/label", "include_body": true},
			want:  "sample.py:18-20 method Base/label\n    @property\n    def label(self):\n        return self.name.upper()\n\n(1 symbol in 5 source files searched)",
			build: cgoBuild,
		},
		"javascript export with jsdoc": {
			args:  map[string]any{"name": "greet", "include_body": true},
			want:  "sample.js:7-10 function greet\n/** Greets someone. */\nexport function greet(name) {\n  return `hello ${name}`;\n}\n\n(1 symbol in 5 source files searched)",
			build: cgoBuild,
		},
		"typescript class method": {
			args:  map[string]any{"name": "Polygon/perimeter", "include_body": true},
			want:  "sample.ts:24-26 method Polygon/perimeter\n  perimeter(length: number): number {\n    return this.sides * length;\n  }\n\n(1 symbol in 5 source files searched)",
			build: cgoBuild,
		},
		"two bodies": {
			args: map[string]any{"name": "render", "include_body": true},
			want: "sample.js:36-38 method Widget/render\n  render() {\n    return `<div>${this.name}</div>`;\n  }\n\n" +
				"sample.tsx:14-16 method Panel/render\n  render() {\n    return <section>{this.props.title}</section>;\n  }\n\n(2 symbols in 5 source files searched)",
			build: cgoBuild,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			onlyOn(t, tc.build)
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
	long.WriteString("package pkg\n\nfunc long() {\n")
	for range 449 {
		long.WriteString("\tx := 1\n")
	}
	long.WriteString("}\n")
	e := newEnv(t, map[string]string{
		"pkg/long.go":       long.String(),
		"pkg/sub/h.go":      "package sub\n\nfunc helper() {}\n",
		"pkg/sub/more/h.go": "package more\n\nfunc helper(\n\tx int,\n) {\n}\n",
		".gitignore":        "vendor/\n",
		"vendor/v.go":       "package v\n\nfunc helper() {}\n",
		"notes.txt":         "func helper() {}\n",
	})
	got, isErr := e.call(t, "find_symbol", map[string]any{"name": "helper"})
	if isErr {
		t.Fatal(got)
	}
	want := "pkg/sub/h.go:3 function helper: func helper()\npkg/sub/more/h.go:3-6 function helper: func helper(x int)\n(2 symbols in 3 source files searched)"
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("find_symbol over a tree (-want +got):\n%s", diff)
	}
	got, isErr = e.call(t, "find_symbol", map[string]any{"name": "long", "include_body": true})
	if isErr {
		t.Fatal(got)
	}
	lines := strings.Split(got, "\n")
	if lines[0] != "pkg/long.go:3-453 function long" || len(lines) != 1+400+1+1+1 {
		t.Errorf("got %d lines starting %q", len(lines), lines[0])
	}
	if want := "… (51 more lines; view_file pkg/long.go from line 403)"; lines[401] != want {
		t.Errorf("cut note %q, want %q", lines[401], want)
	}
	got, isErr = e.call(t, "find_symbol", map[string]any{"name": "helper", "path": "notes.txt"})
	if want := "notes.txt: find_symbol reads Go (.go)"; !isErr || !strings.HasPrefix(got, want) {
		t.Errorf("unsupported file: got %q (error %v), want an error starting %q", got, isErr, want)
	}
}

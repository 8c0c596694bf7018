package scaffold

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

func TestWriteFillsTheTemplateAndCopiesTheKit(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "new", "word-count")
	kit := fstest.MapFS{
		"kit.py":                          {Data: []byte("# {{NAME}} stays as it is in a kit\n")},
		"__init__.py":                     {Data: []byte("")},
		"__pycache__/kit.cpython-311.pyc": {Data: []byte("junk")},
	}
	files, err := Write(Lang{Name: "go", Kit: kit, KitDir: "vendor/kit", Vars: map[string]string{"SDK_VERSION": "v1.2.3", "SDK_REPLACE": ""}}, "word-count", dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"go.mod", "main.go", "main_test.go", "README.md", "vendor/kit/kit.py", "vendor/kit/__init__.py"} {
		if !slices.Contains(files, want) {
			t.Errorf("%s not written: %v", want, files)
		}
	}
	if slices.ContainsFunc(files, func(f string) bool { return strings.Contains(f, "__pycache__") || strings.HasSuffix(f, ".tmpl") }) {
		t.Errorf("written: %v; want no caches and no .tmpl names", files)
	}
	main, _ := os.ReadFile(filepath.Join(dir, "main.go"))
	if !strings.Contains(string(main), `sdk.NewToolbox("word-count"`) || !strings.Contains(string(main), `"word_count_greet"`) || strings.Contains(string(main), "{{") {
		t.Errorf("main.go not filled in:\n%s", main)
	}
	mod, _ := os.ReadFile(filepath.Join(dir, "go.mod"))
	if !strings.Contains(string(mod), "require github.com/ramabana/ramabana-mcp v1.2.3") {
		t.Errorf("go.mod:\n%s", mod)
	}
	kitText, _ := os.ReadFile(filepath.Join(dir, "vendor/kit/kit.py"))
	if string(kitText) != "# {{NAME}} stays as it is in a kit\n" {
		t.Errorf("the kit was changed: %q", kitText)
	}
	if entries, _ := os.ReadDir(filepath.Dir(dir)); len(entries) != 1 {
		t.Errorf("beside the new folder: %v; want no stage left", entries)
	}
}

func TestWriteRefusesAndLeavesNothing(t *testing.T) {
	parent := t.TempDir()
	full := filepath.Join(parent, "full")
	if err := os.MkdirAll(full, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(full, "keep.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ lang, name, dir, want string }{
		{"go", "hello", full, "not empty"},
		{"cobol", "hello", filepath.Join(parent, "a"), "no template"},
		{"go", "Hello", filepath.Join(parent, "b"), "lower-case"},
		{"go", "1st", filepath.Join(parent, "c"), "starting with a letter"},
		{"go", "a--b", filepath.Join(parent, "d"), "single '-'"},
		{"go", "../x", filepath.Join(parent, "e"), "lower-case"},
	} {
		_, err := Write(Lang{Name: tc.lang}, tc.name, tc.dir)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Write(%s, %q) = %v; want an error saying %q", tc.lang, tc.name, err, tc.want)
		}
	}
	entries, _ := os.ReadDir(parent)
	if len(entries) != 1 {
		t.Errorf("left behind: %v", entries)
	}
	if b, _ := os.ReadFile(filepath.Join(full, "keep.txt")); string(b) != "mine" {
		t.Errorf("an existing file was touched: %q", b)
	}
}

// An empty folder, the current one say, is written into and stays the
// folder it was: a shell in it stays in it.
func TestAnEmptyFolderIsWrittenInto(t *testing.T) {
	dir := t.TempDir()
	before, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Write(Lang{Name: "go", Vars: map[string]string{"SDK_VERSION": "v1.0.0"}}, "hello", dir); err != nil {
		t.Fatal(err)
	}
	after, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !os.SameFile(before, after) {
		t.Error("the empty folder was replaced by another; want the files moved into it")
	}
	if _, err := os.Stat(filepath.Join(dir, "main.go")); err != nil {
		t.Error(err)
	}
	if entries, _ := os.ReadDir(filepath.Dir(dir)); len(entries) != 1 {
		t.Errorf("beside the folder: %v; want no stage left", entries)
	}
	link := filepath.Join(t.TempDir(), "dangling")
	if err := os.Symlink(filepath.Join(dir, "nowhere"), link); err != nil {
		t.Fatal(err)
	}
	if _, err := Write(Lang{Name: "go", Vars: map[string]string{"SDK_VERSION": "v1.0.0"}}, "hello", link); err == nil || !strings.Contains(err.Error(), "not a folder") {
		t.Errorf("Write over a dangling symlink = %v; want a refusal", err)
	}
}

func TestGoVarsFromACheckout(t *testing.T) {
	vars, note, err := GoVars("../../..")
	if err != nil {
		t.Fatal(err)
	}
	abs, _ := filepath.Abs("../../..")
	if !strings.Contains(vars["SDK_REPLACE"], `=> "`+abs+`"`) || !strings.Contains(note, abs) {
		t.Errorf("vars %v, note %q", vars, note)
	}
	spaced := filepath.Join(t.TempDir(), "my sdk")
	if err := os.MkdirAll(spaced, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(spaced, "go.mod"), []byte("module "+ModulePath+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if vars, _, err := GoVars(spaced); err != nil || !strings.Contains(vars["SDK_REPLACE"], `=> "`+spaced+`"`) {
		t.Errorf("GoVars(a path with a space) = %q, %v; want the path quoted", vars["SDK_REPLACE"], err)
	}
	if _, _, err := GoVars(t.TempDir()); err == nil || !strings.Contains(err.Error(), "not a checkout") {
		t.Errorf("GoVars(empty dir) = %v; want a refusal", err)
	}
}

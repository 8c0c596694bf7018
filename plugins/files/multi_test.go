package files_test

import (
	"os"
	"strings"
	"testing"

	"github.com/ramabana/ramabana-mcp/sdk/sdktest"
)

// TestViewFiles: several files in one call, each under its header as
// view_file shows it; a file that cannot be shown says why and the others
// are shown; the files share one page, so a long one is cut and says so.
func TestViewFiles(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("a line of the long file, long enough to fill a page quickly\n", 2000)
	e := newEnv(t, map[string]string{"a.txt": "alpha\n", "b.txt": "beta\ngamma\n", "long.txt": long}, false)
	if err := os.WriteFile(e.path("bin.dat"), []byte{0, 1, 2, 0, 255}, 0o644); err != nil {
		t.Fatal(err)
	}
	res := sdktest.Call(t, e.g, "view_files", map[string]any{"paths": []string{"a.txt", "missing.txt", "b.txt", "bin.dat"}})
	got := res.Text()
	if res.IsError {
		t.Fatalf("view_files: %s", got)
	}
	for _, want := range []string{"==> a.txt <==\n1|", "|alpha", "==> missing.txt <==\nmissing.txt does not exist", "==> b.txt <==\n1|", "|gamma", "==> bin.dat <==\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("view_files lacks %q:\n%s", want, got)
		}
	}
	view := sdktest.Call(t, e.g, "view_file", map[string]any{"path": "b.txt"}).Text()
	if !strings.Contains(got, "==> b.txt <==\n"+view) {
		t.Errorf("b.txt is not shown as view_file shows it:\n%s\nview_file:\n%s", got, view)
	}
	res = sdktest.Call(t, e.g, "view_files", map[string]any{"paths": []string{"long.txt", "a.txt"}})
	if got := res.Text(); len(got) > 40<<10 || !strings.Contains(got, "==> a.txt <==") || !strings.Contains(got, "|alpha") {
		t.Errorf("a long file starved the next one, or the page grew past its bound (%d bytes):\n%.300s", len(got), got)
	}
	if res := sdktest.Call(t, e.g, "view_files", map[string]any{"paths": []string{}}); !res.IsError {
		t.Error("an empty list was accepted")
	}
}

// TestFileInfo: kind, size, time and mode; for text its encoding and
// line count; binary said as such; a link says where it points.
func TestFileInfo(t *testing.T) {
	t.Parallel()
	e := newEnv(t, map[string]string{"a.txt": "one\ntwo\n", "dir/x": ""}, false)
	if err := os.WriteFile(e.path("bin.dat"), []byte{0, 1, 2, 0, 255}, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("a.txt", e.path("link")); err != nil {
		t.Fatal(err)
	}
	got := sdktest.Call(t, e.g, "file_info", map[string]any{"paths": []string{"a.txt", "dir", "bin.dat", "link", "nope"}}).Text()
	for _, want := range []string{"a.txt: file, 8 bytes, mode -rw-r--r--, modified ", "UTF-8 text, 2 lines", "dir: folder", "bin.dat: file, 5 bytes", ", binary", "link: symbolic link to a.txt", "nope: does not exist"} {
		if !strings.Contains(got, want) {
			t.Errorf("file_info lacks %q:\n%s", want, got)
		}
	}
}

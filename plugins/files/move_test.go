package files_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ramabana/ramabana-mcp/sdk/sdktest"
)

// exists reports whether path is there (not following a last symlink).
func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

func TestMoveFile(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		args    map[string]any
		want    string // result text, or a substring of the error
		wantErr bool
		gone    []string          // paths no longer there
		there   map[string]string // path → content after
	}{
		"rename": {args: map[string]any{"from": "a.txt", "to": "b.txt"}, want: "moved a.txt to b.txt",
			gone: []string{"a.txt"}, there: map[string]string{"b.txt": "alpha"}},
		"into new folders": {args: map[string]any{"from": "a.txt", "to": "x/y/a.txt"}, want: "moved a.txt to x/y/a.txt",
			gone: []string{"a.txt"}, there: map[string]string{"x/y/a.txt": "alpha"}},
		"existing refused": {args: map[string]any{"from": "a.txt", "to": "keep.txt"}, want: "keep.txt already exists; set overwrite=true", wantErr: true,
			there: map[string]string{"a.txt": "alpha", "keep.txt": "kept"}},
		"overwrite": {args: map[string]any{"from": "a.txt", "to": "keep.txt", "overwrite": true}, want: "moved a.txt to keep.txt (replacing the file there)",
			gone: []string{"a.txt"}, there: map[string]string{"keep.txt": "alpha"}},
		"folder needs directory": {args: map[string]any{"from": "dir", "to": "moved"}, want: "dir is a folder; set directory=true", wantErr: true,
			there: map[string]string{"dir/inner.txt": "inner"}},
		"folder": {args: map[string]any{"from": "dir", "to": "moved", "directory": true}, want: "moved dir to moved",
			gone: []string{"dir"}, there: map[string]string{"moved/inner.txt": "inner"}},
		"missing": {args: map[string]any{"from": "nope.txt", "to": "b.txt"}, want: "nope.txt does not exist", wantErr: true},
		"outside": {args: map[string]any{"from": "a.txt", "to": "../escaped.txt"}, want: "only inside the served folders", wantErr: true,
			there: map[string]string{"a.txt": "alpha"}},
		"onto a folder": {args: map[string]any{"from": "a.txt", "to": "dir", "overwrite": true}, want: "dir is a folder", wantErr: true,
			there: map[string]string{"a.txt": "alpha"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, map[string]string{"a.txt": "alpha", "keep.txt": "kept", "dir/inner.txt": "inner"}, false)
			res := sdktest.Call(t, e.g, "move_file", tc.args)
			if res.IsError != tc.wantErr || !strings.Contains(res.Text(), tc.want) {
				t.Fatalf("move_file %v = %q (error %v), want %q (error %v)", tc.args, res.Text(), res.IsError, tc.want, tc.wantErr)
			}
			for _, p := range tc.gone {
				if exists(e.path(p)) {
					t.Errorf("%s still there", p)
				}
			}
			for p, want := range tc.there {
				if b, err := os.ReadFile(e.path(p)); err != nil || string(b) != want {
					t.Errorf("%s = %q, %v; want %q", p, b, err, want)
				}
			}
			if exists(filepath.Join(filepath.Dir(e.dir), "escaped.txt")) {
				t.Error("a file was moved out of the served folder")
			}
			if !tc.wantErr && tc.there["b.txt"] == "alpha" && (len(res.Changes) != 2 || res.Changes[0].AfterSHA256 != "" || res.Changes[1].AfterSHA256 != sum("alpha")) {
				t.Errorf("changes = %+v, want a.txt deleted and b.txt created with its content", res.Changes)
			}
			noTempFiles(t, e.dir)
		})
	}
}

func TestDeleteFile(t *testing.T) {
	t.Parallel()
	e := newEnv(t, map[string]string{"a.txt": "alpha", "dir/inner.txt": "inner", "target.txt": "kept"}, false)
	if err := os.Symlink("target.txt", e.path("link")); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args    map[string]any
		want    string
		wantErr bool
		gone    string
	}{
		{map[string]any{"path": "a.txt"}, "deleted a.txt (5 bytes)", false, "a.txt"},
		{map[string]any{"path": "a.txt"}, "a.txt does not exist", true, ""},
		{map[string]any{"path": "dir"}, "dir is a folder; set directory=true", true, ""},
		{map[string]any{"path": "dir", "directory": true}, "deleted the folder dir with everything in it", false, "dir"},
		{map[string]any{"path": "link"}, "deleted link", false, "link"},
		{map[string]any{"path": ".", "directory": true}, "served folder itself", true, ""},
		{map[string]any{"path": "../outside"}, "only inside the served folders", true, ""},
	} {
		res := sdktest.Call(t, e.g, "delete_file", tc.args)
		if res.IsError != tc.wantErr || !strings.Contains(res.Text(), tc.want) {
			t.Errorf("delete_file %v = %q (error %v), want %q (error %v)", tc.args, res.Text(), res.IsError, tc.want, tc.wantErr)
		}
		if tc.gone != "" && exists(e.path(tc.gone)) {
			t.Errorf("%s still there", tc.gone)
		}
	}
	if b, err := os.ReadFile(e.path("target.txt")); err != nil || string(b) != "kept" {
		t.Errorf("deleting a link touched its target: %q, %v", b, err)
	}
	if !exists(e.dir) {
		t.Error("the served folder was deleted")
	}
}

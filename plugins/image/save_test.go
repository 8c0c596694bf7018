package image

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ramabana/ramabana-mcp/sdk"
	"github.com/ramabana/ramabana-mcp/sdk/sdktest"
)

func TestSave(t *testing.T) {
	t.Parallel()
	f := newProvider(t)
	outside := served(t)
	tests := map[string]struct {
		mode   string
		write  bool
		files  map[string]string // present before the call
		link   [2]string         // a symlink: name, target
		args   map[string]any
		want   string // in the text
		err    string // the call fails
		image  bool   // the failed call still returns the image
		saved  map[string][]byte
		absent []string
	}{
		"new file, new folder":  {mode: "ok", write: true, args: map[string]any{"path": "art/cat.png"}, want: "Saved to art/cat.png.", saved: map[string][]byte{"art/cat.png": nil}},
		"absolute path inside":  {mode: "ok", write: true, args: map[string]any{"path": "ROOT/cat.PNG"}, want: "Saved to cat.PNG.", saved: map[string][]byte{"cat.PNG": nil}},
		"existing file refused": {mode: "ok", write: true, files: map[string]string{"cat.png": "old"}, args: map[string]any{"path": "cat.png"}, err: "cat.png already exists (3 bytes); set overwrite=true to replace it", saved: map[string][]byte{"cat.png": []byte("old")}},
		"overwrite":             {mode: "ok", write: true, files: map[string]string{"cat.png": "old"}, args: map[string]any{"path": "cat.png", "overwrite": true}, want: "Replaced cat.png.", saved: map[string][]byte{"cat.png": nil}},
		"read-only server":      {mode: "ok", args: map[string]any{"path": "cat.png"}, err: "this server is read-only (ramabana-mcp was started without --write). Call again without path", absent: []string{"cat.png"}},
		"not an image name":     {mode: "ok", write: true, args: map[string]any{"path": "cat.gif"}, err: `path "cat.gif" must end in .png, .jpg, .jpeg or .webp`, absent: []string{"cat.gif"}},
		"no extension":          {mode: "ok", write: true, args: map[string]any{"path": "cat"}, err: "must end in .png", absent: []string{"cat"}},
		"outside the roots":     {mode: "ok", write: true, args: map[string]any{"path": filepath.Join(outside, "cat.png")}, err: "images can be saved only inside the served folders"},
		"dot-dot out":           {mode: "ok", write: true, args: map[string]any{"path": "../escape.png"}, err: "images can be saved only inside the served folders"},
		"symlink out":           {mode: "ok", write: true, link: [2]string{"out", outside}, args: map[string]any{"path": "out/cat.png"}, err: "images can be saved only inside the served folders"},
		"a directory":           {mode: "ok", write: true, files: map[string]string{"d.png/x": ""}, args: map[string]any{"path": "d.png"}, err: "d.png is a directory"},
		"JPEG for a .png name":  {mode: "jpeg", write: true, args: map[string]any{"path": "art/cat.png"}, want: "Saved to art/cat.jpg (the provider made a JPEG image, so the name ends in .jpg, not .png).", saved: map[string][]byte{"art/cat.jpg": nil}, absent: []string{"art/cat.png"}},
		"JPEG name taken":       {mode: "jpeg", write: true, files: map[string]string{"cat.jpg": "old"}, args: map[string]any{"path": "cat.png"}, err: "The image was generated but not saved: cat.jpg already exists (3 bytes)", image: true, saved: map[string][]byte{"cat.jpg": []byte("old")}, absent: []string{"cat.png"}},
		"provider fails":        {mode: "fail", write: true, args: map[string]any{"path": "cat.png"}, err: "HTTP 500", absent: []string{"cat.png"}},
		".jpeg kept for JPEG":   {mode: "jpeg", write: true, args: map[string]any{"path": "cat.jpeg"}, want: "Saved to cat.jpeg.", saved: map[string][]byte{"cat.jpeg": nil}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			root := served(t)
			for p, content := range tc.files {
				full := filepath.Join(root, p)
				if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if tc.link[0] != "" {
				if err := os.Symlink(tc.link[1], filepath.Join(root, tc.link[0])); err != nil {
					t.Fatal(err)
				}
			}
			args := map[string]any{"prompt": "a cat"}
			for k, v := range tc.args {
				if s, ok := v.(string); ok {
					v = strings.Replace(s, "ROOT", root, 1)
				}
				args[k] = v
			}
			host := sdk.Host{Web: true, Write: tc.write, Roots: []string{root}, ConfigDir: providerConfig(t, f, tc.mode, "")}
			g := connect(t, testServer(nil), host)
			res := sdktest.Call(t, g, "generate_image", args)
			if tc.err != "" {
				if !res.IsError || !strings.Contains(res.Text(), tc.err) {
					t.Errorf("got error=%t %q; want an error containing %q", res.IsError, res.Text(), tc.err)
				}
				if (imageOf(res) != nil) != tc.image {
					t.Errorf("image returned: %t, want %t", imageOf(res) != nil, tc.image)
				}
			} else {
				if res.IsError {
					t.Fatalf("unexpected error: %s", res.Text())
				}
				if !strings.Contains(res.Text(), tc.want) {
					t.Errorf("text %q, want it to contain %q", res.Text(), tc.want)
				}
				if len(res.Changes) != 1 || res.Changes[0].AfterSHA256 == "" {
					t.Errorf("changes %+v, want the saved file", res.Changes)
				}
			}
			img := imageOf(res)
			for p, want := range tc.saved {
				got, err := os.ReadFile(filepath.Join(root, p))
				if want == nil && img != nil {
					want = img.Data
				}
				if err != nil || !bytes.Equal(got, want) {
					t.Errorf("%s holds %d bytes (%v), want %d", p, len(got), err, len(want))
				}
			}
			for _, p := range tc.absent {
				if _, err := os.Lstat(filepath.Join(root, p)); err == nil {
					t.Errorf("%s exists", p)
				}
			}
			if entries, _ := os.ReadDir(outside); len(entries) > 0 {
				t.Errorf("written outside the served folder: %v", entries)
			}
		})
	}
}

// TestRefusedPathCostsNothing: a path the call cannot save to is refused
// before the provider is asked, so the user pays for no image.
func TestRefusedPathCostsNothing(t *testing.T) {
	t.Parallel()
	f := newProvider(t)
	root := served(t)
	if err := os.WriteFile(filepath.Join(root, "cat.png"), []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := providerConfig(t, f, "ok", "")
	for _, tc := range []struct {
		write bool
		path  string
	}{
		{false, "new.png"}, {true, "cat.png"}, {true, "cat.gif"}, {true, "../out.png"},
	} {
		g := connect(t, testServer(nil), sdk.Host{Web: true, Write: tc.write, Roots: []string{root}, ConfigDir: cfg})
		if res := sdktest.Call(t, g, "generate_image", map[string]any{"prompt": "a cat", "path": tc.path}); !res.IsError {
			t.Errorf("%s (write %t) saved: %s", tc.path, tc.write, res.Text())
		}
	}
	if n := len(f.requestsSeen()); n != 0 {
		t.Errorf("%d requests reached the provider", n)
	}
}

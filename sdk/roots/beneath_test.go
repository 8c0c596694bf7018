package roots

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBeneathAndRootAgree opens the same names through openat2 and through
// os.Root (the fallback where the kernel lacks openat2): links that stay
// inside work, links that leave fail, whatever path led there; a walk's
// listing is sorted. Not parallel: it switches the package between the two.
func TestBeneathAndRootAgree(t *testing.T) {
	base := t.TempDir()
	root, outside := filepath.Join(base, "root"), filepath.Join(base, "outside")
	for _, d := range []string{filepath.Join(root, "sub"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for p, s := range map[string]string{filepath.Join(root, "sub", "in.txt"): "inside", filepath.Join(outside, "secret"): "SECRET"} {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, target := range map[string]string{
		"link-in":  "sub/in.txt",
		"link-out": "../outside",
		"abs-out":  outside,
		"abs-in":   filepath.Join(root, "sub"), // os.Root and RESOLVE_BENEATH both refuse absolute links
	} {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	defer beneathWorks.Store(haveBeneath)
	for _, mode := range []struct {
		name    string
		beneath bool
	}{{"openat2", true}, {"os.Root", false}} {
		if mode.beneath && !haveBeneath {
			continue
		}
		t.Run(mode.name, func(t *testing.T) {
			beneathWorks.Store(mode.beneath)
			r, err := New([]string{root}, false)
			if err != nil {
				t.Fatal(err)
			}
			if got := r.handles[0].dir != nil; got != mode.beneath {
				t.Fatalf("handle has a directory descriptor: %v, want %v", got, mode.beneath)
			}
			top, err := r.Read(".")
			if err != nil {
				t.Fatal(err)
			}
			for name, want := range map[string]string{
				"sub/in.txt": "inside", "link-in": "inside",
				"link-out/secret": "", "abs-out/secret": "", "abs-in/in.txt": "", "sub/../../outside/secret": "",
			} {
				f, err := top.Join(name).Open()
				if want == "" {
					if err == nil {
						f.Close()
						t.Errorf("%s opened, want a refusal", name)
					}
					continue
				}
				if err != nil {
					t.Errorf("%s: %v", name, err)
					continue
				}
				b := make([]byte, 64)
				n, _ := f.Read(b)
				f.Close()
				if string(b[:n]) != want {
					t.Errorf("%s read %q, want %q", name, b[:n], want)
				}
			}
			fsys, dir, closeFS, err := top.FS()
			if err != nil {
				t.Fatal(err)
			}
			defer closeFS()
			entries, err := fs.ReadDir(fsys, dir)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, e := range entries {
				names = append(names, e.Name())
			}
			if got := strings.Join(names, " "); got != "abs-in abs-out link-in link-out sub" {
				t.Errorf("ReadDir = %s", got)
			}
			if fi, err := fs.Stat(fsys, "sub/in.txt"); err != nil || fi.Size() != 6 {
				t.Errorf("Stat sub/in.txt = %v, %v", fi, err)
			}
			if _, err := fs.ReadFile(fsys, "link-out/secret"); err == nil {
				t.Error("ReadFile through a link out succeeded")
			}
			if _, err := fs.Stat(fsys, "missing"); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("Stat missing = %v, want not exist", err)
			}
		})
	}
}

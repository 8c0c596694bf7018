package roots_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ramabana/ramabana-mcp/sdk/roots"
)

// fixture lays out:
//
//	base/root/           served
//	base/root/a.txt
//	base/root/sub/b.txt
//	base/root/in-link    -> sub/b.txt
//	base/root/in-dir     -> sub
//	base/root/out-file   -> base/outside/secret.txt
//	base/root/out-dir    -> base/outside
//	base/root/dangling   -> base/outside/missing.txt
//	base/root/dangling-in -> new.txt (inside, missing)
//	base/root/loop       -> loop
//	base/other/          second root
//	base/outside/secret.txt
func fixture(t *testing.T) (base string) {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(base, "root")
	for _, d := range []string{"root/sub", "other", "outside"} {
		if err := os.MkdirAll(filepath.Join(base, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"root/a.txt", "root/sub/b.txt", "outside/secret.txt", "other/c.txt"} {
		if err := os.WriteFile(filepath.Join(base, f), []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{
		"in-link":     "sub/b.txt",
		"in-dir":      "sub",
		"out-file":    filepath.Join(base, "outside/secret.txt"),
		"out-dir":     filepath.Join(base, "outside"),
		"out-rel":     "../outside",
		"dangling":    filepath.Join(base, "outside/missing.txt"),
		"dangling-in": "new.txt",
		"loop":        "loop",
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	return base
}

func TestResolve(t *testing.T) {
	t.Parallel()
	base := fixture(t)
	root := filepath.Join(base, "root")
	other := filepath.Join(base, "other")
	r, err := roots.New([]string{root, other}, false)
	if err != nil {
		t.Fatal(err)
	}
	ro, err := roots.New([]string{root, other}, true)
	if err != nil {
		t.Fatal(err)
	}
	const outside = "!outside"
	tests := map[string]struct {
		path string
		want string // relative to base; "outside" for ErrOutside
		// wantReadOutside is the read result with readOutside; "" means want.
		wantReadOutside string
	}{
		"relative file":          {path: "a.txt", want: "root/a.txt"},
		"relative nested":        {path: "sub/b.txt", want: "root/sub/b.txt"},
		"dot":                    {path: ".", want: "root"},
		"root itself":            {path: root, want: "root"},
		"second root absolute":   {path: filepath.Join(other, "c.txt"), want: "other/c.txt"},
		"missing file":           {path: "sub/new.txt", want: "root/sub/new.txt"},
		"missing dirs":           {path: "x/y/z.txt", want: "root/x/y/z.txt"},
		"dotdot inside":          {path: "sub/../a.txt", want: "root/a.txt"},
		"symlink inside":         {path: "in-link", want: "root/sub/b.txt"},
		"symlink dir inside":     {path: "in-dir/b.txt", want: "root/sub/b.txt"},
		"dangling inside":        {path: "dangling-in", want: "root/new.txt"},
		"dotdot escape":          {path: "../outside/secret.txt", want: outside, wantReadOutside: "outside/secret.txt"},
		"dotdot to base":         {path: "..", want: outside, wantReadOutside: "."},
		"absolute outside":       {path: filepath.Join(base, "outside/secret.txt"), want: outside, wantReadOutside: "outside/secret.txt"},
		"symlink to outside":     {path: "out-file", want: outside, wantReadOutside: "outside/secret.txt"},
		"symlink dir to outside": {path: "out-dir/secret.txt", want: outside, wantReadOutside: "outside/secret.txt"},
		"relative link outside":  {path: "out-rel/secret.txt", want: outside, wantReadOutside: "outside/secret.txt"},
		"new file via link dir":  {path: "out-dir/new.txt", want: outside, wantReadOutside: "outside/new.txt"},
		"dangling to outside":    {path: "dangling", want: outside, wantReadOutside: "outside/missing.txt"},
		"symlink dir itself":     {path: "out-dir", want: outside, wantReadOutside: "outside"},
		"prefix sibling":         {path: root + "x/file", want: outside, wantReadOutside: "rootx/file"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			check := func(what, want string, got string, err error) {
				t.Helper()
				if want == outside {
					if !errors.Is(err, roots.ErrOutside) {
						t.Fatalf("%s(%q) = %q, %v; want ErrOutside", what, tc.path, got, err)
					}
					if !strings.Contains(err.Error(), tc.path) || !strings.Contains(err.Error(), root+", "+other) {
						t.Errorf("%s error %q should name the path and the roots", what, err)
					}
					return
				}
				if err != nil {
					t.Fatalf("%s(%q): %v", what, tc.path, err)
				}
				if diff := cmp.Diff(filepath.Join(base, want), got); diff != "" {
					t.Errorf("%s(%q) (-want +got):\n%s", what, tc.path, diff)
				}
			}
			got, err := r.ResolveRead(tc.path)
			check("ResolveRead", tc.want, got, err)
			got, err = r.ResolveWrite(tc.path)
			check("ResolveWrite", tc.want, got, err)
			got, err = ro.ResolveWrite(tc.path)
			check("ResolveWrite with read-outside", tc.want, got, err)
			wantRO := tc.wantReadOutside
			if wantRO == "" {
				wantRO = tc.want
			}
			got, err = ro.ResolveRead(tc.path)
			check("ResolveRead with read-outside", wantRO, got, err)
		})
	}
}

func TestResolveFaults(t *testing.T) {
	t.Parallel()
	base := fixture(t)
	r, err := roots.New([]string{filepath.Join(base, "root")}, false)
	if err != nil {
		t.Fatal(err)
	}
	for name, p := range map[string]string{"empty": "", "loop": "loop", "nul": "a\x00b"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if got, err := r.ResolveRead(p); err == nil || errors.Is(err, roots.ErrOutside) {
				t.Errorf("ResolveRead(%q) = %q, %v; want an error other than ErrOutside", p, got, err)
			}
		})
	}
}

func TestNoRoots(t *testing.T) {
	t.Parallel()
	r, err := roots.New(nil, true)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.ResolveRead("a.txt"); !errors.Is(err, roots.ErrOutside) {
		t.Errorf("relative path with no roots: %v; want ErrOutside", err)
	}
	if _, err := r.ResolveWrite("/tmp/x"); !errors.Is(err, roots.ErrOutside) {
		t.Errorf("write with no roots: %v; want ErrOutside", err)
	}
}

func TestNew(t *testing.T) {
	t.Parallel()
	base := fixture(t)
	tests := map[string]struct {
		dirs    []string
		wantErr bool
	}{
		"relative": {dirs: []string{"root"}, wantErr: true},
		"missing":  {dirs: []string{filepath.Join(base, "nope")}, wantErr: true},
		"file":     {dirs: []string{filepath.Join(base, "root/a.txt")}, wantErr: true},
		"unclean":  {dirs: []string{filepath.Join(base, "root/in-dir/../sub/")}},
		// The host sends folders resolved: one that is a link now was
		// swapped since (see TestServedFolderSwappedForALink).
		"symlink": {dirs: []string{filepath.Join(base, "root/sub/../in-dir/")}, wantErr: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r, err := roots.New(tc.dirs, false)
			if (err != nil) != tc.wantErr {
				t.Fatalf("New(%q) error = %v, want error %v", tc.dirs, err, tc.wantErr)
			}
			if err == nil {
				if diff := cmp.Diff([]string{filepath.Join(base, "root/sub")}, r.List()); diff != "" {
					t.Errorf("List (-want +got):\n%s", diff)
				}
			}
		})
	}
}

func TestRel(t *testing.T) {
	t.Parallel()
	base := fixture(t)
	root := filepath.Join(base, "root")
	other := filepath.Join(base, "other")
	r, err := roots.New([]string{root, other}, true)
	if err != nil {
		t.Fatal(err)
	}
	tests := map[string]struct{ abs, want string }{
		"root":         {abs: root, want: "."},
		"in first":     {abs: filepath.Join(root, "sub/b.txt"), want: filepath.Join("sub", "b.txt")},
		"in second":    {abs: filepath.Join(other, "c.txt"), want: filepath.Join(other, "c.txt")},
		"outside":      {abs: filepath.Join(base, "outside"), want: filepath.Join(base, "outside")},
		"prefix trick": {abs: root + "x", want: root + "x"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got := r.Rel(tc.abs)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Rel (-want +got):\n%s", diff)
			}
			back, err := r.ResolveRead(got)
			if err != nil || back != tc.abs {
				t.Errorf("ResolveRead(Rel(%q)) = %q, %v; want it back", tc.abs, back, err)
			}
		})
	}
}

// TestServedFolderSwappedForALink: a nested served folder replaced by a
// link to elsewhere (a checkout or a command can do it) is refused when the
// plugin opens the folders again, rather than served where the link points.
func TestServedFolderSwappedForALink(t *testing.T) {
	t.Parallel()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	outer, sub, secret := filepath.Join(base, "p"), filepath.Join(base, "p", "sub"), filepath.Join(base, "secret")
	for _, d := range []string{sub, secret} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := roots.New([]string{outer, sub}, false); err != nil {
		t.Fatalf("before the swap: %v", err)
	}
	if err := os.Remove(sub); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, sub); err != nil {
		t.Fatal(err)
	}
	_, err = roots.New([]string{outer, sub}, false)
	if !errors.Is(err, roots.ErrChanged) || !strings.Contains(err.Error(), secret) {
		t.Fatalf("after the swap: %v, want ErrChanged naming %s", err, secret)
	}
}

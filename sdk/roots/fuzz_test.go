package roots_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/ramabana/ramabana-mcp/sdk/roots"
)

// FuzzResolve resolves any path string in the fixture's tree (symlinks to
// outside, dangling links, loops): it never panics, and a path that
// resolves without an error lies inside a root, for reads and writes
// alike; so does its Target.
func FuzzResolve(f *testing.F) {
	for _, p := range []string{"a.txt", "../outside/secret.txt", "out-dir/x", "in-dir/../out-rel/secret.txt", "dangling", "loop/x", "/", "sub/./b.txt", "a\x00b", strings.Repeat("x/", 300)} {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, p string) {
		base := fixture(t)
		served := []string{filepath.Join(base, "root"), filepath.Join(base, "other")}
		r, err := roots.New(served, false)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		inside := func(abs string) bool {
			for _, s := range served {
				if abs == s || strings.HasPrefix(abs, s+"/") {
					return true
				}
			}
			return false
		}
		for _, resolve := range []func(string) (string, error){r.ResolveRead, r.ResolveWrite} {
			if abs, err := resolve(p); err == nil && !inside(abs) {
				t.Fatalf("%q resolved to %q, outside the roots", p, abs)
			}
		}
		if tg, err := r.Write(p); err == nil {
			if !tg.Inside() || !inside(tg.Abs) {
				t.Fatalf("%q: write target %q is outside", p, tg.Abs)
			}
			if f, err := tg.Open(); err == nil {
				_ = f.Close()
			}
		}
	})
}

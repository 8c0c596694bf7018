package atomicfile

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// TestUpdateKeepsXattrs sets user.* attributes on a file and checks that a
// rewrite keeps them.
func TestUpdateKeepsXattrs(t *testing.T) {
	t.Parallel()
	dir, root := openDir(t)
	path := filepath.Join(dir, "f.txt")
	mustWrite(t, path, "old", 0o644)
	attrs := map[string]string{"user.origin": "https://example.com/x", "user.empty": "", "user.bin": "\x00\x01\xff"}
	for k, v := range attrs {
		if err := unix.Setxattr(path, k, []byte(v), 0); err != nil {
			if errors.Is(err, unix.ENOTSUP) || errors.Is(err, unix.EPERM) {
				t.Skipf("this file system refuses user.* extended attributes: %v", err)
			}
			t.Fatal(err)
		}
	}
	if err := Update(t.Context(), root, "f.txt", nil, replaceWith("new")); err != nil {
		t.Fatal(err)
	}
	for k, want := range attrs {
		buf := make([]byte, 256)
		n, err := unix.Getxattr(path, k, buf)
		if err != nil || string(buf[:n]) != want {
			t.Errorf("%s = %q (%v), want %q", k, buf[:max(n, 0)], err, want)
		}
	}
}

// TestUpdateAllKeepsXattrs sets a user.* attribute on each file of an
// UpdateAll and checks that the rewrite keeps them, and so does the
// restore after a failed rename.
func TestUpdateAllKeepsXattrs(t *testing.T) {
	t.Parallel()
	for _, restore := range []bool{false, true} {
		m := newMulti(t)
		var paths []string
		for _, f := range multiFiles {
			p := m.path(f.dir, f.name)
			if err := unix.Setxattr(p, "user.origin", []byte(f.name), 0); err != nil {
				if errors.Is(err, unix.ENOTSUP) || errors.Is(err, unix.EPERM) {
					t.Skipf("this file system refuses user.* extended attributes: %v", err)
				}
				t.Fatal(err)
			}
			paths = append(paths, p)
		}
		ctx := t.Context()
		if restore {
			ctx = context.WithValue(ctx, renameHookKey{}, func(i int) error {
				if i == 2 {
					return errors.New("boom")
				}
				return nil
			})
		}
		if err := UpdateAll(ctx, m.changes(func(int) Edit { return replaceWith("new") })); (err != nil) != restore {
			t.Fatalf("UpdateAll = %v", err)
		}
		for i, p := range paths {
			buf := make([]byte, 256)
			n, err := unix.Getxattr(p, "user.origin", buf)
			if want := multiFiles[i].name; err != nil || string(buf[:n]) != want {
				t.Errorf("restore %v: %s: user.origin = %q (%v), want %q", restore, p, buf[:max(n, 0)], err, want)
			}
		}
	}
}

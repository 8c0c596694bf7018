//go:build unix

package atomicfile

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestUpdateKeepsOwner gives the file another owner and group (as root)
// and checks that a rewrite keeps them.
func TestUpdateKeepsOwner(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("giving a file another owner needs root")
	}
	dir, root := openDir(t)
	path := filepath.Join(dir, "f.txt")
	mustWrite(t, path, "old", 0o640)
	if err := os.Chown(path, 4321, 8765); err != nil {
		t.Fatal(err)
	}
	if err := Update(t.Context(), root, "f.txt", nil, replaceWith("new")); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(path)
	st := fi.Sys().(*syscall.Stat_t)
	if st.Uid != 4321 || st.Gid != 8765 || fi.Mode().Perm() != 0o640 {
		t.Errorf("owner %d:%d mode %v, want 4321:8765 -rw-r-----", st.Uid, st.Gid, fi.Mode())
	}
}

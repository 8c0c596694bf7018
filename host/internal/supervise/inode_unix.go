//go:build unix

package supervise

import (
	"os"
	"syscall"
)

// inode is the file's inode number and its change time in ns.
func inode(fi os.FileInfo) (uint64, int64) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return st.Ino, ctimeOf(st)
	}
	return 0, 0
}

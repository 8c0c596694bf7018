package supervise

import (
	"os"
	"time"
)

// Fingerprint identifies the binary a plugin was started from, so a
// replaced binary (a new install, a rebuild) is told from an untouched one.
type Fingerprint struct {
	size  int64
	mtime time.Time
	ino   uint64
	ctime int64 // the inode's change time (ns; 0 where there is none): a rewrite that restores the mtime still changes it
}

// FingerprintOf is the fingerprint of src's binary as it is now; the zero
// value when it cannot be read.
func FingerprintOf(src Source) Fingerprint {
	fi, err := os.Stat(src.Path)
	if err != nil {
		return Fingerprint{}
	}
	ino, ctime := inode(fi)
	return Fingerprint{size: fi.Size(), mtime: fi.ModTime(), ino: ino, ctime: ctime}
}

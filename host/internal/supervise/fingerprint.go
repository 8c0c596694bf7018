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
}

// FingerprintOf is the fingerprint of src's binary as it is now; the zero
// value when it cannot be read.
func FingerprintOf(src Source) Fingerprint {
	fi, err := os.Stat(src.Path)
	if err != nil {
		return Fingerprint{}
	}
	return Fingerprint{size: fi.Size(), mtime: fi.ModTime(), ino: inode(fi)}
}

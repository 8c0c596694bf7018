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

// selfExe names the running binary's own file where the system has one:
// on Linux it is the inode the process was started from, even after a
// new build was renamed over its path.
const selfExe = "/proc/self/exe"

// Running reports whether f is the fingerprint of the binary this process
// runs: a description the process gives of itself may be kept under f.
// Where the system does not say which file the process runs, f is taken
// to be it when it is the fingerprint of a file at all.
func (f Fingerprint) Running() bool {
	if f == (Fingerprint{}) {
		return false
	}
	fi, err := os.Stat(selfExe)
	if err != nil {
		return true
	}
	ino, ctime := inode(fi)
	return f == Fingerprint{size: fi.Size(), mtime: fi.ModTime(), ino: ino, ctime: ctime}
}

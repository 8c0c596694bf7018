//go:build !unix

package atomicfile

import (
	"io/fs"
	"os"
)

const nonblock = 0

// lock is a no-op where flock is not available.
func lock(*os.File) error { return nil }

func keepOwner(*os.File, fs.FileInfo) error { return nil }

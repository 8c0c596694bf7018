//go:build !unix

package atomicfile

import (
	"io/fs"
	"os"
)

const nonblock = 0

// tryLock is a no-op where flock is not available.
func tryLock(*os.File) (busy bool, err error) { return false, nil }

func keepOwner(*os.File, fs.FileInfo) error { return nil }

// fileKey orders files for locking; without flock any order will do.
func fileKey(fs.FileInfo) (dev, ino uint64) { return 0, 0 }

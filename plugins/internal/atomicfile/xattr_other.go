//go:build !linux

package atomicfile

import "os"

// copyXattrs keeps extended attributes on Linux only.
func copyXattrs(_, _ *os.File) error { return nil }

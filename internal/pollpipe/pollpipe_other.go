//go:build !linux

package pollpipe

import (
	"io"
	"os"
)

// Open returns f: only Linux opens a pipe anew through /proc, with an open
// file description of its own that can be made non-blocking without
// changing f's.
func Open(f *os.File) io.ReadCloser { return f }

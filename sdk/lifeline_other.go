//go:build !linux

package sdk

import (
	"io"
	"os"
)

// pollable returns f: only Linux opens a pipe anew through /proc, with an
// open file description of its own that could be made non-blocking
// without changing stdin's.
func pollable(f *os.File) io.Reader { return f }

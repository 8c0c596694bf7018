//go:build !unix

package sdk

import (
	"io"
	"os"
)

// pollable returns f: where there is no unix pipe to poll, the lifeline
// is read as it is.
func pollable(f *os.File) io.Reader { return f }

//go:build !linux && !darwin && !dragonfly && !freebsd && !netbsd && !openbsd

package cliflag

import "os"

// IsTerminal reports false: this system has no check; the terminal hint
// is not printed.
func IsTerminal(*os.File) bool { return false }

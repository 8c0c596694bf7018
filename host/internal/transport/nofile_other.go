//go:build !unix

package transport

// openFileLimit is the process's soft limit on open files: unknown here.
func openFileLimit() int { return 0 }

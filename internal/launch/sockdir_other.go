//go:build !unix

package launch

// socketDir is "" where plugins do not talk over Unix sockets: go-plugin
// chooses.
func socketDir() (string, error) { return "", nil }

// RemoveSocketDir does nothing here.
func RemoveSocketDir() {}

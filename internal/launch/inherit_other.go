//go:build !unix

package launch

// CloseInheritedOnExec does nothing where handles are not inherited unless
// marked so (Windows).
func CloseInheritedOnExec() error { return nil }

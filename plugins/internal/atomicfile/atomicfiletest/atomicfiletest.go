// Package atomicfiletest holds what the tests of atomicfile and of the
// tools that write through it share: a timing variable set for one test,
// another program's lock on a file, and waiting until a plugin has opened
// one.
package atomicfiletest

import "testing"

// Set sets *p to v for one test, which must not run in parallel, and
// restores it after: a package's timing variable, such as
// atomicfile.LockTimeout.
func Set[T any](t *testing.T, p *T, v T) {
	old := *p
	*p = v
	t.Cleanup(func() { *p = old })
}

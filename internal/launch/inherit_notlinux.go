//go:build unix && !linux

package launch

// closeRangeOnExec reports false: the descriptors are listed and marked one
// by one (see CloseInheritedOnExec).
func closeRangeOnExec() bool { return false }

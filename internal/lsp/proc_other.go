//go:build !linux

package lsp

// waitExit cannot wait without reaping here: the process group is killed
// after the server is reaped instead, which its surviving members keep
// safe (a group's id is not reused while one of them lives).
func waitExit(int) bool { return false }

//go:build race

package e2e

// raceFlags builds the binary under test with the race detector when the
// tests run with it, so races in the host process are caught too.
var raceFlags = []string{"-race"}

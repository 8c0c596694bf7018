//go:build race

package e2e

import "os"

// raceFlags builds the binary under test with the race detector when the
// tests run with it and RAMABANA_E2E_RACE=1 asks for it (CI does), so that
// races in the host process and its plugin processes are caught here too.
// Without it the binary is built plainly: under the detector every server
// and plugin process costs about four times the CPU, which made this
// package a quarter of `make test`, and the host's packages run under the
// detector in their own tests anyway.
var raceFlags = func() []string {
	if os.Getenv("RAMABANA_E2E_RACE") == "1" {
		return []string{"-race"}
	}
	return nil
}()

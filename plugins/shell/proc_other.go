//go:build !unix

package shell

import (
	"os"
	"syscall"
)

// On systems without process groups run_command refuses to start: the
// guarantee that nothing outlives a call cannot be kept.

const haveProcessGroups = false

func processGone(int) bool { return false }

func exitSignal(*os.ProcessState) (syscall.Signal, bool) { return 0, false }

func signalName(sig syscall.Signal) string { return sig.String() }

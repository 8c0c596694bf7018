package shell

import (
	"fmt"
	"os"
	"sync"

	"github.com/ramabana/ramabana-mcp/sandbox"
)

// policy is how a command runs: without capabilities, as pid 1 of its own
// pid namespace, and, unless the user turned the sandbox off, writing only
// inside the served folders, the commands' temporary folders and /dev.
//
// Every call's temporary folder lies in one base folder, so that the
// policy, and with it the launcher thread that carries it (package
// sandbox), is the same for every call with the same roots.
func policy(roots []string, noSandbox bool) sandbox.Policy {
	p := sandbox.Policy{NoCapabilities: true, NewNamespaces: true}
	if !noSandbox {
		base, err := tempBase()
		if err != nil {
			// Without a base, each call's folder is left out; TMPDIR is
			// then not writable, which the command will show.
			base = ""
		}
		p.Writable = append(append([]string{}, roots...), "/dev")
		if base != "" {
			p.Writable = append(p.Writable, base)
		}
	}
	return p
}

// tempBase is the plugin's folder for the commands' temporary folders,
// made on first use (mode 0700) and removed when the plugin exits.
var tempBase = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "ramabana-shell-")
	if err != nil {
		return "", fmt.Errorf("make the commands' temporary folder: %w", err)
	}
	return dir, nil
})

// removeTempBase removes the base folder, if it was made (sdk.AtExit).
func removeTempBase() {
	if dir, err := tempBase(); err == nil {
		_ = os.RemoveAll(dir)
	}
}

// callTempDir makes a private temporary folder for one call, which the
// caller removes when the call ends.
func callTempDir() (string, error) {
	base, err := tempBase()
	if err != nil {
		return "", err
	}
	return os.MkdirTemp(base, "call-")
}

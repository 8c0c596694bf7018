package shell

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/ramabana/ramabana-mcp/internal/sandbox"
)

// policy is how a command runs: without capabilities, as pid 1 of its own
// pid namespace, and, unless the user turned the sandbox off, writing only
// inside the served folders, the commands' temporary folders and the few
// device files commands need (sandbox.DeviceFiles: /dev/null, the
// terminals and the like, not /dev/shm).
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
		p.Writable = append(append([]string{}, roots...), sandbox.DeviceFiles()...)
		if base != "" {
			p.Writable = append(p.Writable, base)
		}
	}
	return p
}

// tempBasePrefix names the plugins' folders for the commands' temporary
// folders: ramabana-shell-<plugin pid>-<random>.
const tempBasePrefix = "ramabana-shell-"

// tempBase is the plugin's folder for the commands' temporary folders,
// made on first use (mode 0700) and removed when the plugin exits. Folders
// left by plugins that were killed are removed first.
var tempBase = sync.OnceValues(func() (string, error) {
	removeStaleBases()
	dir, err := os.MkdirTemp("", tempBasePrefix+strconv.Itoa(os.Getpid())+"-")
	if err != nil {
		return "", fmt.Errorf("make the commands' temporary folder: %w", err)
	}
	return dir, nil
})

// removeStaleBases removes the base folders of shell plugins that are gone
// (a SIGKILL skips the AtExit hook); a folder of another user's plugin is
// not ours to remove, and fails to.
func removeStaleBases() {
	matches, _ := filepath.Glob(filepath.Join(os.TempDir(), tempBasePrefix+"*-*"))
	for _, dir := range matches {
		pidText, _, _ := strings.Cut(strings.TrimPrefix(filepath.Base(dir), tempBasePrefix), "-")
		pid, err := strconv.Atoi(pidText)
		if err != nil || pid <= 0 || pid == os.Getpid() {
			continue
		}
		if processGone(pid) {
			_ = os.RemoveAll(dir)
		}
	}
}

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

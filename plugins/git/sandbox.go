package git

import (
	"debug/elf"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"

	"github.com/ramabana/ramabana-mcp/sandbox"
)

// execPolicy is the sandbox git runs in when commands are not allowed: it
// may execute git, its helpers (git --exec-path) and git's ELF interpreter,
// nothing else. It is the second line behind guard: a program some config
// key names that guard does not know, or a config change that lands
// between guard's list and git's read, still cannot start (where the
// kernel has Landlock; elsewhere sandbox.Start applies what it can).
// Writes are not restricted here: git writes only the repository, which
// locate confined. When the user's own config names programs for git to
// run (git-lfs, a filter script), git runs unsandboxed: those programs
// may run others (see guard.trusted).
var execPolicy = sync.OnceValue(func() sandbox.Policy {
	var allowed []string
	bin, err := exec.LookPath("git")
	if err != nil {
		// No git: exec fails anyway, and the error says so.
		return sandbox.Policy{}
	}
	if real, err := filepath.EvalSymlinks(bin); err == nil {
		bin = real
	}
	allowed = append(allowed, bin)
	if out, err := exec.Command(bin, "--exec-path").Output(); err == nil {
		if p := strings.TrimSpace(string(out)); filepath.IsAbs(p) {
			allowed = append(allowed, p)
		}
	}
	if f, err := elf.Open(bin); err == nil {
		for _, prog := range f.Progs {
			if prog.Type != elf.PT_INTERP {
				continue
			}
			b := make([]byte, prog.Filesz)
			if _, err := prog.ReadAt(b, 0); err == nil {
				allowed = append(allowed, strings.TrimRight(string(b), "\x00"))
			}
		}
		f.Close()
	}
	return sandbox.Policy{Executable: allowed}
})

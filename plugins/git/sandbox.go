package git

import (
	"bufio"
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/ramabana/ramabana-mcp/internal/sandbox"
)

// execPolicy is the sandbox git runs in when commands are not allowed: it
// may execute git, its helpers (git --exec-path) and git's ELF interpreter,
// nothing else. It is the second line behind guard: a program some config
// key names that guard does not know, or a config change that lands
// between guard's list and git's read, still cannot start (where the
// kernel has Landlock; elsewhere sandbox.Start applies what it can).
// Writes are not restricted here: git writes only the repository, which
// locate confined.
var execPolicy = sync.OnceValue(func() sandbox.Policy {
	bin := gitBinary()
	if !filepath.IsAbs(bin) {
		// No git: exec fails anyway, and the error says so.
		return sandbox.Policy{}
	}
	if real, err := filepath.EvalSymlinks(bin); err == nil {
		bin = real
	}
	allowed := []string{bin}
	if out, err := exec.Command(bin, "--exec-path").Output(); err == nil {
		if p := strings.TrimSpace(string(out)); filepath.IsAbs(p) {
			allowed = append(allowed, p)
		}
	}
	allowed = append(allowed, interpreters(bin)...)
	return sandbox.Policy{Executable: allowed}
})

// policyFor is execPolicy with the programs the user's trusted config names
// (guard.trusted) allowed as well: git-lfs, a filter script and its
// interpreter, /bin/sh for a command line git runs through the shell. Only
// those files may be executed, not what they in turn start: a trusted
// script that runs other programs (sed, gpg's agent) is stopped where it
// does, and works once commands are allowed. That keeps the sandbox on for
// the repository's config whatever the user's own config names; the price
// is that allowing /bin/sh lets a repository's command line that reaches
// git unguarded run shell builtins, and through the ELF loader (which must
// stay executable for git itself, and whose mapping of a program Landlock
// does not check) any program: the sandbox is a second line behind the
// guard's overrides, for the window between guard's listing and git's read. Each distinct set
// costs the sandbox one launcher thread; the sets come from config outside
// the served folders, which the model cannot write, so they are few.
func policyFor(trusted []string) sandbox.Policy {
	p := execPolicy()
	if p.Executable == nil || len(trusted) == 0 {
		return p
	}
	exe := append(slices.Clip(p.Executable), trusted...)
	slices.Sort(exe)
	return sandbox.Policy{Executable: slices.Compact(exe)}
}

// interpreters are the files the kernel executes to start the program at
// path besides path itself: an ELF file's interpreter (the dynamic loader),
// or a script's #! interpreter (and, for "#!/usr/bin/env prog", prog found
// on the PATH) with that one's own loader. Landlock checks the execute
// right on each.
func interpreters(path string) []string {
	if interp, isELF := elfInterpreter(path); isELF {
		return interp
	}
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	line, err := bufio.NewReader(f).ReadString('\n')
	if err != nil && line == "" {
		return nil
	}
	rest, ok := strings.CutPrefix(line, "#!")
	if !ok {
		return nil
	}
	words := strings.Fields(rest)
	if len(words) == 0 || !filepath.IsAbs(words[0]) {
		return nil
	}
	interp := []string{words[0]}
	if filepath.Base(words[0]) == "env" {
		for _, w := range words[1:] {
			if strings.HasPrefix(w, "-") {
				continue
			}
			if p, err := exec.LookPath(w); err == nil && filepath.IsAbs(p) {
				interp = append(interp, p)
			}
			break
		}
	}
	var out []string
	for _, p := range interp {
		loader, _ := elfInterpreter(p)
		out = append(append(out, p), loader...)
	}
	return out
}

// elfInterpreter is the PT_INTERP of the ELF file at path, and whether it
// is one.
func elfInterpreter(path string) ([]string, bool) {
	f, err := elf.Open(path)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	var out []string
	for _, prog := range f.Progs {
		if prog.Type != elf.PT_INTERP {
			continue
		}
		b := make([]byte, prog.Filesz)
		if _, err := prog.ReadAt(b, 0); err == nil {
			out = append(out, strings.TrimRight(string(b), "\x00"))
		}
	}
	return out, true
}

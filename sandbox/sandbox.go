package sandbox

import (
	"os/exec"
	"slices"
	"strings"
)

// Policy says how to restrict a command. The zero Policy restricts nothing
// (Start then only puts the command in a process group of its own with a
// parent-death signal).
type Policy struct {
	// Writable are the only files and folders (with everything beneath
	// them) the command may change: write, truncate, create, remove,
	// rename, link. nil leaves writes unrestricted; an empty non-nil slice
	// forbids every write. Paths should be absolute and exist; a missing
	// one is skipped. Enforced with Landlock, where the kernel has it.
	Writable []string
	// Executable are the only files, or folders beneath which every file,
	// the command may execute. nil leaves execution unrestricted. Enforced
	// with Landlock, where the kernel has it.
	Executable []string
	// NoCapabilities drops every capability the command would get at
	// exec: as root it runs without CAP_SYS_PTRACE, CAP_DAC_OVERRIDE and the
	// rest, so it reads only what root's plain file modes allow.
	NoCapabilities bool
	// NewNamespaces runs the command as pid 1 of a new pid namespace, in a
	// new user namespace when needed, so it is reaped as one: when it
	// exits or is killed, everything it started is killed too. Inside, $$
	// is 1 and ps (reading the host's /proc) shows the host's pids.
	NewNamespaces bool
}

// key identifies the thread state a policy needs; NewNamespaces does not
// change it. nil and empty lists differ.
func (p Policy) key() string {
	var b strings.Builder
	list := func(l []string) {
		if l == nil {
			b.WriteString("-")
			return
		}
		l = slices.Clone(l)
		slices.Sort(l)
		b.WriteString("+" + strings.Join(l, "\x00"))
	}
	list(p.Writable)
	b.WriteString("\x01")
	list(p.Executable)
	if p.NoCapabilities {
		b.WriteString("\x01nocaps")
	}
	return b.String()
}

// Support is what this machine offers, for a status line.
type Support struct {
	// Landlock is the kernel's Landlock ABI version; 0: unavailable.
	Landlock int `json:"landlock_abi"`
	// Reaping is how a command's processes are ended as one:
	// "pid namespace", "user+pid namespace" (the user namespace is needed
	// because the process lacks CAP_SYS_ADMIN), "subreaper" (namespaces
	// were refused: orphans are adopted and killed, but a SIGKILL of the
	// caller leaves what escaped the process group running), or
	// "process group" (neither).
	Reaping string `json:"reaping"`
	// NoCapabilities: commands can be started without capabilities.
	NoCapabilities bool `json:"no_capabilities"`
	// NonDumpable: this process is non-dumpable now.
	NonDumpable bool `json:"non_dumpable"`
}

// Reaping mechanisms, as Support.Reaping names them.
const (
	ReapPidNS     = "pid namespace"
	ReapUserPidNS = "user+pid namespace"
	ReapSubreaper = "subreaper"
	ReapGroup     = "process group"
)

// Start starts cmd (as cmd.Start does) restricted by p, each protection
// applied as far as the kernel allows, and returns what applied. It sets
// cmd.SysProcAttr's process group, parent-death signal and clone flags,
// keeping its other fields. It returns an error only when the command
// could not be started; a protection that could not be applied is not an
// error but is missing from Applied.
//
// Start is safe for concurrent use. After cmd.Wait returns, a command
// started with Namespaces has no process left; otherwise use Applied's
// Signal and Alive to end what it left behind.
func Start(cmd *exec.Cmd, p Policy) (Applied, error) {
	return start(cmd, p)
}

// Probe reports what this machine offers, as a command started by a
// process like this one (same kernel, same user) under a Policy with
// Writable set, NoCapabilities and NewNamespaces would get it. It forks a
// short-lived process the first time and caches the answer.
func Probe() Support { return probe() }

// NonDumpable makes the calling process non-dumpable (PR_SET_DUMPABLE 0):
// a process of the same user, or one without CAP_SYS_PTRACE over it, can no
// longer read its memory or /proc/<pid>/environ, or ptrace it. It is a
// no-op returning nil where the system has no such setting.
func NonDumpable() error { return nonDumpable() }

// Applied is what a Start really applied, and the handle to end what the
// command started. Its methods are safe for concurrent use.
type Applied struct {
	// Landlock is the ABI of the Landlock domain the command runs in; 0:
	// none (no Writable or Executable asked, the kernel lacks Landlock, or
	// applying it failed).
	Landlock int
	// NoCapabilities: the command got no capability at exec.
	NoCapabilities bool
	// Reaping is how the command's processes end as one (the Reap*
	// constants): a namespace, or only its process group, or the
	// subreaper fallback when namespaces were asked but refused.
	Reaping string

	pid    int
	nsLink string // the pid namespace's /proc link text, for a namespace
	marker string // the environment entry tagging a subreaper command
}

// Namespaces says the command runs in a pid namespace of its own.
func (a Applied) Namespaces() bool { return a.Reaping == ReapPidNS || a.Reaping == ReapUserPidNS }

package sandbox

import (
	"os/exec"
	"slices"
	"strings"
)

// Policy says how to restrict a command. The zero Policy restricts nothing
// (Start then only puts the command in a session and process group of its
// own, without a controlling terminal, with a parent-death signal).
type Policy struct {
	// Writable are the only files and folders (with everything beneath
	// them) the command may change: write, truncate, create, remove,
	// rename, link, and (Landlock ABI 5 on) use device ioctls. A file,
	// as opposed to a folder, gets only the rights a file can carry: write,
	// truncate and device ioctls. nil leaves writes unrestricted; an empty
	// non-nil slice forbids every write. Paths should be absolute and
	// exist; a missing one is skipped, and a symbolic link names its
	// target. Enforced with Landlock, where the kernel has it. Name the
	// device files a command needs with DeviceFiles, not /dev as a
	// folder: that would let it leave files in /dev/shm.
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
	// caller leaves what escaped the process group running, and the job
	// marker that finds the orphans lives in their environment, so one
	// that clears its environment, such as `setsid env -i cmd &`,
	// escapes reaping), or "process group" (neither).
	Reaping string `json:"reaping"`
	// NoCapabilities: commands can be started without capabilities.
	NoCapabilities bool `json:"no_capabilities"`
	// NonDumpable: this process is non-dumpable now.
	NonDumpable bool `json:"non_dumpable"`
}

// DeviceFiles are the files under /dev an ordinary command writes, for
// Policy.Writable: the data sinks and sources (/dev/null, /dev/zero,
// /dev/full, /dev/random, /dev/urandom), its controlling terminal
// (/dev/tty) and the pseudo-terminals it makes itself (/dev/ptmx,
// /dev/pts), which programs like script and expect need, ioctls included.
// /dev/stdin, /dev/stdout, /dev/stderr and /dev/fd lead through
// /proc/self/fd to descriptors the command already holds, and need no
// rule. Left out are /dev/shm and /dev/mqueue (a file there outlives the
// command: POSIX shared memory and semaphores, as Python's multiprocessing
// locks use, fail) and every other device (no writes, no ioctls).
//
// Start runs a command in a session of its own, so it has no controlling
// terminal: /dev/tty fails to open (ENXIO) unless it made a terminal its
// own, and TIOCSTI, which the kernel allows only on the caller's
// controlling terminal without CAP_SYS_ADMIN, cannot inject input into a
// terminal the caller runs in. A command of the same user can still open
// such a terminal under /dev/pts and write to it; Landlock cannot tell it
// from the command's own pseudo-terminal.
func DeviceFiles() []string {
	return []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty", "/dev/ptmx", "/dev/pts"}
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
// cmd.SysProcAttr's session (Setsid: a new session and process group, no
// controlling terminal; Setpgid, Setctty and Foreground are cleared),
// parent-death signal and clone flags, keeping its other fields. It returns an error only when the command
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

// Package sandbox starts a program with the protections a command run on a
// model's behalf needs, each where the kernel allows it:
//
//   - Landlock: writes, and device ioctls, only beneath the folders and in
//     the files a Policy names (reads stay allowed; see DeviceFiles for
//     /dev), and execution only of the files it names.
//   - No capabilities: the bounding, inheritable and ambient sets are
//     dropped before exec, so a program started by root holds none, and
//     cannot read the memory or environment of a non-dumpable process
//     (see NonDumpable) even as root.
//   - Namespaces: the program is pid 1 of a new pid namespace (inside a new
//     user namespace when the caller lacks CAP_SYS_ADMIN), so when it ends,
//     or is killed, the kernel kills every process it started, setsid and
//     double forks included; its parent-death signal is SIGKILL, so this
//     also happens when the caller itself is killed. Where namespaces are
//     refused, the caller becomes a child subreaper instead and Applied's
//     Signal reaches the orphans it adopted and tagged with a job marker
//     in their environment; a command that clears its environment
//     (`setsid env -i cmd &`) escapes reaping there (see Support.Reaping).
//   - A session of its own: the program has no controlling terminal, so it
//     cannot reach the caller's (no TIOCSTI; see DeviceFiles).
//
// Landlock and the capability drop are per thread: Start runs each
// command's fork and exec on one long-lived OS thread per distinct
// restriction, which applied them to itself once and never runs anything
// else. The calling process and its other threads stay unrestricted. Such a
// thread lives as long as the process, so the child's parent-death signal
// never fires early.
//
// Nothing degrades silently: Applied says what a start really got, and
// Probe what this machine offers, for a status line.
package sandbox

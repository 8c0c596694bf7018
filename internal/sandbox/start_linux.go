package sandbox

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// nsMode is one way of giving a command a pid namespace.
type nsMode struct {
	name  string // ReapPidNS or ReapUserPidNS
	flags uintptr
	// mapIDs maps the caller's uid and gid to themselves inside a new
	// user namespace. Go writes the maps from the forking thread, which
	// Landlock forbids to write /proc/<pid>/uid_map; unmapped, the command
	// keeps its real ids for every file access but sees itself as the
	// overflow user (nobody) and gets no capability at exec.
	mapIDs bool
}

// candidates are the namespace modes to try, best first: a pid namespace
// alone (the command keeps its ids and gets none of root's power through a
// user namespace), then inside a user namespace, mapped, then unmapped.
func candidates() []nsMode {
	var m []nsMode
	if hasCapSysAdmin() {
		m = append(m, nsMode{name: ReapPidNS, flags: syscall.CLONE_NEWPID})
	}
	return append(m,
		nsMode{name: ReapUserPidNS, flags: syscall.CLONE_NEWUSER | syscall.CLONE_NEWPID, mapIDs: true},
		nsMode{name: ReapUserPidNS, flags: syscall.CLONE_NEWUSER | syscall.CLONE_NEWPID})
}

func (m nsMode) apply(attr *syscall.SysProcAttr) {
	attr.Cloneflags |= m.flags
	if m.mapIDs {
		attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: os.Geteuid(), HostID: os.Geteuid(), Size: 1}}
		attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getegid(), HostID: os.Getegid(), Size: 1}}
		attr.GidMappingsEnableSetgroups = false
	}
}

// noCapsIn says whether a command started in mode m from a thread whose
// capability sets were dropped (dropped) gets no capability at exec. In a
// new user namespace the bounding set starts full again, but only the
// namespace's root gets capabilities at exec, and only over what the
// namespace owns.
func (m nsMode) noCapsIn(dropped bool) bool {
	if m.flags&syscall.CLONE_NEWUSER == 0 {
		return dropped
	}
	return !m.mapIDs || os.Geteuid() != 0
}

// devNull is opened by an unrestricted thread, before a launcher's thread
// restricts itself (and may no longer open /dev/null for writing).
var devNull = sync.OnceValue(func() *os.File {
	f, _ := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	return f
})

// chooseMode returns the first mode in which a trivial program starts from
// the calling thread, or nil when none does.
func chooseMode(null *os.File) *nsMode {
	probe := "/bin/true"
	if _, err := os.Stat(probe); err != nil || null == nil {
		return nil
	}
	for _, m := range candidates() {
		cmd := exec.Command(probe)
		cmd.Stdin, cmd.Stdout, cmd.Stderr = null, null, null
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		m.apply(cmd.SysProcAttr)
		if cmd.Run() == nil {
			return &m
		}
	}
	return nil
}

// launcher is a goroutine locked for good to an OS thread that carries one
// policy's restrictions and forks every command of that policy.
type launcher struct {
	jobs     chan func()
	landlock int     // ABI of the thread's Landlock domain, or 0
	noCaps   bool    // the thread's capability sets were dropped
	mode     *nsMode // nil: namespaces are refused here
}

var (
	launchersMu sync.Mutex
	launchers   = map[string]*launcher{}
)

// launcherFor returns the launcher of p; noNamespaces (tests only) makes
// one that treats namespaces as refused.
func launcherFor(p Policy, noNamespaces bool) *launcher {
	key := p.key()
	if noNamespaces {
		key += "\x01no namespaces"
	}
	launchersMu.Lock()
	defer launchersMu.Unlock()
	if l := launchers[key]; l != nil {
		return l
	}
	l := &launcher{jobs: make(chan func())}
	null := devNull()
	ready := make(chan struct{})
	var serve func()
	serve = func() {
		// Never unlocked: the thread's restrictions must not reach other
		// goroutines, and a child's parent-death signal fires when the
		// thread that forked it exits.
		runtime.LockOSThread()
		if unix.Gettid() == unix.Getpid() {
			// The process's main thread, which a signal to the process
			// (kill(pid)) targets: with the commands' Landlock domain on
			// it, they could signal this process. It is kept here, idle,
			// so that no launcher lands on it, and another thread serves.
			go serve()
			select {}
		}
		l.restrict(p, null, noNamespaces)
		close(ready)
		for job := range l.jobs {
			job()
		}
	}
	go serve()
	<-ready
	launchers[key] = l
	return l
}

// restrict applies p to the calling thread, each part as far as the kernel
// allows, and picks the namespace mode that works under it.
func (l *launcher) restrict(p Policy, null *os.File, noNamespaces bool) {
	if p.NoCapabilities {
		l.noCaps = dropCapsThread() == nil
	}
	if p.Writable != nil || p.Executable != nil {
		if abi := landlockABI(); abi > 0 && restrictThread(abi, p.Writable, p.Executable) == nil {
			l.landlock = abi
		}
	}
	if p.NewNamespaces && !noNamespaces {
		l.mode = chooseMode(null)
	}
}

// run runs fn on the launcher's thread and waits for it.
func (l *launcher) run(fn func()) {
	done := make(chan struct{})
	l.jobs <- func() {
		defer close(done)
		fn()
	}
	<-done
}

var (
	subreaperOnce sync.Once
	subreaperErr  error
	markers       atomic.Int64
)

// markerVar tags the environment of a command started under the subreaper
// fallback, so that its orphans can be found.
const markerVar = "RAMABANA_SANDBOX_JOB"

func start(cmd *exec.Cmd, p Policy) (Applied, error) { return startWith(cmd, p, false) }

func startWith(cmd *exec.Cmd, p Policy, noNamespaces bool) (Applied, error) {
	l := launcherFor(p, noNamespaces)
	a := Applied{Landlock: l.landlock, NoCapabilities: l.noCaps, Reaping: ReapGroup}
	attr := &syscall.SysProcAttr{}
	if cmd.SysProcAttr != nil {
		c := *cmd.SysProcAttr
		attr = &c
	}
	// A session of its own, which is also a process group of its own
	// (setpgid would fail for a session leader): without a controlling
	// terminal, the command cannot reach the caller's (see DeviceFiles).
	attr.Setsid = true
	attr.Setpgid, attr.Pgid, attr.Setctty, attr.Foreground = false, 0, false, false
	attr.Pdeathsig = syscall.SIGKILL
	if p.NewNamespaces {
		if l.mode != nil {
			l.mode.apply(attr)
			a.Reaping = l.mode.name
			a.NoCapabilities = l.mode.noCapsIn(l.noCaps)
		} else {
			subreaperOnce.Do(func() {
				subreaperErr = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
			})
			if subreaperErr == nil {
				a.Reaping = ReapSubreaper
				a.marker = markerVar + "=" + strconv.Itoa(os.Getpid()) + "-" + strconv.FormatInt(markers.Add(1), 10)
				env := cmd.Env
				if env == nil {
					env = os.Environ()
				}
				cmd.Env = append(env[:len(env):len(env)], a.marker)
			}
		}
	}
	cmd.SysProcAttr = attr
	var err error
	l.run(func() { err = cmd.Start() })
	if err != nil {
		return Applied{}, err
	}
	a.pid = cmd.Process.Pid
	if a.Namespaces() {
		// Gone already when the command was that quick: then so is its
		// namespace.
		a.nsLink, _ = os.Readlink("/proc/" + strconv.Itoa(a.pid) + "/ns/pid")
	}
	return a, nil
}

// Signal sends sig to every process the command started that still runs:
// its process group, and every other process in its pid namespace, or, in
// the subreaper fallback, every process tagged with its marker. SIGKILL of
// a namespace's first process kills the whole namespace at once. Signals
// to a namespace's first process other than SIGKILL are ignored by the
// kernel unless the program handles them.
func (a Applied) Signal(sig syscall.Signal) error {
	if a.pid <= 1 {
		return nil
	}
	err := syscall.Kill(-a.pid, sig)
	switch {
	case a.Namespaces() && sig == syscall.SIGKILL:
		_ = syscall.Kill(a.pid, sig)
	case a.Namespaces():
		for _, pid := range a.members() {
			_ = syscall.Kill(pid, sig)
		}
	case a.Reaping == ReapSubreaper:
		for _, pid := range a.members() {
			if syscall.Kill(pid, sig) == nil && sig == syscall.SIGKILL {
				go reapOrphan(pid)
			}
		}
	}
	if err != nil && err != syscall.ESRCH {
		return fmt.Errorf("signal process group %d: %w", a.pid, err)
	}
	return nil
}

// Stop ends everything the command started: SIGTERM to every process,
// then SIGKILL to whatever is left once the grace is over. In a namespace
// the first process is frozen (SIGSTOP) rather than sent SIGTERM, which the
// kernel drops for a namespace's init without a handler: a shell does not
// go on with its script while the rest end, and its SIGKILL, once they
// have ended or the grace is over, ends the namespace. Stop returns once
// nothing of the command runs, or a second after the SIGKILL at most.
func (a Applied) Stop(grace time.Duration) {
	if a.pid <= 1 {
		return
	}
	if a.Namespaces() {
		_ = syscall.Kill(a.pid, syscall.SIGSTOP)
	}
	_ = a.Signal(syscall.SIGTERM)
	for deadline := time.Now().Add(grace); time.Now().Before(deadline) && a.othersAlive(); {
		time.Sleep(20 * time.Millisecond)
	}
	_ = a.Signal(syscall.SIGKILL)
	// SIGKILL is delivered asynchronously; wait until it has landed.
	for range 50 {
		if !a.Alive() {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// othersAlive reports whether a process of the command other than a
// namespace's first runs.
func (a Applied) othersAlive() bool {
	for _, pid := range a.members() {
		if pid != a.pid || !a.Namespaces() {
			return true
		}
	}
	return false
}

// reapOrphan waits for a killed orphan this process adopted as subreaper,
// so it does not stay a zombie. A process that is not our child is left
// alone (ECHILD).
func reapOrphan(pid int) {
	if ppid, _, _, ok := procStat(pid); ok && ppid == os.Getpid() {
		var ws unix.WaitStatus
		_, _ = unix.Wait4(pid, &ws, 0, nil)
	}
}

// Alive reports whether any process the command started still runs
// (zombies do not count).
func (a Applied) Alive() bool {
	if a.pid <= 1 {
		return false
	}
	if a.Namespaces() {
		link, err := os.Readlink("/proc/" + strconv.Itoa(a.pid) + "/ns/pid")
		if err != nil || link != a.nsLink {
			return false
		}
		_, _, state, ok := procStat(a.pid)
		return ok && state != 'Z' && state != 'X'
	}
	return len(a.members()) > 0
}

// members lists the running processes that belong to the command: those in
// its process group, and those in its pid namespace or tagged with its
// marker.
func (a Applied) members() []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		_, pgrp, state, ok := procStat(pid)
		if !ok || state == 'Z' || state == 'X' {
			continue
		}
		switch {
		case pgrp == a.pid:
		case a.nsLink != "":
			if link, err := os.Readlink("/proc/" + e.Name() + "/ns/pid"); err != nil || link != a.nsLink {
				continue
			}
		case a.marker != "":
			env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
			if err != nil || !bytes.Contains(append([]byte{0}, env...), []byte("\x00"+a.marker+"\x00")) {
				continue
			}
		default:
			continue
		}
		out = append(out, pid)
	}
	return out
}

// procStat is a process's parent, process group and state letter from
// /proc.
func procStat(pid int) (ppid, pgrp int, state byte, ok bool) {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0, 0, false
	}
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, 0, 0, false
	}
	f := bytes.Fields(stat[i+1:])
	if len(f) < 3 {
		return 0, 0, 0, false
	}
	ppid, _ = strconv.Atoi(string(f[1]))
	pgrp, _ = strconv.Atoi(string(f[2]))
	return ppid, pgrp, f[0][0], true
}

var probed = sync.OnceValue(func() Support {
	var s Support
	null := devNull()
	done := make(chan struct{})
	go func() {
		defer close(done)
		// Left locked: the thread, restricted like a launcher's, ends
		// with this goroutine.
		runtime.LockOSThread()
		s.NoCapabilities = dropCapsThread() == nil
		if abi := landlockABI(); abi > 0 && restrictThread(abi, []string{}, nil) == nil {
			s.Landlock = abi
		}
		s.Reaping = ReapSubreaper
		if m := chooseMode(null); m != nil {
			s.Reaping = m.name
			s.NoCapabilities = m.noCapsIn(s.NoCapabilities)
		}
	}()
	<-done
	return s
})

func probe() Support {
	s := probed()
	s.NonDumpable = !isDumpable()
	return s
}

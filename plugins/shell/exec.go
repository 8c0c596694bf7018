package shell

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// shellPath is the shell that runs every command line.
const shellPath = "/bin/bash"

// Timing of a run. They are variables so that tests can shorten them.
var (
	// grace is how long a stopped group has between SIGTERM and SIGKILL.
	grace = 2 * time.Second
	// drainWait is how long output is read after the group is gone, for
	// pipes held open by a process that left the group.
	drainWait = time.Second
	// tick is the interval of progress reports.
	tick = time.Second
)

// errNoGroups is why run refuses on a system without process groups: the
// promise that nothing outlives a call could not be kept.
var errNoGroups = errors.New("process groups are not supported on this system")

// job is one command to run.
type job struct {
	command string
	dir     string
	env     []string // the whole environment
	timeout time.Duration
	limit   int // bytes kept per stream
	// progress is called every tick while the shell runs.
	progress func(elapsed time.Duration, output int64)
}

// outcome is how a job ended.
type outcome struct {
	pgid    int
	elapsed time.Duration // until the shell exited, or until it was stopped
	state   *os.ProcessState
	// timedOut and cancelled say why the group was stopped early.
	timedOut, cancelled bool
	// leftovers: processes of the group were still running when the shell
	// exited, and were stopped.
	leftovers bool
	// pipesHeld: a process outside the group still held the output pipes
	// open, so reading stopped.
	pipesHeld      bool
	stdout, stderr *capture
}

// run starts the job's shell in a process group of its own and waits for
// it, stopping the whole group on timeout, on cancellation of ctx, and once
// the shell has exited. It returns an error only when the shell cannot be
// started.
//
// The output pipes are made here and handed to the shell as files, so
// Wait returns when the shell exits, not when the last process holding a
// pipe does; readers drain them until every writer is gone.
func run(ctx context.Context, j job) (*outcome, error) {
	if !haveProcessGroups {
		return nil, errNoGroups
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		_ = outR.Close()
		_ = outW.Close()
		return nil, err
	}
	cmd := exec.Command(shellPath, "-c", j.command)
	cmd.Dir = j.dir
	cmd.Env = j.env
	cmd.Stdin = nil // /dev/null
	cmd.Stdout, cmd.Stderr = outW, errW
	cmd.SysProcAttr = sysProcAttr()
	start := time.Now()
	err = cmd.Start()
	// The shell has its copies; ours would keep the pipes open forever.
	_ = outW.Close()
	_ = errW.Close()
	if err != nil {
		_ = outR.Close()
		_ = errR.Close()
		return nil, err
	}

	o := &outcome{pgid: cmd.Process.Pid, stdout: newCapture(j.limit), stderr: newCapture(j.limit)}
	running.add(o.pgid)
	defer running.remove(o.pgid)
	var readers sync.WaitGroup
	readers.Go(func() { _, _ = io.Copy(o.stdout, outR) })
	readers.Go(func() { _, _ = io.Copy(o.stderr, errR) })
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait() // the exit status is in cmd.ProcessState
		close(exited)
	}()

	ticker := time.NewTicker(tick)
	defer ticker.Stop()
	timer := time.NewTimer(j.timeout)
	defer timer.Stop()
wait:
	for {
		select {
		case <-exited:
			o.elapsed = time.Since(start)
			break wait
		case <-ticker.C:
			if j.progress != nil {
				j.progress(time.Since(start), o.stdout.Total()+o.stderr.Total())
			}
		case <-timer.C:
			o.elapsed, o.timedOut = time.Since(start), true
			stopGroup(o.pgid, exited)
			<-exited
			break wait
		case <-ctx.Done():
			o.elapsed, o.cancelled = time.Since(start), true
			stopGroup(o.pgid, exited)
			<-exited
			break wait
		}
	}
	if !o.timedOut && !o.cancelled && groupAlive(o.pgid) {
		o.leftovers = true
		stopGroup(o.pgid, exited)
	}

	drained := make(chan struct{})
	go func() {
		readers.Wait()
		close(drained)
	}()
	select {
	case <-drained:
	case <-time.After(drainWait):
		o.pipesHeld = true
		now := time.Now()
		_ = outR.SetReadDeadline(now)
		_ = errR.SetReadDeadline(now)
		<-drained
	}
	_ = outR.Close()
	_ = errR.Close()
	o.state = cmd.ProcessState
	return o, nil
}

// stopGroup stops every process in the group pgid: SIGTERM, then, once the
// shell has exited and the group is gone or the grace is over, SIGKILL for
// whatever is left. It returns once no process of the group runs, or a
// second after the SIGKILL at most.
func stopGroup(pgid int, exited <-chan struct{}) {
	if err := signalGroup(pgid, syscall.SIGTERM); errors.Is(err, syscall.ESRCH) {
		return
	}
	deadline := time.NewTimer(grace)
	defer deadline.Stop()
	poll := time.NewTicker(20 * time.Millisecond)
	defer poll.Stop()
loop:
	for {
		select {
		case <-deadline.C:
			break loop
		case <-poll.C:
		}
		select {
		case <-exited:
			if !groupAlive(pgid) {
				break loop
			}
		default:
		}
	}
	if errors.Is(signalGroup(pgid, syscall.SIGKILL), syscall.ESRCH) {
		return
	}
	// SIGKILL is delivered asynchronously; wait until it has landed, so
	// that nothing of the group runs once the call has returned.
	for range 50 {
		if !groupAlive(pgid) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// running are the process groups of the commands under way, killed when
// the plugin exits (sdk.AtExit): each command leads its own group, which
// the host's kill of the plugin's group would not reach.
var running = &groups{pgids: map[int]bool{}}

type groups struct {
	mu    sync.Mutex
	pgids map[int]bool
}

func (g *groups) add(pgid int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.pgids[pgid] = true
}

func (g *groups) remove(pgid int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	delete(g.pgids, pgid)
}

// killAll sends SIGKILL to every running command's group.
func (g *groups) killAll() {
	g.mu.Lock()
	defer g.mu.Unlock()
	for pgid := range g.pgids {
		_ = signalGroup(pgid, syscall.SIGKILL)
	}
}

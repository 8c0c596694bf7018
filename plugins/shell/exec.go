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

	"github.com/ramabana/ramabana-mcp/internal/sandbox"
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
	policy  sandbox.Policy
	timeout time.Duration
	limit   int // bytes kept per stream
	// progress is called every tick while the shell runs.
	progress func(elapsed time.Duration, output int64)
}

// outcome is how a job ended.
type outcome struct {
	elapsed time.Duration // until the shell exited, or until it was stopped
	state   *os.ProcessState
	// timedOut and cancelled say why the group was stopped early.
	timedOut, cancelled bool
	// leftovers: processes of the group were still running when the shell
	// exited, and were stopped. In a pid namespace the kernel kills them
	// as the shell exits, unseen.
	leftovers bool
	// pipesHeld: a process outside the group still held the output pipes
	// open, so reading stopped.
	pipesHeld      bool
	stdout, stderr *capture
}

// run starts the job's shell under its policy (package sandbox: a pid
// namespace and process group of its own, no capabilities, Landlock) and
// waits for it, stopping everything it started on timeout, on cancellation
// of ctx, and once the shell has exited. It returns an error only when the
// shell cannot be started.
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
	start := time.Now()
	applied, err := sandbox.Start(cmd, j.policy)
	// The shell has its copies; ours would keep the pipes open forever.
	_ = outW.Close()
	_ = errW.Close()
	if err != nil {
		_ = outR.Close()
		_ = errR.Close()
		return nil, err
	}

	o := &outcome{stdout: newCapture(j.limit), stderr: newCapture(j.limit)}
	running.add(cmd.Process.Pid, applied)
	defer running.remove(cmd.Process.Pid)
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
			applied.Stop(grace)
			<-exited
			break wait
		case <-ctx.Done():
			o.elapsed, o.cancelled = time.Since(start), true
			applied.Stop(grace)
			<-exited
			break wait
		}
	}
	if !o.timedOut && !o.cancelled && applied.Alive() {
		o.leftovers = true
		applied.Stop(grace)
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

// running are the commands under way, killed when the plugin exits
// (sdk.AtExit): each command leads its own group (and namespace), which the
// host's kill of the plugin's group would not reach.
var running = &commands{byPid: map[int]sandbox.Applied{}}

type commands struct {
	mu    sync.Mutex
	byPid map[int]sandbox.Applied
}

func (c *commands) add(pid int, a sandbox.Applied) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.byPid[pid] = a
}

func (c *commands) remove(pid int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.byPid, pid)
}

// killAll sends SIGKILL to everything every running command started.
func (c *commands) killAll() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, a := range c.byPid {
		_ = a.Signal(syscall.SIGKILL)
	}
}

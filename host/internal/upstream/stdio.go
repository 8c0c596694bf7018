package upstream

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ramabana/ramabana-mcp/internal/sandbox"
)

// stdioTransport runs a stdio server and speaks MCP over its stdin and
// stdout, like the go-sdk's CommandTransport, but starts it with
// sandbox.Start: in a session and process group of its own, with SIGKILL
// as its parent-death signal (set from a thread that lives as long as the
// host, so it fires when the host dies, not when some thread ends). The
// server thus ends with the host however the host ends, mid-connect
// included, and Close ends its whole process group. When the host is
// killed outright, what the server started sees its stdin close (the MCP
// stream) but is not signalled.
//
// Not a pid namespace: the server would be its first process and see the
// host's /proc, where its children's pids name other processes, so a
// server that watches its children there (ramabana itself does) breaks.
type stdioTransport struct {
	cmd       *exec.Cmd
	terminate time.Duration // how long Close waits after closing stdin

	mu      sync.Mutex
	applied sandbox.Applied
	started bool

	waitOnce sync.Once
	waitErr  error
}

func (t *stdioTransport) Connect(context.Context) (mcp.Connection, error) {
	stdout, err := t.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	stdin, err := t.cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	applied, err := sandbox.Start(t.cmd, sandbox.Policy{})
	if err != nil {
		return nil, err
	}
	t.mu.Lock()
	t.applied, t.started = applied, true
	t.mu.Unlock()
	return (&mcp.IOTransport{
		Reader: io.NopCloser(stdout), // the session ends by closing stdin, not stdout
		Writer: &stdinCloser{WriteCloser: stdin, t: t},
	}).Connect(context.Background())
}

// pid is the server's process id, 0 before it started.
func (t *stdioTransport) pid() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.started {
		return 0
	}
	return t.cmd.Process.Pid
}

// kill ends the server and everything it started at once, and waits for
// it. A server that was never started is left alone.
func (t *stdioTransport) kill() {
	if t.pid() == 0 {
		return
	}
	t.stop(0)
	_ = t.wait()
}

// wait waits for the started server once; later calls return the first
// answer.
func (t *stdioTransport) wait() error {
	t.waitOnce.Do(func() { t.waitErr = t.cmd.Wait() })
	return t.waitErr
}

// stop signals the server and what it started: SIGTERM, then SIGKILL once
// grace is over.
func (t *stdioTransport) stop(grace time.Duration) {
	t.mu.Lock()
	applied, started := t.applied, t.started
	t.mu.Unlock()
	if started {
		applied.Stop(grace)
	}
}

// stdinCloser ends the session the way MCP's stdio transport asks: close
// the server's stdin, wait for it to exit, then signal it (SIGTERM, and
// SIGKILL to whatever is left after as long again).
type stdinCloser struct {
	io.WriteCloser
	t *stdioTransport
}

func (c *stdinCloser) Close() error {
	closeErr := c.WriteCloser.Close()
	exited := make(chan error, 1)
	go func() { exited <- c.t.wait() }()
	var err error
	select {
	case err = <-exited:
	case <-time.After(c.t.terminate):
		c.t.stop(c.t.terminate)
		err = <-exited
	}
	// The server has exited; end what it left behind.
	c.t.stop(0)
	if exit := (*exec.ExitError)(nil); errors.As(err, &exit) {
		err = nil // an exit status is the server's business, logged by the caller
	}
	if err != nil {
		return fmt.Errorf("stop MCP server: %w", err)
	}
	return closeErr
}

package launch

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ramabana/ramabana-mcp/internal/goplugin/runner"
)

// procRunner is the go-plugin runner for every plugin process. It exists
// to close go-plugin's traps:
//
//   - go-plugin hands plugins the host's stdin, which is the MCP stream under
//     stdio. Here a plugin's stdin is a lifeline pipe the host never writes:
//     it reaches EOF when the host dies, however it dies.
//   - go-plugin parses plugin stderr as JSON log lines and panics on a
//     non-string @message. Here stderr is captured line by line into the
//     host's log and go-plugin is given an empty stream.
//   - a plugin could outlive a killed host, and its children the plugin.
//     Here each plugin leads its own process group, gets SIGTERM when the
//     host dies (Linux's parent-death signal), and the group is killed when
//     the leader exits.
//   - after the handshake, anything a plugin prints to stdout is logged,
//     never passed on.
type procRunner struct {
	cmd    *exec.Cmd
	name   string
	logger *slog.Logger

	lifeline     *os.File // write end of the plugin's stdin; closing it tells the plugin to exit
	lifelineOnce sync.Once
	stdoutR      *os.File      // read ends of the plugin's output pipes
	stderrR      *os.File      //
	handshake    io.ReadCloser // what go-plugin reads: the plugin's first stdout line, then EOF
	drained      sync.WaitGroup
	tail         *lineTail

	mu     sync.Mutex
	pid    int
	watch  *procWatch // asks the kernel whether pid ended; nil before Start
	waited bool
	ended  chan struct{} // closed once the process is reaped
}

var _ runner.Runner = (*procRunner)(nil)

func newProcRunner(cmd *exec.Cmd, name string, logger *slog.Logger, tail *lineTail) *procRunner {
	return &procRunner{cmd: cmd, name: name, logger: logger, tail: tail, ended: make(chan struct{})}
}

func (r *procRunner) Start(context.Context) error {
	stdinR, stdinW, err := os.Pipe()
	if err != nil {
		return fmt.Errorf("lifeline pipe: %w", err)
	}
	stdoutR, stdoutW, err := os.Pipe()
	if err != nil {
		closeAll(stdinR, stdinW)
		return fmt.Errorf("stdout pipe: %w", err)
	}
	stderrR, stderrW, err := os.Pipe()
	if err != nil {
		closeAll(stdinR, stdinW, stdoutR, stdoutW)
		return fmt.Errorf("stderr pipe: %w", err)
	}
	r.cmd.Stdin, r.cmd.Stdout, r.cmd.Stderr = stdinR, stdoutW, stderrW
	r.cmd.SysProcAttr = procAttr()
	err = r.cmd.Start()
	closeAll(stdinR, stdoutW, stderrW) // the child holds its own copies
	if err != nil {
		closeAll(stdinW, stdoutR, stderrR)
		return err
	}
	watch := newProcWatch(r.cmd.Process.Pid)
	r.mu.Lock()
	r.pid, r.watch = r.cmd.Process.Pid, watch
	r.mu.Unlock()
	r.lifeline, r.stdoutR, r.stderrR = stdinW, stdoutR, stderrR

	hsR, hsW := io.Pipe()
	r.handshake = hsR
	r.drained.Add(2)
	go r.readStdout(stdoutR, hsW)
	go r.readStderr(stderrR)
	return nil
}

// readStdout passes the first line to go-plugin (the handshake) and logs
// the rest, so a plugin printing after the handshake cannot reach the
// host's stdout or block on a full pipe.
func (r *procRunner) readStdout(f *os.File, hs *io.PipeWriter) {
	defer r.drained.Done()
	defer f.Close()
	first := true
	readLines(f, func(line string) {
		if first {
			first = false
			_, _ = hs.Write([]byte(line + "\n"))
			_ = hs.Close()
			return
		}
		r.logger.Debug("plugin wrote to stdout", "plugin", r.name, "line", line)
	})
	_ = hs.Close() // no line at all: go-plugin sees EOF
}

func (r *procRunner) readStderr(f *os.File) {
	defer r.drained.Done()
	defer f.Close()
	readLines(f, func(line string) {
		if line == "" {
			return
		}
		r.tail.add(line)
		r.logger.Log(context.Background(), pluginLineLevel(line), "plugin", "plugin", r.name, "line", line)
	})
}

// maxLine caps one line of plugin output; the rest of a longer line is
// dropped, so a plugin writing without newlines cannot grow host memory.
const maxLine = 64 << 10

// readLines calls fn with each line of r, without its line ending, cut at
// maxLine, until EOF or a read error.
func readLines(r io.Reader, fn func(line string)) {
	br := bufio.NewReaderSize(r, maxLine)
	for {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			fn(string(line) + "…")
			for errors.Is(err, bufio.ErrBufferFull) { // skip the rest of the line
				_, err = br.ReadSlice('\n')
			}
			if err != nil {
				return
			}
			continue
		}
		if len(line) > 0 {
			fn(strings.TrimRight(string(line), "\r\n"))
		}
		if err != nil {
			return
		}
	}
}

// pluginLineLevel picks a log level from slog's or hclog's text format,
// in either case ("level=error" as well as "LEVEL=ERROR").
func pluginLineLevel(line string) slog.Level {
	line = strings.ToUpper(line)
	switch {
	case strings.Contains(line, "LEVEL=ERROR"), strings.Contains(line, "[ERROR]"),
		strings.HasPrefix(line, "PANIC:"), strings.HasPrefix(line, "FATAL ERROR:"):
		return slog.LevelError
	case strings.Contains(line, "LEVEL=WARN"), strings.Contains(line, "[WARN]"):
		return slog.LevelWarn
	case strings.Contains(line, "LEVEL=DEBUG"), strings.Contains(line, "[DEBUG]"), strings.Contains(line, "[TRACE]"):
		return slog.LevelDebug
	default:
		return slog.LevelInfo
	}
}

func (r *procRunner) Stdout() io.ReadCloser { return r.handshake }

// Stderr gives go-plugin nothing to parse: the real stream is read by
// readStderr.
func (r *procRunner) Stderr() io.ReadCloser { return io.NopCloser(strings.NewReader("")) }

func (r *procRunner) Name() string { return r.name }

func (r *procRunner) ID() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strconv.Itoa(r.pid)
}

// Pid is the plugin process's pid, 0 before Start.
func (r *procRunner) Pid() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.pid
}

// Ended reports whether the plugin process has ended, as soon as the
// kernel knows: go-plugin learns it later, after Wait has drained the
// process's output (up to a second), and a call sent in between would go
// to a dead socket.
func (r *procRunner) Ended() bool {
	r.mu.Lock()
	watch, waited := r.watch, r.waited
	r.mu.Unlock()
	return waited || (watch != nil && watch.ended())
}

func (r *procRunner) Diagnose(context.Context) string {
	if t := r.tail.String(); t != "" {
		return "plugin stderr: " + t
	}
	return ""
}

// Wait waits for the plugin to exit, kills what is left of its process
// group, and gives the output readers a moment to finish: a descendant
// that escaped the group (setsid) may still hold the pipes, and must not
// keep the host waiting.
func (r *procRunner) Wait(context.Context) error {
	err := r.cmd.Wait()
	r.mu.Lock()
	first := !r.waited
	r.waited = true
	pid := r.pid
	r.mu.Unlock()
	if first {
		close(r.ended)
		if r.watch != nil {
			r.watch.close()
		}
	}
	killGroup(pid)
	r.closeLifeline()
	drained := make(chan struct{})
	go func() { r.drained.Wait(); close(drained) }()
	select {
	case <-drained:
	case <-time.After(time.Second):
		closeAll(r.stdoutR, r.stderrR) // unblocks the readers
		<-drained
	}
	return err
}

// closeLifeline closes the write end of the plugin's stdin: the plugin
// sees EOF and exits. Safe to call more than once.
func (r *procRunner) closeLifeline() {
	r.lifelineOnce.Do(func() {
		if r.lifeline != nil {
			_ = r.lifeline.Close()
		}
	})
}

// Kill kills the plugin's whole process group.
func (r *procRunner) Kill(context.Context) error {
	r.mu.Lock()
	pid, waited := r.pid, r.waited
	r.mu.Unlock()
	if pid == 0 || waited {
		return nil
	}
	killGroup(pid)
	return nil
}

func (r *procRunner) PluginToHost(network, addr string) (string, string, error) {
	return network, addr, nil
}

func (r *procRunner) HostToPlugin(network, addr string) (string, string, error) {
	return network, addr, nil
}

func closeAll(fs ...*os.File) {
	for _, f := range fs {
		_ = f.Close()
	}
}

// lineTail keeps the last few lines of a plugin's stderr, for the error
// that explains why it failed.
type lineTail struct {
	mu    sync.Mutex
	lines []string
	max   int
	cut   func(string, int) string // Options.Cut
}

func (t *lineTail) add(line string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(line) > 500 {
		line = t.cut(line, 500) + "…"
	}
	t.lines = append(t.lines, line)
	if len(t.lines) > t.max {
		t.lines = t.lines[len(t.lines)-t.max:]
	}
}

func (t *lineTail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.Join(t.lines, " | ")
}

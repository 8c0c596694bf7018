package git

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/ramabana/ramabana-mcp/internal/sandbox"
	"github.com/ramabana/ramabana-mcp/plugins/internal/wording"
	"github.com/ramabana/ramabana-mcp/sdk"
)

const (
	// maxOutput caps the text a tool returns.
	maxOutput = 100 << 10
	// maxRaw caps what is read from git for output that is parsed before
	// it is shown (status, blame, branch lists).
	maxRaw = 16 << 20
	// maxMessage caps git's own message quoted in an error.
	maxMessage = 4 << 10

	readTimeout  = 2 * time.Minute
	writeTimeout = 10 * time.Minute // commit hooks may run tests
)

// globalArgs go before every git subcommand. --literal-pathspecs makes a
// path mean that path only (no globs, no ":(exclude)" magic).
var globalArgs = []string{
	"--literal-pathspecs", "--no-pager",
	"-c", "core.quotepath=off",
	"-c", "color.ui=false",
	"-c", "advice.detachedHead=false",
	"-c", "user.useConfigOnly=true",
}

// droppedEnv are environment variables that would point git at another
// repository, index or configuration than the one the call names, or make
// it run programs or prompt; the names git rev-parse --local-env-vars lists
// and the ones set below.
var droppedEnv = map[string]bool{
	"GIT_ALTERNATE_OBJECT_DIRECTORIES": true, "GIT_CONFIG": true, "GIT_CONFIG_PARAMETERS": true,
	"GIT_CONFIG_COUNT": true, "GIT_OBJECT_DIRECTORY": true, "GIT_DIR": true, "GIT_WORK_TREE": true,
	"GIT_IMPLICIT_WORK_TREE": true, "GIT_GRAFT_FILE": true, "GIT_INDEX_FILE": true,
	"GIT_NO_REPLACE_OBJECTS": true, "GIT_REPLACE_REF_BASE": true, "GIT_PREFIX": true,
	"GIT_SHALLOW_FILE": true, "GIT_COMMON_DIR": true, "GIT_NAMESPACE": true,
	"GIT_CEILING_DIRECTORIES": true, "GIT_DISCOVERY_ACROSS_FILESYSTEM": true,
	"GIT_EXTERNAL_DIFF": true, "GIT_DIFF_OPTS": true, "GIT_PAGER": true, "PAGER": true,
	"GIT_EDITOR": true, "GIT_SEQUENCE_EDITOR": true, "VISUAL": true, "EDITOR": true,
	"GIT_LITERAL_PATHSPECS": true, "GIT_GLOB_PATHSPECS": true, "GIT_NOGLOB_PATHSPECS": true,
	"GIT_ICASE_PATHSPECS": true, "GIT_OPTIONAL_LOCKS": true, "GIT_TERMINAL_PROMPT": true,
	"LC_ALL": true, "LANGUAGE": true,
}

// gitBinary is the git every call runs: found on PATH once, by absolute
// path, so that a git dropped later into a folder earlier on PATH is never
// run instead (openRepo also refuses one inside the served folders), and so
// that the exec sandbox allows the very binary that runs. "git" when there
// is none: exec then fails with a message that says so.
var gitBinary = sync.OnceValue(func() string {
	if p, err := exec.LookPath("git"); err == nil && filepath.IsAbs(p) {
		return p
	}
	return "git"
})

// gitEnv is the environment git runs with.
func gitEnv(write, literal bool) []string {
	env := make([]string, 0, 64)
	for _, kv := range sdk.ChildEnv() {
		k, _, _ := strings.Cut(kv, "=")
		if droppedEnv[k] || strings.HasPrefix(k, "GIT_CONFIG_KEY_") || strings.HasPrefix(k, "GIT_CONFIG_VALUE_") || strings.HasPrefix(k, "GIT_TRACE") {
			continue
		}
		env = append(env, kv)
	}
	env = append(env,
		"GIT_TERMINAL_PROMPT=0", "LC_ALL=C", "LANGUAGE=C",
		"GIT_PAGER=cat", "PAGER=cat", "GIT_EDITOR=true", "GIT_SEQUENCE_EDITOR=true",
		// trace2.*Target in a config the model can write would make git
		// write outside the served folders before any guard is built; the
		// variables override the config.
		"GIT_TRACE2=0", "GIT_TRACE2_EVENT=0", "GIT_TRACE2_PERF=0",
	)
	if literal {
		env = append(env, "GIT_LITERAL_PATHSPECS=1")
	}
	if !write {
		env = append(env, "GIT_OPTIONAL_LOCKS=0")
	}
	return env
}

// run is how one git command runs.
type run struct {
	// write lets git take optional locks (refresh the index).
	write bool
	// limit caps the stdout kept; 0 means maxRaw. Once it is reached git's
	// stdout is closed, so git stops early.
	limit int
	stdin io.Reader
	// patterns lets git read paths as pathspecs with magic, for the few
	// commands that refuse literal pathspecs (check-ignore).
	patterns bool
	// env is added to git's environment: the repository's layout and
	// guard.
	env []string
	// confine starts git in the sandbox that lets it execute git alone
	// (see execPolicy): set whenever commands are not allowed.
	confine bool
	// trusted are the programs trusted config names, which the sandbox
	// lets git execute too (see policyFor).
	trusted []string
}

// output is what a git command printed, and how it ended.
type output struct {
	stdout []byte
	stderr []byte
	// cut says stdout was cut at the limit.
	cut  bool
	code int
}

// ok reports a zero exit status, or output cut on purpose.
func (o *output) ok() bool { return o.code == 0 || o.cut }

// message is git's own explanation of a failure: stderr, or stdout when
// stderr is empty (git commit reports "nothing to commit" on stdout).
func (o *output) message() string {
	msg := strings.TrimSpace(string(o.stderr))
	if msg == "" {
		msg = strings.TrimSpace(string(o.stdout))
	}
	if msg == "" {
		msg = fmt.Sprintf("git exited with status %d and no message", o.code)
	}
	if len(msg) > maxMessage {
		msg = msg[:maxMessage] + "…"
	}
	return msg
}

// failure is a tool error for a git command that failed: what was tried,
// and git's message.
func (o *output) failure(what string) error {
	return sdk.Failf("%s failed:\n%s", what, o.message())
}

// git runs git with args in dir. A non-zero exit is not an error: the
// caller reads output.code. Errors are a missing git binary or a timeout
// (tool errors) and cancellation (returned as is).
func git(ctx context.Context, dir string, r run, args ...string) (*output, error) {
	timeout := readTimeout
	if r.write {
		timeout = writeTimeout
	}
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	limit := r.limit
	if limit <= 0 {
		limit = maxRaw
	}
	stdout := &capped{limit: limit}
	var stderr capped
	stderr.limit = 64 << 10
	global := globalArgs
	if r.patterns {
		global = global[1:]
	}
	cmd := exec.CommandContext(cctx, gitBinary(), append(append([]string(nil), global...), args...)...)
	cmd.Dir = dir
	cmd.Env = append(gitEnv(r.write, !r.patterns), r.env...)
	cmd.Stdin = r.stdin
	cmd.Stdout = stdout
	cmd.Stderr = &stderr
	cmd.WaitDelay = 5 * time.Second
	var err error
	if r.confine {
		if _, err = sandbox.Start(cmd, policyFor(r.trusted)); err == nil {
			err = cmd.Wait()
		}
	} else {
		err = cmd.Run()
	}
	out := &output{stdout: stdout.buf.Bytes(), stderr: stderr.buf.Bytes(), cut: stdout.cut}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if cctx.Err() != nil {
		return nil, sdk.Failf("git %s took longer than %s and was stopped; narrow the request (fewer paths, a smaller count or line range)", args[0], timeout)
	}
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit):
		out.code = exit.ExitCode()
		if out.code < 0 {
			out.code = 128 // killed by a signal: SIGPIPE after a cut
		}
	case errors.Is(err, exec.ErrNotFound):
		return nil, sdk.Failf("git is not installed or not on the PATH of the git plugin; install git to use these tools")
	case errors.Is(err, errCut):
		// Stdout was cut; git may not have noticed yet.
	default:
		return nil, fmt.Errorf("run git %s: %w", args[0], err)
	}
	return out, nil
}

// errCut is returned by capped once full, so that exec stops copying and
// closes git's stdout.
var errCut = errors.New("output limit reached")

// capped keeps the first limit bytes written to it.
type capped struct {
	buf   bytes.Buffer
	limit int
	cut   bool
}

func (c *capped) Write(p []byte) (int, error) {
	room := c.limit - c.buf.Len()
	if len(p) > room {
		c.buf.Write(p[:max(room, 0)])
		c.cut = true
		return max(room, 0), errCut
	}
	return c.buf.Write(p)
}

// cutText cuts s to at most limit bytes at the last line end before the
// limit (or mid-line when a single line is longer), and reports whether it
// cut.
func cutText(s string, limit int) (string, bool) {
	if len(s) <= limit {
		return s, false
	}
	head := s[:limit]
	if i := strings.LastIndexByte(head, '\n'); i > 0 {
		return head[:i+1], true
	}
	return strings.ToValidUTF8(head, ""), true
}

// addNote appends a parenthesized note on a line of its own.
func addNote(text, note string) string {
	if text != "" && !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	return text + "(" + note + ")"
}

func sizeText(n int) string {
	if n < 1<<10 {
		return wording.Count(n, "byte")
	}
	return fmt.Sprintf("%d KiB", n>>10)
}

package shell

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/ramabana/ramabana-mcp/sdk"
	"github.com/ramabana/ramabana-mcp/sdk/roots"
)

// Argument defaults and bounds.
const (
	defaultTimeout   = 120
	maxTimeout       = 1800
	defaultMaxOutput = 64 << 10
	minMaxOutput     = 256
	maxMaxOutput     = 1 << 20
)

type runArgs struct {
	Command        string            `json:"command" jsonschema:"The command line, run as /bin/bash -c COMMAND: pipes, redirections, &&, ;, globs, quotes and variables work as in bash. Several lines are fine."`
	Cwd            string            `json:"cwd,omitempty" jsonschema:"Directory to run in: relative to the first served folder, or absolute inside a served folder. Default: the first served folder."`
	TimeoutSeconds int               `json:"timeout_seconds,omitempty" jsonschema:"Seconds before the command and everything it started are killed. Default 120, at most 1800."`
	Limit          int               `json:"limit,omitempty" jsonschema:"Bytes kept of stdout, and again of stderr; beyond it the middle of the stream is cut (the first 60% and the last 40% are kept). Default 65536, from 256 to 1048576."`
	Env            map[string]string `json:"env,omitempty" jsonschema:"Environment variables to set or override for this command, name to value; names are letters, digits and _, not starting with a digit."`
}

var runSpec = sdk.ToolSpec{
	Name:  "run_command",
	Title: "Run shell command",
	Kind:  sdk.KindWrite,
	Description: `Run a shell command line with /bin/bash -c in a served folder and return its exit status and output. Use it to build, test, run scripts and inspect the system; prefer the file tools to read and edit files.

The command runs non-interactively: stdin is empty (/dev/null), so anything that asks for input reads end-of-file; pass flags such as -y or --no-pager instead. The environment is not the server's: only allow-listed variables (PATH, HOME, USER, SHELL, LANG and LC_*, TZ, TERM, XDG_* folders, proxy and certificate settings, and those the user passed through), plus TMPDIR, a private temporary folder deleted when the call ends, plus env. API keys and tokens are not there. Each call starts a fresh shell: cd, variables and aliases do not carry over to the next call (use cwd, env, or && within one call).

Where the kernel allows, the command is sandboxed: it may write only inside the served folders, its TMPDIR and device files such as /dev/null (not /dev/shm; reading is not restricted; a write elsewhere fails with "Permission denied"), unless the server runs with --sandbox=off. It always runs in a session of its own with no terminal and without capabilities, even as root; where the kernel allows, it is pid 1 of a pid namespace of its own, so $$ is 1 while ps shows the machine's process ids.
Everything the command starts is stopped when the call ends: after timeout_seconds (default 120, at most 1800), when the call is cancelled, and when the shell exits, background jobs ("server &"), setsid and double forks included. So a command cannot leave a server or watcher running; run such a thing in the foreground with a timeout, for as long as you need its output.

stdout and stderr are captured separately, each up to max_output_bytes (default 65536): a longer stream keeps its first 60% and last 40% with "[... N bytes cut ...]" between them and its total size in the section header. Redirect to a file and view it in pages if you need all of it.

The result starts with one line: "exit 0 in 1.2s"; for a failure "exit 2 in 0.3s (non-zero exit status: the command failed)"; for a process killed by a signal "killed by SIGSEGV (signal 11) in 0.1s". Then "--- stdout ---" and "--- stderr ---" sections, each left out when the stream is empty. A non-zero exit is a normal result, not a tool error: read stderr to see why. A timeout is a tool error that still shows the output captured until then.`,
	InputSchema: runSchema,
}

var runSchema = func() json.RawMessage {
	s, err := jsonschema.For[runArgs](nil)
	if err != nil {
		panic(fmt.Sprintf("shell: schema: %v", err))
	}
	p := s.Properties
	one := 1
	p["command"].MinLength = &one
	bound(p["timeout_seconds"], defaultTimeout, 1, maxTimeout)
	bound(p["limit"], defaultMaxOutput, minMaxOutput, maxMaxOutput)
	p["env"].PropertyNames = &jsonschema.Schema{Type: "string", Pattern: envName.String()}
	b, err := json.Marshal(s)
	if err != nil {
		panic(fmt.Sprintf("shell: schema: %v", err))
	}
	return b
}()

func bound(p *jsonschema.Schema, def int, lo, hi float64) {
	p.Default = json.RawMessage(fmt.Sprint(def))
	p.Minimum, p.Maximum = &lo, &hi
}

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

func (s *server) runCommand(ctx context.Context, req *sdk.Request, args runArgs) (*sdk.Result, error) {
	if strings.TrimSpace(args.Command) == "" {
		return nil, sdk.Failf("command is empty; give a bash command line such as \"go test ./...\"")
	}
	if strings.IndexByte(args.Command, 0) >= 0 {
		return nil, sdk.Failf("command contains a NUL byte, which bash cannot take")
	}
	timeout, limit := args.TimeoutSeconds, args.Limit
	if timeout == 0 {
		timeout = defaultTimeout
	}
	if limit == 0 {
		limit = defaultMaxOutput
	}
	if timeout < 1 || timeout > maxTimeout {
		return nil, sdk.Failf("timeout_seconds is %d; give 1 to %d (default %d)", args.TimeoutSeconds, maxTimeout, defaultTimeout)
	}
	if limit < minMaxOutput || limit > maxMaxOutput {
		return nil, sdk.Failf("limit is %d; give %d to %d (default %d)", args.Limit, minMaxOutput, maxMaxOutput, defaultMaxOutput)
	}
	extra, msg := extraEnv(args.Env)
	if msg != "" {
		return nil, sdk.Failf("%s", msg)
	}
	// Reads outside do not matter: a working directory is resolved as a
	// write, always inside.
	h := req.Host
	h.ReadOutside = false
	r, err := s.roots.For(h)
	if err != nil {
		return nil, fmt.Errorf("run_command: served folders: %w", err)
	}
	dir, msg := workDir(r, args.Cwd)
	if msg != "" {
		return nil, sdk.Failf("%s", msg)
	}
	if ctx.Err() != nil {
		return nil, sdk.Failf("cancelled before the command started")
	}

	tmp, err := callTempDir()
	if err != nil {
		return nil, sdk.Failf("cannot make the command's temporary folder: %v", err)
	}
	defer func() { _ = os.RemoveAll(tmp) }()
	// env may override TMPDIR: exec keeps the last of duplicate names.
	env := append(append(sdk.ChildEnv(), "TMPDIR="+tmp), extra...)
	o, err := run(ctx, job{
		command: args.Command,
		dir:     dir,
		env:     env,
		policy:  policy(r.List(), req.Host.NoSandbox),
		timeout: time.Duration(timeout) * time.Second,
		limit:   limit,
		progress: func(elapsed time.Duration, output int64) {
			secs := int(elapsed.Round(time.Second) / time.Second)
			req.Events.Progress(float64(secs), 0, fmt.Sprintf("running %ds, %s output", secs, formatBytes(output)))
		},
	})
	if err != nil {
		return nil, sdk.Failf("cannot start %s in %s: %v", shellPath, r.Rel(dir), err)
	}
	return report(o, timeout), nil
}

// extraEnv is env as NAME=value entries in name order, or a message
// saying what is wrong with it.
func extraEnv(extra map[string]string) ([]string, string) {
	var env []string
	names := make([]string, 0, len(extra))
	for name := range extra {
		names = append(names, name)
	}
	slices.Sort(names)
	var bad []string
	for _, name := range names {
		v := extra[name]
		switch {
		case !envName.MatchString(name):
			bad = append(bad, fmt.Sprintf("%q is not a valid variable name (letters, digits and _, not starting with a digit)", name))
		case strings.IndexByte(v, 0) >= 0:
			bad = append(bad, fmt.Sprintf("the value of %s contains a NUL byte", name))
		default:
			env = append(env, name+"="+v)
		}
	}
	if len(bad) > 0 {
		return nil, "env: " + strings.Join(bad, "; ")
	}
	return env, ""
}

// workDir resolves cwd to an existing directory inside the roots, or
// returns a message saying why it cannot.
func workDir(r *roots.Roots, cwd string) (string, string) {
	list := r.List()
	if cwd == "" {
		if len(list) == 0 {
			return "", "no folders are served, so there is nowhere to run a command"
		}
		return list[0], ""
	}
	dir, err := r.ResolveWrite(cwd)
	if err != nil {
		if errors.Is(err, roots.ErrOutside) {
			return "", fmt.Sprintf("cwd: %v; commands run only inside the served folders", err)
		}
		return "", fmt.Sprintf("cwd: %v", err)
	}
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return "", fmt.Sprintf("cwd %q does not exist; create it first (mkdir -p within a command run from a parent folder) or pick another", cwd)
	case err != nil:
		return "", fmt.Sprintf("cwd %q: %v", cwd, err)
	case !fi.IsDir():
		return "", fmt.Sprintf("cwd %q is a file, not a directory", cwd)
	}
	return dir, ""
}

// report renders an outcome: a status line, notes, then the output
// sections.
func report(o *outcome, timeout int) *sdk.Result {
	var b strings.Builder
	isError := false
	took := fmt.Sprintf("%.1fs", o.elapsed.Seconds())
	switch {
	case o.timedOut:
		isError = true
		fmt.Fprintf(&b, "timed out after %ds (timeout_seconds): the command and every process it started were stopped. Output until then is below; if the command needs longer, raise timeout_seconds (at most %d).\n", timeout, maxTimeout)
	case o.cancelled:
		isError = true
		fmt.Fprintf(&b, "cancelled after %s: the command and every process it started were stopped. Output until then is below.\n", took)
	default:
		if sig, ok := exitSignal(o.state); ok {
			fmt.Fprintf(&b, "killed by %s in %s\n", signalName(sig), took)
			break
		}
		code := o.state.ExitCode()
		fmt.Fprintf(&b, "exit %d in %s", code, took)
		if code != 0 {
			b.WriteString(" (non-zero exit status: the command failed)")
		}
		b.WriteByte('\n')
	}
	if o.leftovers {
		b.WriteString("note: processes the command left running in the background were stopped when the shell exited\n")
	}
	if o.pipesHeld {
		b.WriteString("note: a process that left the command's process group (setsid or similar) kept the output open and was not stopped; its later output was not read\n")
	}
	if o.stdout.Total() == 0 && o.stderr.Total() == 0 {
		b.WriteString("(no output)\n")
	}
	o.stdout.writeSection(&b, "stdout")
	o.stderr.writeSection(&b, "stderr")
	res := sdk.TextResult(strings.TrimSuffix(b.String(), "\n"))
	res.IsError = isError
	return res
}

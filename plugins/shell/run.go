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
	"sync"
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
	Command        string            `json:"command" jsonschema:"bash command line"`
	Cwd            string            `json:"cwd,omitempty" jsonschema:"directory to run in, relative to the first served folder"`
	TimeoutSeconds int               `json:"timeout_seconds,omitempty" jsonschema:"kill everything after this many seconds"`
	Limit          int               `json:"limit,omitempty" jsonschema:"bytes kept of stdout, and of stderr"`
	Env            map[string]string `json:"env,omitempty" jsonschema:"environment variables to set"`
}

var runSpec = sdk.ToolSpec{
	Name:        "run_command",
	Title:       "Run shell command",
	Kind:        sdk.KindWrite,
	Description: `Run a command line with /bin/bash -c and return "exit N in Xs" and its stdout and stderr; a non-zero exit is a normal result. Non-interactive (stdin is /dev/null); each call is a fresh shell (use cwd, env or &&); the environment is allow-listed (no API keys). Sandboxed where the kernel allows: writes only inside the served folders and $TMPDIR. Everything it started is killed when the call ends, background jobs too. Longer output keeps its start and end.`,
}

var runSchema = sdk.LazySchemaFor[runArgs](func(p map[string]*jsonschema.Schema) {
	one := 1
	p["command"].MinLength = &one
	bound(p["timeout_seconds"], defaultTimeout, 1, maxTimeout)
	bound(p["limit"], defaultMaxOutput, minMaxOutput, maxMaxOutput)
	p["env"].PropertyNames = &jsonschema.Schema{Type: "string", Pattern: envName().String()}
})

func bound(p *jsonschema.Schema, def int, lo, hi float64) {
	p.Default = json.RawMessage(fmt.Sprint(def))
	p.Minimum, p.Maximum = &lo, &hi
}

var envName = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
})

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
		case !envName().MatchString(name):
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

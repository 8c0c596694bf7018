// Package plugincheck is `ramabana-mcp plugin check PATH`: the host's own
// checks of a plugin binary, run one by one, each reported as a line that
// says what holds or what to change. It launches the plugin with the
// server's launcher (internal/launch), so the plugin meets the same
// environment, handshake and description rules as in the server, and then
// tries what the server relies on: every tool answers arguments its schema
// accepts, an unknown tool is NOT_FOUND, a cancelled call leaves the
// plugin serving, an RPC without the call token is refused, the health
// service answers, and the plugin exits when its lifeline closes and when
// it is told to shut down.
package plugincheck

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	pluginv1 "github.com/ramabana/ramabana-mcp/internal/gen/ramabana/plugin/v1"
	"github.com/ramabana/ramabana-mcp/internal/launch"
	"github.com/ramabana/ramabana-mcp/internal/pluginrpc"
	"github.com/ramabana/ramabana-mcp/internal/schema"
	"github.com/ramabana/ramabana-mcp/internal/skills"
	"github.com/ramabana/ramabana-mcp/internal/textcut"
	"github.com/ramabana/ramabana-mcp/sdk"
)

// Status is how one check ended.
type Status string

const (
	// Pass: the plugin does what the host relies on.
	Pass Status = "ok"
	// Fail: the host would refuse the plugin, or a client would see it
	// misbehave; the detail says what to change.
	Fail Status = "FAIL"
	// Warn: allowed, but worth a look; it does not fail the run.
	Warn Status = "warn"
	// Skip: the check could not be made (the detail says why); it does not
	// fail the run.
	Skip Status = "skip"
)

// Finding is one check's outcome.
type Finding struct {
	Status Status
	// Check names what was checked ("handshake", "tool greet", ...).
	Check string
	// Detail says what was seen and, for a failure, what to do.
	Detail string
}

func (f Finding) String() string {
	s := fmt.Sprintf("%-4s  %s", f.Status, f.Check)
	if f.Detail != "" {
		s += ": " + f.Detail
	}
	return s
}

// Options are how the plugin is launched and how long it may take.
type Options struct {
	// Env is the plugin's environment (launch.Environ's result).
	Env []string
	// StartTimeout bounds the handshake, and then Describe.
	StartTimeout time.Duration
	// CallTimeout bounds each tool call and each wait for the plugin to
	// exit.
	CallTimeout time.Duration
	// HostVersion is sent in the host context.
	HostVersion string
	// Logger receives the plugin's stderr lines; nil discards them.
	Logger *slog.Logger
}

// Run checks the plugin binary at path, calling report with each finding
// as it is made, and returns how many failed. A plugin that does not
// start is one failed finding; the checks that need a running plugin are
// then not made. The plugin is described with a host context of a fresh
// empty root and config dir (removed afterwards), with writes allowed and
// the web and commands not: every tool is called there, so a write tool
// writes only in that scratch folder.
func Run(ctx context.Context, path string, opts Options, report func(Finding)) (int, error) {
	if opts.CallTimeout <= 0 {
		opts.CallTimeout = 10 * time.Second
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return 0, err
	}
	if fi, err := os.Stat(abs); err != nil {
		return 0, err
	} else if fi.IsDir() || fi.Mode()&0o111 == 0 {
		return 0, fmt.Errorf("%s is not an executable file", path)
	}
	scratch, err := os.MkdirTemp("", "ramabana-plugin-check-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(scratch)
	root, cfg := filepath.Join(scratch, "root"), filepath.Join(scratch, "cfg")
	for _, d := range []string{root, cfg} {
		if err := os.Mkdir(d, 0o700); err != nil {
			return 0, err
		}
	}
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	c := &checker{
		answered: map[string]bool{},
		cmd:      launch.Command{Name: filepath.Base(abs), Path: abs},
		host:     sdk.Host{Roots: []string{root}, Write: true, ConfigDir: cfg, HostVersion: opts.HostVersion},
		opts:     opts,
		report:   report,
	}
	c.run(ctx)
	return c.failed, nil
}

type checker struct {
	// answered are the tools whose call in the tool checks answered a
	// result: the cancelled-call check cancels one of them.
	answered map[string]bool
	cmd      launch.Command
	host     sdk.Host
	opts     Options
	report   func(Finding)
	failed   int
}

func (c *checker) add(st Status, check, format string, args ...any) {
	if st == Fail {
		c.failed++
	}
	c.report(Finding{Status: st, Check: check, Detail: fmt.Sprintf(format, args...)})
}

func (c *checker) launchOpts() launch.Options {
	return launch.Options{Env: c.opts.Env, StartTimeout: c.opts.StartTimeout, Logger: c.opts.Logger}
}

func (c *checker) run(ctx context.Context) {
	p, desc, err := launch.Start(ctx, c.cmd, c.host, c.launchOpts())
	if err != nil {
		c.add(Fail, "start", "%v", err)
		return
	}
	defer func() { p.Stop() }() // the last process: a check may launch a new one
	c.add(Pass, "handshake", "protocol %d, gRPC on %s", p.Protocol(), p.Addr())
	raw, err := c.describe(ctx, p)
	if err != nil {
		c.add(Fail, "describe again", "a second Describe failed: %v (the host describes a plugin once per launch, but a check or a reload may ask again)", err)
		raw = desc
	}
	c.description(raw)
	c.health(p)
	// Each check that calls the plugin runs on a live process: one a
	// tool's call crashed is reported with that call, and launched again
	// for the rest, so that they do not fail for the crash.
	for _, g := range desc.Groups {
		for _, t := range g.Tools {
			if p = c.relaunched(ctx, p); p == nil {
				return
			}
			c.tool(ctx, p, t)
		}
	}
	for _, check := range []func(*launch.Process){
		func(p *launch.Process) { c.unknownTool(ctx, p) },
		func(p *launch.Process) { c.cancelled(ctx, p, desc) },
		func(p *launch.Process) { c.token(ctx, p) },
		c.lifeline,
	} {
		if p = c.relaunched(ctx, p); p == nil {
			return
		}
		check(p)
	}
	c.shutdown(ctx)
}

// relaunched is p, or when it has exited a new launch of the plugin; nil,
// with a failure, when the plugin cannot be launched again.
func (c *checker) relaunched(ctx context.Context, p *launch.Process) *launch.Process {
	if !p.Exited() {
		return p
	}
	p.Stop()
	np, _, err := launch.Start(ctx, c.cmd, c.host, c.launchOpts())
	if err != nil {
		c.add(Fail, "relaunch", "the plugin exited, and launching it again for the checks left failed: %v", err)
		return nil
	}
	return np
}

func (c *checker) describe(ctx context.Context, p *launch.Process) (*sdk.Description, error) {
	ctx, cancel := context.WithTimeout(ctx, c.opts.CallTimeout)
	defer cancel()
	return p.Group().Describe(ctx, c.host)
}

// description reports what the host's validator says of each tool, and
// what a client would find hard to use.
func (c *checker) description(d *sdk.Description) {
	if err := d.Validate(); err != nil {
		c.add(Fail, "description", "%v", err) // launch.Start passed it once: the plugin answers differently now
		return
	}
	tools := 0
	for _, g := range d.Groups {
		tools += len(g.Tools)
	}
	c.add(Pass, "description", "%s %s: %d group(s), %d tool(s)", d.Name, d.Version, len(d.Groups), tools)
	if d.Description == "" {
		c.add(Warn, "description", "the plugin has no one-line description; `plugin list` and status show it")
	}
	for _, g := range d.Groups {
		if g.LocalData {
			c.add(Warn, "group "+g.Name, "claims local_data, which the host honours only for its own bundled groups; from this plugin it is ignored")
		}
		if len(g.Tools) == 0 {
			c.add(Warn, "group "+g.Name, "has no tools")
		}
		for _, t := range g.Tools {
			if err := t.ValidateTask(); err != nil {
				c.add(Fail, "tool "+t.Name, "%v: the host leaves this tool out", err)
			}
			if strings.TrimSpace(t.Description) == "" {
				c.add(Warn, "tool "+t.Name, "has no description: a model reads it to decide when and how to call the tool")
			}
		}
	}
}

func (c *checker) health(p *launch.Process) {
	if err := p.Ping(); err != nil {
		c.add(Fail, "health", "grpc.health.v1.Health/Check for service %q: %v; answer SERVING for it", "plugin", err)
		return
	}
	c.add(Pass, "health", "SERVING")
}

// firstEvent closes ch at a call's first progress or log event: the
// plugin's handler is running.
type firstEvent struct {
	once sync.Once
	ch   chan struct{}
}

func (e *firstEvent) Progress(float64, float64, string) { e.once.Do(func() { close(e.ch) }) }
func (e *firstEvent) Log(sdk.LogLevel, string)          { e.once.Do(func() { close(e.ch) }) }

// events records what a call streamed.
type events struct{ progress, logs int }

func (e *events) Progress(float64, float64, string) { e.progress++ }
func (e *events) Log(sdk.LogLevel, string)          { e.logs++ }

// tool calls t with the smallest arguments its schema accepts, and checks
// the answer is a result (an error result is fine: the arguments are
// placeholders) that matches the output schema and the tool's task.
func (c *checker) tool(ctx context.Context, p *launch.Process, t sdk.ToolSpec) {
	name := "tool " + t.Name
	args, why := validSample(t)
	if why != "" {
		c.add(Skip, name, "%s; call it yourself", why)
		return
	}
	cctx, cancel := context.WithTimeout(ctx, c.opts.CallTimeout)
	defer cancel()
	ev := &events{}
	start := time.Now()
	res, err := p.Group().Call(cctx, &sdk.Call{Tool: t.Name, Arguments: args, ID: "check-" + t.Name}, ev)
	took := fmt.Sprintf("%.1f ms", float64(time.Since(start).Microseconds())/1000)
	switch {
	case err != nil && p.ExitedWithin(time.Second):
		c.add(Fail, name, "called with %s: the plugin exited while running it: a tool must answer, not end the process (any error lines the plugin wrote to stderr are above)", args)
		return
	case timedOut(cctx, err) && ctx.Err() == nil:
		c.add(Fail, name, "called with %s: no result within %s; a tool must answer (or stream progress and then answer) in reasonable time", args, c.opts.CallTimeout)
		return
	case errors.Is(err, sdk.ErrUnknownTool):
		c.add(Fail, name, "called with %s: the plugin says it has no such tool (NOT_FOUND), but it describes it", args)
		return
	case err != nil:
		c.add(Fail, name, "called with %s: %v; a failure the model can act on is a Result with is_error, not a gRPC error", args, err)
		return
	}
	c.answered[t.Name] = true
	if res.IsError {
		c.add(Pass, name, "called with %s: an error result (%s), in %s", args, clip(res.Text(), 120), took)
		return
	}
	if msg := c.checkResult(t, res); msg != "" {
		c.add(Fail, name, "called with %s: %s", args, msg)
		return
	}
	c.add(Pass, name, "called with %s: answered in %s (%d progress, %d log events)", args, took, ev.progress, ev.logs)
}

// validSample is the sample arguments of t when its schema accepts them,
// or why there are none.
func validSample(t sdk.ToolSpec) (json.RawMessage, string) {
	args, err := SampleArguments(t.InputSchema)
	if err != nil {
		return nil, fmt.Sprintf("could not make arguments from its input schema (%v)", err)
	}
	v, err := schema.NewValidator(t.Name, t.InputSchema)
	if err != nil {
		return nil, fmt.Sprintf("its input schema does not compile (%v)", err)
	}
	if err := v.Validate(args); err != nil {
		return nil, fmt.Sprintf("the arguments made from its input schema, %s, do not satisfy it (%v)", args, err)
	}
	return args, ""
}

// checkResult says what is wrong with a successful result of t, if
// anything.
func (c *checker) checkResult(t sdk.ToolSpec, res *sdk.Result) string {
	if len(t.OutputSchema) > 0 {
		if len(res.Structured) == 0 {
			return "the tool has an output schema but the result has no structured content"
		}
		v, err := schema.NewValidator(t.Name, t.OutputSchema)
		if err != nil {
			return fmt.Sprintf("its output schema does not compile: %v", err)
		}
		if err := v.Validate(res.Structured); err != nil {
			why := strings.TrimPrefix(err.Error(), "invalid arguments for "+t.Name+": ") // the validator speaks of arguments
			return fmt.Sprintf("the structured result %s does not match the output schema: %s", clip(string(res.Structured), 200), why)
		}
	} else if len(res.Structured) > 0 && !json.Valid(res.Structured) {
		return "the structured result is not JSON"
	}
	switch t.EffectiveTask() {
	case sdk.TaskEvaluation:
		if _, err := sdk.ParseEvaluation(res); err != nil {
			return fmt.Sprintf("an evaluation tool must answer {\"is_valid\", \"score\", \"feedback\"}: %v", err)
		}
	case sdk.TaskSkill:
		if err := skills.CheckToolText(t.Name, res.Text()); err != nil {
			return err.Error()
		}
	}
	for _, ch := range res.Changes {
		if !filepath.IsAbs(ch.Path) {
			return fmt.Sprintf("a file change's path must be absolute, got %q", ch.Path)
		}
	}
	return ""
}

// unknownTool checks that a tool the plugin does not have is NOT_FOUND,
// which clients get as an unknown tool, not as a failure of the plugin.
func (c *checker) unknownTool(ctx context.Context, p *launch.Process) {
	const name = "ramabana_check_no_such_tool"
	cctx, cancel := context.WithTimeout(ctx, c.opts.CallTimeout)
	defer cancel()
	_, err := p.Group().Call(cctx, &sdk.Call{Tool: name, Arguments: json.RawMessage(`{}`), ID: "check-unknown"}, sdk.NoEvents)
	if errors.Is(err, sdk.ErrUnknownTool) {
		c.add(Pass, "unknown tool", "NOT_FOUND")
		return
	}
	c.add(Fail, "unknown tool", "a call of %q answered %v; answer the gRPC status NOT_FOUND for a tool you do not have", name, orResult(err))
}

// cancelled starts a call, cancels it once the plugin has it (or after a
// moment), and checks the plugin then still answers a call of the same
// tool: a plugin that blocks on an abandoned call stops serving.
func (c *checker) cancelled(ctx context.Context, p *launch.Process, desc *sdk.Description) {
	var tool string
	var args json.RawMessage
	for _, g := range desc.Groups {
		for _, t := range g.Tools {
			if a, why := validSample(t); why == "" && tool == "" && c.answered[t.Name] {
				tool, args = t.Name, a
			}
		}
	}
	if tool == "" {
		c.add(Skip, "cancelled call", "no tool answered a call the check could make")
		return
	}
	cctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	running := &firstEvent{ch: make(chan struct{})}
	go func() {
		_, err := p.Group().Call(cctx, &sdk.Call{Tool: tool, Arguments: args, ID: "check-cancel"}, running)
		done <- err
	}()
	select {
	case <-done: // answered before it could be cancelled: the next call still tells
		cancel()
	case <-running.ch: // the handler runs: it streamed an event
		cancel()
		<-done
	case <-time.After(100 * time.Millisecond): // the plugin has it by now, most likely
		cancel()
		<-done
	}
	if p.ExitedWithin(100 * time.Millisecond) {
		c.add(Fail, "cancelled call", "the plugin exited when a call of %s was cancelled; a cancelled call must end only that call", tool)
		return
	}
	nctx, ncancel := context.WithTimeout(ctx, c.opts.CallTimeout)
	defer ncancel()
	if _, err := p.Group().Call(nctx, &sdk.Call{Tool: tool, Arguments: args, ID: "check-after-cancel"}, sdk.NoEvents); timedOut(nctx, err) && ctx.Err() == nil {
		c.add(Fail, "cancelled call", "after a call of %s was cancelled, the next call of it did not answer within %s: a cancelled call must release what it holds", tool, c.opts.CallTimeout)
		return
	} else if err != nil && p.Exited() {
		c.add(Fail, "cancelled call", "after a call of %s was cancelled, the plugin exited on the next call of it: %v", tool, err)
		return
	}
	c.add(Pass, "cancelled call", "a call of %s cancelled while it ran; the next call of it answered", tool)
}

// timedOut says a call made with ctx ended for its deadline: ctx says so,
// or the call's error does (gRPC's own timer for the deadline can end the
// call a moment before ctx's marks ctx done).
func timedOut(ctx context.Context, err error) bool {
	return ctx.Err() != nil || errors.Is(err, context.DeadlineExceeded)
}

// token dials the plugin without the call token and with a wrong one:
// both must be refused, since any program of the user can reach the socket.
func (c *checker) token(ctx context.Context, p *launch.Process) {
	addr := p.Addr()
	if addr == nil {
		c.add(Skip, "call token", "the plugin's address is unknown")
		return
	}
	for _, tc := range []struct {
		what string
		opts []grpc.DialOption
	}{
		{"without the call token", nil},
		{"with a wrong call token", []grpc.DialOption{pluginrpc.TokenDialOption("not-the-token")}},
	} {
		dial := append([]grpc.DialOption{grpc.WithTransportCredentials(insecure.NewCredentials())}, tc.opts...)
		target := addr.String()
		if addr.Network() == "unix" {
			target = "unix:" + target
		}
		conn, err := grpc.NewClient(target, dial...)
		if err != nil {
			c.add(Skip, "call token", "dial %s: %v", addr, err)
			return
		}
		cli := pluginv1.NewToolGroupServiceClient(conn)
		cctx, cancel := context.WithTimeout(ctx, c.opts.CallTimeout)
		_, err = cli.Describe(cctx, &pluginv1.DescribeRequest{Host: &pluginv1.HostContext{Roots: []string{"/"}, Write: true, Commands: true}})
		var callErr error
		if stream, serr := cli.Call(cctx, &pluginv1.CallRequest{Tool: "ramabana_check_no_such_tool", Arguments: []byte(`{}`)}); serr != nil {
			callErr = serr
		} else {
			_, callErr = stream.Recv()
		}
		cancel()
		_ = conn.Close()
		for _, rpc := range []struct {
			name string
			err  error
		}{{"Describe", err}, {"Call", callErr}} {
			if status.Code(rpc.err) != codes.Unauthenticated {
				c.add(Fail, "call token", "%s %s answered %v; refuse every RPC whose metadata %q is not the %s of your environment (UNAUTHENTICATED): any program of the user can reach your socket",
					rpc.name, tc.what, orResult(rpc.err), "ramabana-plugin-token", pluginrpc.TokenEnv)
				return
			}
		}
	}
	c.add(Pass, "call token", "RPCs without it, or with a wrong one, are refused")
}

// lifeline closes the plugin's stdin and waits for it to exit.
func (c *checker) lifeline(p *launch.Process) {
	p.CloseLifeline()
	if !p.ExitedWithin(c.opts.CallTimeout) {
		c.add(Fail, "lifeline", "the plugin still runs %s after its stdin closed; exit when stdin reaches EOF: the host is gone", c.opts.CallTimeout)
		return
	}
	c.add(Pass, "lifeline", "exits when its stdin closes")
}

// shutdown launches the plugin again and asks it to exit through
// GRPCController.Shutdown, as the host does after a start it refused.
func (c *checker) shutdown(ctx context.Context) {
	p, _, err := launch.Start(ctx, c.cmd, c.host, c.launchOpts())
	if err != nil {
		c.add(Fail, "shutdown", "a second launch failed: %v", err)
		return
	}
	defer p.Stop()
	_ = p.Shutdown()
	if !p.ExitedWithin(c.opts.CallTimeout) {
		c.add(Fail, "shutdown", "the plugin still runs %s after plugin.GRPCController/Shutdown; answer it, then exit", c.opts.CallTimeout)
		return
	}
	c.add(Pass, "shutdown", "exits on GRPCController/Shutdown")
}

func orResult(err error) string {
	if err == nil {
		return "a result"
	}
	return err.Error()
}

func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	return textcut.Prefix(s, n) + "…"
}

// Package upstreamcli is `ramabana-mcp upstream diff|approve`: what the
// user does about an upstream MCP server's tools that the pins hold back
// (upstream.Pins). Each command connects to the server as the server
// would (the same config files, the same launch), lists its tools, and
// compares them with the pins, or pins them.
package upstreamcli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ramabana/ramabana-mcp/host/internal/upstream"
	"github.com/ramabana/ramabana-mcp/internal/cliflag"
)

// Command is one subcommand as the usage texts list it.
type Command struct {
	Synopsis, Summary string
}

// Commands are the upstream subcommands, for this package's usage and the
// server's.
var Commands = []Command{
	{"diff ID", "compare the server's tools as it lists them now with their pins"},
	{"approve ID [TOOL...]", "pin the tools as listed now (every tool when none is named): held ones are served"},
	{"login ID", "authorize a remote server with OAuth: prints a URL to open, waits for the redirect, keeps the token"},
	{"logout ID", "forget the OAuth token kept for a server"},
}

// Help is the command that prints the subcommands' usage.
const Help = "ramabana-mcp upstream --help"

var flagSections = []cliflag.Section{{
	Title: "flags (before or after the arguments)",
	Flags: []string{"cfg DIR", "mcp-config FILES", "upstream-connect-timeout DURATION", "login-timeout DURATION", "client-id ID", "client-secret-env NAME", "redirect-port PORT"},
}}

// Usage writes the subcommands and their flags to w.
func Usage(w io.Writer) {
	fmt.Fprint(w, "usage: ramabana-mcp upstream <command> [flags]\n\ncommands:\n")
	for _, c := range Commands {
		fmt.Fprintf(w, "  %-22s %s\n", c.Synopsis, c.Summary)
	}
	cliflag.PrintFlags(w, newFlagSet(&options{}), flagSections)
}

// Env is what the subcommands need of the binary they run in.
type Env struct {
	Version        string
	Stdout, Stderr io.Writer
}

type options struct {
	cfg          string
	mcpConfigs   cliflag.List
	timeout      time.Duration
	loginTimeout time.Duration
	clientID     string
	secretEnv    string
	redirectPort int
	args         []string
}

func newFlagSet(o *options) *flag.FlagSet {
	fs := flag.NewFlagSet("ramabana-mcp upstream", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	fs.StringVar(&o.cfg, "cfg", "", "config dir: CFG/mcp.json is read, and the pins are in CFG/pins (default: ~/.config/ramabana)")
	fs.Var(&o.mcpConfigs, "mcp-config", "more MCP config files, as the server reads them")
	cliflag.DurationVar(fs, &o.timeout, "upstream-connect-timeout", upstream.DefaultConnectTimeout, "how long the server may take to start and list its tools")
	cliflag.DurationVar(fs, &o.loginTimeout, "login-timeout", 10*time.Minute, "login: how long to wait for the authorization in the browser")
	fs.StringVar(&o.clientID, "client-id", "", "login: a client registered with the authorization server beforehand, for one that offers no dynamic registration")
	fs.StringVar(&o.secretEnv, "client-secret-env", "", "login: the environment variable that holds that client's secret, for a confidential client (never on the command line)")
	fs.IntVar(&o.redirectPort, "redirect-port", 0, "login: the loopback port of the redirect, http://127.0.0.1:PORT/callback (default: any free one)")
	return fs
}

func parse(args []string) (*options, error) {
	o := &options{}
	rest, err := cliflag.ParseAnywhere(newFlagSet(o), args)
	if err != nil {
		return nil, err
	}
	o.args = rest
	return o, nil
}

func usageErr(err error) error { return cliflag.Usage(err, Help) }

// Run runs `ramabana-mcp upstream ARGS`. Results go to env.Stdout; the
// server's stderr and the errors to env.Stderr.
func Run(ctx context.Context, env Env, args []string) error {
	if len(args) == 0 {
		return usageErr(errors.New("usage: ramabana-mcp upstream diff ID | approve ID [TOOL...]: a command is missing"))
	}
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "-h", "-help", "--help", "help":
		Usage(env.Stdout)
		return nil
	case "diff", "approve", "login", "logout":
	default:
		return usageErr(fmt.Errorf("upstream %q: unknown command; use diff ID, approve ID [TOOL...], login ID or logout ID", cmd))
	}
	o, err := parse(rest)
	if errors.Is(err, flag.ErrHelp) {
		Usage(env.Stdout)
		return nil
	}
	if err != nil {
		return usageErr(err)
	}
	if len(o.args) == 0 || cmd != "approve" && len(o.args) != 1 {
		return usageErr(fmt.Errorf("upstream %s: want a server id%s, got %q", cmd, map[bool]string{true: " and the tools to approve, if not all"}[cmd == "approve"], o.args))
	}
	if o.cfg, err = cliflag.ConfigDir(o.cfg); err != nil {
		return err
	}
	server, err := lookup(o, o.args[0])
	if err != nil {
		return err
	}
	tokens := upstream.ConfigTokens(o.cfg)
	switch cmd {
	case "login":
		return login(ctx, env, o, server, tokens)
	case "logout":
		if err := tokens.Forget(server.ID); err != nil {
			return err
		}
		fmt.Fprintf(env.Stdout, "forgot the OAuth token of MCP server %q (if one was kept)\n", server.ID)
		return nil
	}
	tools, err := list(ctx, env, o, server)
	if err != nil {
		return err
	}
	pins := upstream.ConfigPins(o.cfg)
	if cmd == "diff" {
		return diff(env.Stdout, pins, server, tools)
	}
	names, err := pins.Approve(server.ID, tools, o.args[1:])
	if err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "pinned %d tool(s) of MCP server %q as listed now: %s\n", len(names), server.ID, strings.Join(names, ", "))
	fmt.Fprintf(env.Stdout, "a running server serves them at once (it watches %s)\n", pins.Dir)
	return nil
}

// lookup finds the server id in the config files the server reads.
func lookup(o *options, id string) (upstream.Server, error) {
	files := []upstream.File{{Path: filepath.Join(o.cfg, "mcp.json")}}
	for _, f := range o.mcpConfigs {
		files = append(files, upstream.File{Path: f, Required: true})
	}
	cfg, problems := upstream.Load(files)
	s, ok := cfg.Lookup(id)
	if !ok {
		var ids []string
		for _, s := range cfg.Servers() {
			ids = append(ids, s.ID)
		}
		msg := fmt.Sprintf("no MCP server %q in %s", id, files[0].Path)
		if len(o.mcpConfigs) > 0 {
			msg += " nor --mcp-config " + o.mcpConfigs.String()
		}
		if len(ids) > 0 {
			msg += "; the servers are " + strings.Join(ids, ", ")
		}
		if len(problems) > 0 {
			msg += fmt.Sprintf(" (%s)", errors.Join(problems...))
		}
		return upstream.Server{}, errors.New(msg)
	}
	return s, nil
}

// connectOptions are the options the server connects with, less the pins.
func connectOptions(env Env, o *options) upstream.ConnectOptions {
	return upstream.ConnectOptions{Name: "ramabana-mcp", Version: env.Version, Stderr: env.Stderr, ConnectTimeout: o.timeout,
		Tokens: upstream.ConfigTokens(o.cfg)}
}

// list connects to s as the server would, unpinned, and lists its tools
// (those its allow and deny lists let through).
func list(ctx context.Context, env Env, o *options, s upstream.Server) ([]upstream.Tool, error) {
	l := upstream.NewLink(s, connectOptions(env, o), nil)
	defer l.Close()
	return l.Connect(ctx)
}

// login runs the OAuth flow for s and keeps the token.
func login(ctx context.Context, env Env, o *options, s upstream.Server, tokens upstream.Tokens) error {
	ctx, cancel := context.WithTimeout(ctx, o.loginTimeout)
	defer cancel()
	lo := upstream.LoginOptions{Out: env.Stdout, ClientID: o.clientID, RedirectPort: o.redirectPort}
	if o.secretEnv != "" && o.clientID == "" {
		return usageErr(errors.New("--client-secret-env needs --client-id: the secret is that client's"))
	}
	if o.secretEnv != "" {
		secret, ok := os.LookupEnv(o.secretEnv)
		if !ok || secret == "" {
			return fmt.Errorf("--client-secret-env %s: the variable is not set", o.secretEnv)
		}
		lo.ClientSecret = secret
	}
	if o.redirectPort < 0 || o.redirectPort > 65535 {
		return usageErr(fmt.Errorf("--redirect-port %d: a port is 0 to 65535", o.redirectPort))
	}
	tools, err := upstream.Login(ctx, s, connectOptions(env, o), tokens, lo)
	if err != nil {
		return fmt.Errorf("login to MCP server %q: %w", s.ID, err)
	}
	fmt.Fprintf(env.Stdout, "logged in to MCP server %q: it lists %d tools; the token is kept in %s (mode 0600) and refreshed as it expires\n",
		s.ID, len(tools), tokens.Dir)
	return nil
}

// diff prints each tool's state against its pin, and for a changed one
// its fields, pinned and listed.
func diff(w io.Writer, pins upstream.Pins, s upstream.Server, tools []upstream.Tool) error {
	diffs := pins.Diff(s.ID, tools)
	count := map[string]int{}
	for _, d := range diffs {
		count[d.State]++
	}
	fmt.Fprintf(w, "MCP server %q (pin: %s): %d listed; %d as pinned, %d changed, %d new, %d gone\n",
		s.ID, pinMode(s), len(tools), count["pinned"], count["changed"], count["new"], count["gone"])
	for _, d := range diffs {
		fmt.Fprintf(w, "%-8s %s\n", d.State, d.Tool)
		for _, f := range d.Fields {
			fmt.Fprintf(w, "  %s\n    pinned: %s\n    listed: %s\n", f.Field, shown(f.Pinned), shown(f.Listed))
		}
	}
	if count["changed"] > 0 || count["new"] > 0 && s.Pin == upstream.PinStrict {
		fmt.Fprintf(w, "\nthe changed%s tools are held back; `ramabana-mcp upstream approve %s [TOOL...]` serves them as listed now\n",
			map[bool]string{true: " and new"}[s.Pin == upstream.PinStrict], s.ID)
	}
	return nil
}

func pinMode(s upstream.Server) upstream.PinMode {
	if s.Pin == "" {
		return upstream.PinNewTools
	}
	return s.Pin
}

// shown is a field's value on one line: "(none)" when empty, control
// characters escaped (a server's text must not move the terminal's
// cursor or colour what follows).
func shown(v string) string {
	if v == "" {
		return "(none)"
	}
	var b strings.Builder
	for _, r := range v {
		switch {
		case r == '\n':
			b.WriteString(`\n`)
		case r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

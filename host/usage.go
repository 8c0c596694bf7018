package host

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/ramabana/ramabana-mcp/host/internal/plugincli"
	"github.com/ramabana/ramabana-mcp/host/internal/upstreamcli"
	"github.com/ramabana/ramabana-mcp/internal/cliflag"
)

// help is the command that prints the server's usage.
const help = "ramabana-mcp --help"

// usageErr is err as a usage error: the command line cannot run.
func usageErr(err error) error { return cliflag.Usage(err, help) }

// FlagSections group the server's flags in the usage text. A flag left
// out still shows, under "other flags"; TestUsage fails on it.
var FlagSections = []cliflag.Section{
	{Title: "serving", Flags: []string{"root DIRS", "transport NAME", "addr HOST:PORT", "token TOKEN", "allow-origin ORIGINS", "stateless", "pprof"}},
	{Title: "policy: which tools are served, and how", Flags: []string{"write", "groups NAMES", "read-outside", "web", "sandbox on|off", "pii MODE", "pii-ner", "vault"}},
	{Title: "plugins", Flags: []string{"plugins DIRS", "plugin-env NAMES", "start-timeout DURATION", "plugin-idle DURATION"}},
	{Title: "upstream MCP servers", Flags: []string{"mcp-config FILES", "upstream-connect-timeout DURATION", "upstream-wait DURATION"}},
	{Title: "search", Flags: []string{"tools all|search", "embed-model MODEL", "embed-url URL", "embed-key-env NAME"}},
	{Title: "ask agent", Flags: []string{"model MODEL", "model-url URL", "model-key-env NAME", "delegate", "max-steps N", "max-retries N", "context-budget N"}},
	{Title: "telemetry", Flags: []string{"otel", "metrics"}},
	{Title: "config and logging", Flags: []string{"cfg DIR", "log-level LEVEL", "version"}},
}

// PrintUsage writes the server's usage: what it is, the subcommands, the
// flags (the command's flag set) by section, and where to read more.
func PrintUsage(w io.Writer, flags *flag.FlagSet) {
	fmt.Fprint(w, `ramabana-mcp serves a coding assistant's tools (files, code, git, shell, web and
plugins) to an MCP client, over stdio by default or over HTTP.

usage:
  ramabana-mcp [flags]              serve MCP on stdin and stdout, or HTTP with --transport http
`)
	for _, c := range plugincli.Commands {
		fmt.Fprintf(w, "  ramabana-mcp plugin %-13s %s\n", c.Synopsis, c.Summary)
	}
	for _, c := range upstreamcli.Commands {
		fmt.Fprintf(w, "  ramabana-mcp upstream %-20s\n      %s\n", c.Synopsis, c.Summary)
	}
	fmt.Fprint(w, `  ramabana-mcp help [plugin|upstream] this text, or the plugin or upstream commands' flags (also -h, --help)
`)
	cliflag.PrintFlags(w, flags, FlagSections)
	fmt.Fprint(w, `
A flag takes --name value or --name=value; lists are comma-separated or
repeated; a boolean is turned off with --name=false.
More in README.md, in the source or at https://github.com/ramabana/ramabana-mcp.
`)
}

// Help is `help [topic]`: the usage, or the plugin or upstream commands'
// with topic plugin or upstream.
func Help(args []string, stdout io.Writer, flags *flag.FlagSet) error {
	switch {
	case len(args) == 0:
		PrintUsage(stdout, flags)
	case len(args) == 1 && args[0] == "plugin":
		plugincli.Usage(stdout)
	case len(args) == 1 && args[0] == "upstream":
		upstreamcli.Usage(stdout)
	default:
		return cliflag.Usage(fmt.Errorf("help %q: no such topic; use help, help plugin or help upstream", strings.Join(args, " ")), help)
	}
	return nil
}

// stdioHint is what the server says before serving stdio to a terminal:
// a person who started it by hand learns what it is and how to use it,
// instead of facing a silent process. Empty when there is nothing to say.
func stdioHint(transport string, stdinIsTerminal bool) string {
	if transport != "stdio" || !stdinIsTerminal {
		return ""
	}
	return `ramabana-mcp: this is an MCP server: it reads JSON-RPC on stdin and answers on stdout, for an MCP client to start.
  Add it to the client's config, e.g. "mcpServers": {"ramabana": {"command": "ramabana-mcp", "args": ["--root", "/path/to/repo"]}},
  or serve HTTP: ramabana-mcp --transport http. ramabana-mcp --help lists the flags; Ctrl-D quits.
`
}

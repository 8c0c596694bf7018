// Command ramabana-mcp serves a coding assistant's tool groups over MCP.
// Each group runs in its own plugin process; see the README. It reads the
// command line into a host.Config and calls host.Run (package host); the
// plugin subcommands are host.PluginCommand.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
	"time"

	"github.com/ramabana/ramabana-mcp/host"
	"github.com/ramabana/ramabana-mcp/internal/cliflag"
	"github.com/ramabana/ramabana-mcp/internal/gctune"
	"github.com/ramabana/ramabana-mcp/internal/launch"
	"github.com/ramabana/ramabana-mcp/internal/pluginrpc"
	"github.com/ramabana/ramabana-mcp/internal/sandbox"
)

// stopDeadline bounds a shutdown: SIGTERM, SIGINT or SIGHUP cancels the
// calls in flight and stops the plugins (and so their commands), and the
// server exits within it however that goes. The promise is 2 s; the margin
// covers the process's own exit.
const stopDeadline = 1800 * time.Millisecond

func main() {
	// Before anything starts a process: a descriptor the server inherited
	// by accident reaches no plugin and no command.
	if err := launch.CloseInheritedOnExec(); err != nil {
		fmt.Fprintln(os.Stderr, "ramabana-mcp: warning: cannot keep inherited file descriptors from the plugins:", err)
	}
	// A bundled plugin handles its own signals (sdk.Serve): it must not
	// inherit the server's, which would swallow SIGTERM.
	if len(os.Args) > 2 && os.Args[1] == "plugin" && os.Args[2] == "serve" {
		exit(runPlugin(context.Background(), os.Args[2:]))
	}
	// First, before any secret is read or any plugin started: a same-uid
	// command cannot read the host's environ or memory.
	if err := sandbox.NonDumpable(); err != nil {
		fmt.Fprintln(os.Stderr, "ramabana-mcp: warning: cannot make the server non-dumpable:", err)
	}
	// The server's collector gets room to work in (the plugins keep Go's
	// default): see package gctune.
	gctune.Start(0)
	ctx, cancel := context.WithCancel(context.Background())
	// Beside the start, not before it: signal.Notify waits for the
	// runtime's signal thread to start, ~1 ms of the client's wait. A
	// signal that comes before the goroutine has run (a moment, or longer
	// with GOMAXPROCS=1) ends the server at once, as one before main does:
	// no graceful stop, and any plugin or upstream server started by then
	// follows it through its lifeline and parent-death signal
	// (stopOnSignal).
	go func() {
		sigs := make(chan os.Signal, 2)
		signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
		stopOnSignal(sigs, cancel)
	}()
	exit(run(ctx, os.Args[1:]))
}

// stopOnSignal cancels ctx at the first signal, which ends the session,
// cancels the calls in flight and stops the plugins; a second signal, or
// a shutdown that overruns stopDeadline, exits at once. A plugin outlives
// that exit only briefly: its lifeline pipe closes with the host and its
// parent-death signal fires, and it ends its commands on the way out.
func stopOnSignal(sigs <-chan os.Signal, cancel context.CancelFunc) {
	sig := <-sigs
	fmt.Fprintf(os.Stderr, "ramabana-mcp: %s: stopping\n", sig)
	cancel()
	select {
	case sig = <-sigs:
		fmt.Fprintf(os.Stderr, "ramabana-mcp: %s again: exiting now\n", sig)
	case <-time.After(stopDeadline):
		fmt.Fprintf(os.Stderr, "ramabana-mcp: not stopped after %s: exiting now\n", stopDeadline)
	}
	launch.RemoveSocketDir() // the plugins are going too: their lifelines close with this process
	os.Exit(1)
}

// exit ends the process: status 0 on success, 2 on a command line that
// cannot run (with a pointer to the usage), 1 on any other failure.
func exit(err error) {
	if err == nil {
		os.Exit(0)
	}
	fmt.Fprintln(os.Stderr, "ramabana-mcp:", err)
	if ue, ok := errors.AsType[*cliflag.UsageError](err); ok {
		fmt.Fprintf(os.Stderr, "run %s for usage\n", ue.Help)
		os.Exit(2)
	}
	os.Exit(1)
}

// version is set at build time with -ldflags "-X main.version=..."; a
// module build falls back to the module version.
var version = ""

func hostVersion() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

// run dispatches the subcommands: `help` prints the usage, `plugin ...`
// runs the plugin commands (`plugin serve <name>` a bundled group as a
// plugin process), `upstream ...` the upstream servers' pins; anything
// else serves MCP.
func run(ctx context.Context, args []string) error {
	if len(args) > 0 {
		switch args[0] {
		case "help":
			return host.Help(args[1:], os.Stdout, newFlagSet(&flags{}))
		case "plugin":
			return runPlugin(ctx, args[1:])
		case "upstream":
			return host.UpstreamCommand(ctx, args[1:], host.CommandEnv{Version: hostVersion(), Stdout: os.Stdout, Stderr: os.Stderr})
		}
	}
	f, err := parseFlags(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		host.PrintUsage(os.Stdout, newFlagSet(&flags{}))
		return nil
	case err != nil:
		return err
	case f.version:
		fmt.Println("ramabana-mcp", hostVersion(), "protocol", pluginrpc.ProtocolVersion)
		return nil
	}
	f.cfg.Version = hostVersion()
	return host.Run(ctx, f.cfg)
}

// runPlugin runs `plugin ...` (host.PluginCommand).
func runPlugin(ctx context.Context, args []string) error {
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("find own binary: %w", err)
	}
	return host.PluginCommand(ctx, args, host.CommandEnv{Self: self, Version: hostVersion(), Stdout: os.Stdout, Stderr: os.Stderr})
}

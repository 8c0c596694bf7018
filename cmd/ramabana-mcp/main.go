// Command ramabana-mcp serves a coding assistant's tool groups over MCP.
// Each group runs in its own plugin process; see the README.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	// A bundled plugin handles its own signals (sdk.Serve): it must not
	// inherit the server's, which would swallow SIGTERM.
	if len(os.Args) > 2 && os.Args[1] == "plugin" && os.Args[2] == "serve" {
		exit(runPlugin(context.Background(), os.Args[2:]))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	err := run(ctx, os.Args[1:])
	stop()
	exit(err)
}

func exit(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "ramabana-mcp:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

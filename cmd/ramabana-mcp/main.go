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
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:])
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "ramabana-mcp:", err)
		os.Exit(1)
	}
}

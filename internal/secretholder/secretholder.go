// Package secretholder starts, for a test, a non-dumpable process that
// holds a secret in its environment: what a command must not read. It is
// apart from proctest, which the sandbox's own tests use, because it needs
// the sandbox.
package secretholder

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"testing"

	"github.com/ramabana/ramabana-mcp/internal/sandbox"
)

// holderEnv makes a re-executed test binary a secret holder.
const holderEnv = "RAMABANA_SECRET_HOLDER"

// Run, called first in a TestMain, turns a test binary started by
// Start into a non-dumpable process that holds its secret in its
// environment until its stdin closes, then exits; in any other process it
// returns at once.
func Run() {
	if os.Getenv(holderEnv) != "1" {
		return
	}
	if err := sandbox.NonDumpable(); err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	fmt.Println("ready")
	_, _ = io.Copy(io.Discard, os.Stdin)
	os.Exit(0)
}

// Start re-executes the test binary (whose TestMain calls Run)
// as a non-dumpable process with HOLDER_SECRET=secret in its environment,
// and returns its pid once it is ready; the test's cleanup ends it.
func Start(t *testing.T, secret string) int {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), holderEnv+"=1", "HOLDER_SECRET="+secret)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = stdin.Close()
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	if line, _ := bufio.NewReader(out).ReadString('\n'); line != "ready\n" {
		t.Fatalf("holder: %q", line)
	}
	return cmd.Process.Pid
}

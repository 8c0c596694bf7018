package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Mode env's environ answers the server's environment, sorted.
func TestEnvMode(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(binary, "-mode", "env")
	cmd.Env = []string{"B_VAR=2", "A_VAR=1"}
	cmd.Stderr = os.Stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil)
	session, err := client.Connect(t.Context(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = session.Close() })
	res, err := session.CallTool(t.Context(), &mcp.CallToolParams{Name: "environ"})
	if err != nil || res.IsError {
		t.Fatalf("environ = %v, %v", res, err)
	}
	if got := res.Content[0].(*mcp.TextContent).Text; !strings.HasPrefix(got, "A_VAR=1\nB_VAR=2") {
		t.Errorf("environ = %q, want A_VAR=1 then B_VAR=2 first", got)
	}
}

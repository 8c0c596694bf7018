package upstream

import (
	"encoding/json"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestEverythingServer runs @modelcontextprotocol/server-everything when it
// is installed (npm install -g puts mcp-server-everything on PATH); it is
// never installed by the test.
func TestEverythingServer(t *testing.T) {
	bin, err := exec.LookPath("mcp-server-everything")
	if err != nil {
		t.Skip("@modelcontextprotocol/server-everything is not installed")
	}
	t.Parallel()
	p := newPool(t, &Config{servers: map[string]Server{
		"everything": {ID: "everything", Type: TypeStdio, Command: bin, Args: []string{"stdio"}},
	}})
	tools, err := p.Connect(t.Context(), "everything")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(tools, func(tl Tool) bool { return tl.Namespaced == "everything__echo" }) {
		t.Fatalf("no everything__echo in %v", namespaced(tools))
	}
	res, err := p.Call(t.Context(), "everything__echo", json.RawMessage(`{"message":"ping"}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError || len(res.Content) == 0 || !strings.Contains(res.Content[0].Text, "ping") {
		t.Errorf("echo = %+v", res)
	}
}

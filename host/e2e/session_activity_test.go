package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestHTTPSessionsSeeTheirOwnActivity: two clients of one HTTP server each
// create a file; each one's activity and changes tools show its own call
// and file, not the other's, and the status counts both.
func TestHTTPSessionsSeeTheirOwnActivity(t *testing.T) {
	t.Parallel()
	root := project(t)
	_, base := startHTTP(t, root, "--write")
	alice := connect(t, &mcp.StreamableClientTransport{Endpoint: base + "/mcp"})
	bob := connect(t, &mcp.StreamableClientTransport{Endpoint: base + "/mcp"})
	for cs, name := range map[*mcp.ClientSession]string{alice: "alice.txt", bob: "bob.txt"} {
		if res, err := call(t, cs, "create_file", map[string]any{"path": name, "content": "hello\n"}); err != nil || res.IsError {
			t.Fatalf("create_file %s: %v %s", name, err, text(res))
		}
	}
	for cs, who := range map[*mcp.ClientSession][2]string{alice: {"alice.txt", "bob.txt"}, bob: {"bob.txt", "alice.txt"}} {
		own, other := who[0], who[1]
		for _, tool := range []string{"activity", "changes"} {
			res, err := call(t, cs, tool, map[string]any{})
			if err != nil || res.IsError {
				t.Fatalf("%s: %v %s", tool, err, text(res))
			}
			if out := text(res); !strings.Contains(out, own) || strings.Contains(out, other) {
				t.Errorf("the session that created %s sees in %s:\n%s", own, tool, out)
			}
		}
	}
	for _, name := range []string{"alice.txt", "bob.txt"} {
		if _, err := os.Stat(filepath.Join(root, name)); err != nil {
			t.Error(err)
		}
	}
	st, err := readResource(t, alice, "ramabana://status")
	if err != nil {
		t.Fatal(err)
	}
	var status struct {
		Activity struct {
			Records      int `json:"records"`
			FilesChanged int `json:"files_changed"`
		} `json:"activity"`
	}
	if err := json.Unmarshal([]byte(st), &status); err != nil {
		t.Fatal(err)
	}
	if status.Activity.FilesChanged != 2 || status.Activity.Records < 4 {
		t.Errorf("status's activity = %+v, want both sessions' two files and at least their four calls", status.Activity)
	}
}

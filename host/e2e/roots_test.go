//lint:file-ignore SA1019 MCP roots are deprecated by protocol 2026-07-28 (SEP-2577), and are what clients that open sessions with initialize, every client today, speak.

package e2e

import (
	"context"
	"encoding/json"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ramabana/ramabana-mcp/internal/proctest"
)

// fileURI is the file: URI of an absolute path, as clients send roots.
func fileURI(path string) string { return (&url.URL{Scheme: "file", Path: path}).String() }

// Started without --root over stdio, the server serves the folders the
// client lists as its roots, and follows them when they change: the files
// the tools see, the skills, the status. Roots that are not local folders
// are left out.
func TestServesTheClientsRootsAndFollowsThem(t *testing.T) {
	t.Parallel()
	cwd, a, b := t.TempDir(), t.TempDir(), t.TempDir()
	for dir, name := range map[string]string{cwd: "cwd.txt", a: "a.txt", b: "b.txt"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("in "+name+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	writeSkill(t, filepath.Join(b, ".agents", "skills"), "b-only", "Use when in folder b.", "# B\n")
	patience := proctest.Patience.String()
	cmd := exec.Command(binary, "--cfg", t.TempDir(), "--log-level", "debug", "--start-timeout", patience, "--upstream-wait", patience)
	cmd.Dir = cwd
	stderr := &proctest.Output{}
	cmd.Stderr = stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e-roots", Version: "0"}, nil)
	client.AddRoots(&mcp.Root{URI: fileURI(a), Name: "a"}, &mcp.Root{URI: "https://example.com/not-a-folder"}, &mcp.Root{URI: fileURI(filepath.Join(a, "missing"))})
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	// Roots are a feature of the sessions a client opens with initialize
	// (protocol 2025-11-25, what clients speak today); 2026-07-28 deprecates
	// them, and has no session for the server to ask.
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })

	roots := func() []string {
		st, err := readResource(t, cs, "ramabana://status")
		if err != nil {
			t.Fatal(err)
		}
		var status struct {
			Roots []string `json:"roots"`
		}
		if err := json.Unmarshal([]byte(st), &status); err != nil {
			t.Fatal(err)
		}
		return status.Roots
	}
	serving := func(dir string) {
		t.Helper()
		real, _ := filepath.EvalSymlinks(dir)
		if !proctest.Await(func() bool { return slices.Equal(roots(), []string{real}) }) {
			t.Fatalf("status roots %v; want %v\n%s", roots(), []string{real}, stderr)
		}
	}
	view := func(name string) (string, bool) {
		res, err := call(t, cs, "view_file", map[string]any{"path": name})
		if err != nil {
			t.Fatal(err)
		}
		return text(res), res.IsError
	}

	serving(a)
	if got, isErr := view("a.txt"); isErr || !strings.Contains(got, "in a.txt") {
		t.Errorf("view_file a.txt in the client's root = %q (error %v)", got, isErr)
	}
	if got, isErr := view("cwd.txt"); !isErr {
		t.Errorf("view_file cwd.txt, in the folder the server started in, = %q; want an error: the client's roots are served instead", got)
	}
	for _, bad := range []string{"https://example.com/not-a-folder", "missing"} {
		if !strings.Contains(stderr.String(), bad) {
			t.Errorf("the log does not say the root %s was left out:\n%s", bad, stderr)
		}
	}

	client.RemoveRoots(fileURI(a))
	client.AddRoots(&mcp.Root{URI: fileURI(b), Name: "b"})
	serving(b)
	if got, isErr := view("b.txt"); isErr || !strings.Contains(got, "in b.txt") {
		t.Errorf("view_file b.txt after the roots changed = %q (error %v)", got, isErr)
	}
	if got, isErr := view(filepath.Join(a, "a.txt")); !isErr {
		t.Errorf("view_file of a file in the root the client dropped = %q; want an error", got)
	}
	if skill, err := readResource(t, cs, "skill://b-only"); err != nil || !strings.Contains(skill, "# B") {
		t.Errorf("skill://b-only from the new root = %q, %v", skill, err)
	}
}

// With --root, the flag wins: the client's roots are not asked for.
func TestRootFlagWinsOverTheClientsRoots(t *testing.T) {
	t.Parallel()
	root, other := project(t), t.TempDir()
	cmd := exec.Command(binary, baseArgs(t, root)...)
	stderr := &proctest.Output{}
	cmd.Stderr = stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e-roots", Version: "0"}, nil)
	client.AddRoots(&mcp.Root{URI: fileURI(other)})
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	// A request after the client's initialized notification: a server that
	// asked for the roots would have asked before answering it.
	if _, err := call(t, cs, "list_files", map[string]any{}); err != nil {
		t.Fatal(err)
	}
	// Closing the session waits for the server to end: whatever it did, it
	// has logged.
	_ = cs.Close()
	if strings.Contains(stderr.String(), "client's roots") {
		t.Errorf("with --root the server turned to the client's roots:\n%s", stderr)
	}
}

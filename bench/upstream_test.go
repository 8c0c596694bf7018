package bench

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// everything is @modelcontextprotocol/server-everything's command line
// over stdio, installed globally (npm install -g); benchmarks against it
// skip when it is not on PATH.
func everything(b *testing.B) []string {
	b.Helper()
	path, err := exec.LookPath("mcp-server-everything")
	if err != nil {
		b.Skip("mcp-server-everything not on PATH: npm install -g @modelcontextprotocol/server-everything")
	}
	if _, err := exec.LookPath("node"); err != nil {
		b.Skip("node not on PATH")
	}
	return []string{path, "stdio"}
}

// mcpConfig writes an mcpServers file that mounts the stdio server of
// command line up as id, eager and readonly (all its tools are read
// tools), and returns the file's path.
func mcpConfig(b *testing.B, id string, up []string) string {
	b.Helper()
	data, err := json.Marshal(map[string]any{"mcpServers": map[string]any{
		id: map[string]any{"command": up[0], "args": up[1:], "readonly": true},
	}})
	if err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(b.TempDir(), "mcp.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		b.Fatal(err)
	}
	return path
}

// mounting returns ramabana's command line with default flags serving
// root, the servers of the config file mcpCfg mounted and the first
// tools/list waiting for them.
func mounting(root, cfg, mcpCfg string) *exec.Cmd {
	return command(ramabana, root, cfg, "--mcp-config", mcpCfg, "--upstream-wait", "60s")
}

// upstreams are the upstream servers of the benchmarks: sub-benchmark
// suffix, mount id, command line, and the echo tool's arguments.
var upstreams = []struct {
	suffix, id string
	cmd        func(b *testing.B) []string
	echo       map[string]any
}{
	{"", "everything", everything, map[string]any{"message": "hello"}},
	// Go on both sides: less noise than node.
	{"-testupstream", "testupstream", func(*testing.B) []string { return []string{testUp, "-mode", "ok"} },
		map[string]any{"text": "hello"}},
}

// BenchmarkUpstreamCall measures one call of an upstream server's echo on
// long-lived servers: the client talking to the upstream server itself
// (direct), against the same client calling <id>__echo through ramabana,
// which runs the upstream as its child. server-everything (node) first,
// then internal/testupstream.
func BenchmarkUpstreamCall(b *testing.B) {
	root := project(b)
	for _, up := range upstreams {
		b.Run("direct"+up.suffix, func(b *testing.B) {
			line := up.cmd(b)
			cs := start(b, exec.Command(line[0], line[1:]...))
			echoed(b, cs, "echo", up.echo)
			timeCalls(b, func() { call(b, cs, "echo", up.echo) })
		})
		b.Run("ramabana"+up.suffix, func(b *testing.B) {
			cs := start(b, mounting(root, b.TempDir(), mcpConfig(b, up.id, up.cmd(b))))
			tool := up.id + "__echo"
			// Only the first tools/list waits for the upstream: a call made
			// before it could find the tool not there yet.
			list, err := cs.ListTools(context.Background(), nil)
			if err != nil {
				b.Fatalf("tools/list: %v", err)
			}
			if !has(list, tool) {
				b.Fatalf("no %s in the first tools/list (%d tools)", tool, len(list.Tools))
			}
			echoed(b, cs, tool, up.echo)
			timeCalls(b, func() { call(b, cs, tool, up.echo) })
		})
	}
}

// BenchmarkUpstreamReady measures a client's cold start with an upstream
// server: server-everything started by the client itself (direct), against
// ramabana with server-everything mounted, whose first tools/list must
// already hold everything__echo.
func BenchmarkUpstreamReady(b *testing.B) {
	root := project(b)
	b.Run("direct", func(b *testing.B) {
		line := everything(b)
		timeSpawn(b, func() *exec.Cmd { return exec.Command(line[0], line[1:]...) }, "echo")
	})
	b.Run("ramabana", func(b *testing.B) {
		cfg, mcpCfg := b.TempDir(), mcpConfig(b, "everything", everything(b))
		timeSpawn(b, func() *exec.Cmd { return mounting(root, cfg, mcpCfg) }, "everything__echo")
	})
}

// echoed calls an echo tool once and fails the benchmark unless the answer
// holds the text sent.
func echoed(b *testing.B, cs *mcp.ClientSession, tool string, args map[string]any) {
	b.Helper()
	if got := text(call(b, cs, tool, args)); !strings.Contains(got, "hello") {
		b.Fatalf("%s answered %q, want the echo of hello", tool, got)
	}
}

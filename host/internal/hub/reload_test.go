package hub_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ramabana/ramabana-mcp/host/internal/hub"
	"github.com/ramabana/ramabana-mcp/host/internal/mcpserver"
	"github.com/ramabana/ramabana-mcp/host/internal/supervise"
	"github.com/ramabana/ramabana-mcp/internal/proctest"
)

// copyFile installs a binary as an install does (package hub's helper).
var copyFile = hub.CopyFile

func TestHotReload(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	h, logs := hub.StartHost(t, hub.Config{PluginDirs: []string{dir}})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	watching := make(chan error, 1)
	go func() { watching <- h.Watch(ctx) }()

	changed := make(chan struct{}, 10)
	st, ct := mcp.NewInMemoryTransports()
	ss, err := mcpserver.New(h, mcpserver.Options{Version: "test"}).Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			select {
			case changed <- struct{}{}:
			default: // a full channel has news enough; never block the client
			}
		},
	}).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	has := func(name string) bool {
		res, err := cs.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, tool := range res.Tools {
			if tool.Name == name {
				return true
			}
		}
		return false
	}
	// waitFor waits for a tools/list_changed sent after the last drain and
	// for done to hold: one change sends several notifications.
	waitFor := func(what string, done func() bool) {
		t.Helper()
		if ok, notified := proctest.AwaitSignal(changed, done); !ok {
			t.Fatalf("after %s: notified %v, done %v; logs:\n%s", what, notified, done(), logs)
		}
	}
	// pid is the echo plugin's pid, or 0 while its tools are away.
	pid := func() int {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "pid", Arguments: map[string]any{}})
		if err != nil || res.IsError || len(res.Content) == 0 {
			return 0
		}
		n, _ := strconv.Atoi(res.Content[0].(*mcp.TextContent).Text)
		return n
	}
	if has("echo") {
		t.Fatal("echo served before it was installed")
	}

	bin := filepath.Join(dir, supervise.PluginPrefix+"echo")
	proctest.Drain(changed)
	copyFile(t, hub.TestPlugin(), bin)
	waitFor("install", func() bool { return has("echo") && pid() != 0 })
	first := pid()

	proctest.Drain(changed)
	copyFile(t, hub.TestPlugin(), bin) // a new inode: a replaced binary
	waitFor("replace, a new process", func() bool { p := pid(); return p != 0 && p != first })

	proctest.Drain(changed)
	if err := os.Remove(bin); err != nil {
		t.Fatal(err)
	}
	waitFor("remove", func() bool { return !has("echo") })
	if len(h.Plugins()) != 0 {
		t.Errorf("plugins still running: %v", h.Plugins())
	}
	cancel()
	if err := <-watching; err != nil {
		t.Errorf("Watch: %v", err)
	}
}

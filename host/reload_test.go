package host

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ramabana/ramabana-mcp/supervise"
)

// copyFile copies the test plugin to dst through a temp file and a rename,
// as an install does.
func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(filepath.Dir(dst), ".install.tmp")
	if err := os.WriteFile(tmp, b, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, dst); err != nil {
		t.Fatal(err)
	}
}

func TestHotReload(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	h, logs := startHost(t, Config{PluginDirs: []string{dir}})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	watching := make(chan error, 1)
	go func() { watching <- h.Watch(ctx) }()

	changed := make(chan struct{}, 10)
	st, ct := mcp.NewInMemoryTransports()
	ss, err := h.NewMCPServer().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
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
	waitChange := func(what string) {
		t.Helper()
		select {
		case <-changed:
		case <-time.After(20 * time.Second):
			t.Fatalf("no tools/list_changed after %s; logs:\n%s", what, logs)
		}
	}
	pid := func() int {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "pid", Arguments: map[string]any{}})
		if err != nil {
			t.Fatal(err)
		}
		n, _ := strconv.Atoi(res.Content[0].(*mcp.TextContent).Text)
		return n
	}
	if has("echo") {
		t.Fatal("echo served before it was installed")
	}

	bin := filepath.Join(dir, supervise.PluginPrefix+"echo")
	copyFile(t, testPlugin, bin)
	waitChange("install")
	if !has("echo") {
		t.Fatal("echo not served after install")
	}
	first := pid()

	copyFile(t, testPlugin, bin) // a new inode: a replaced binary
	waitChange("replace")
	if second := pid(); second == first || second == 0 {
		t.Errorf("plugin not restarted after its binary was replaced: pid %d then %d", first, second)
	}

	if err := os.Remove(bin); err != nil {
		t.Fatal(err)
	}
	waitChange("remove")
	if has("echo") {
		t.Error("echo still served after its binary was removed")
	}
	if len(h.Plugins()) != 0 {
		t.Errorf("plugins still running: %v", h.Plugins())
	}
	cancel()
	if err := <-watching; err != nil {
		t.Errorf("Watch: %v", err)
	}
}

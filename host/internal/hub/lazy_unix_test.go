//go:build unix

package hub

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/ramabana/ramabana-mcp/host/internal/supervise"
	"github.com/ramabana/ramabana-mcp/internal/proctest"
	"github.com/ramabana/ramabana-mcp/sdk"
)

// TestACallAdmittedOnAStaleListingIsRefusedWhileTheListChanges: a call the
// host admitted on a stale kept description (the write tool poke listed as
// read, on a read-only server) is refused even when it reaches the plugin
// after another call's launch replaced the plugin's description and before
// the catalog follows: the refusal compares the description the call was
// admitted on. The window is held open by making the kept file a FIFO, so
// that storing the new description blocks.
func TestACallAdmittedOnAStaleListingIsRefusedWhileTheListChanges(t *testing.T) {
	t.Parallel()
	cfg := keptEcho(t)
	kept := keptFile(t, cfg.ConfigDir, "echo")
	editKept(t, kept, func(tool map[string]any) {
		if tool["Name"] == "poke" {
			tool["Kind"] = float64(sdk.KindRead)
		}
	})
	h, logs := startHost(t, cfg)
	if e, ok := h.Catalog().Get("poke"); !ok || !h.callable(e, false) {
		t.Fatal("poke not mounted from the planted description")
	}
	if err := os.Remove(kept); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(kept, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { // lets the blocked store go on
		if f, err := os.OpenFile(kept, os.O_WRONLY, 0); err == nil {
			f.Close()
		}
	})
	p := h.Plugins()["echo"]
	args := json.RawMessage(`{"text":"hi"}`)
	go func() { _, _ = h.Call(context.Background(), "echo", args, nil) }() // starts the process
	if !proctest.Await(func() bool { return p.Health().State == supervise.StateRunning }) {
		t.Fatalf("echo never started; logs:\n%s", logs)
	}
	res, err := callText(t, h, "poke", map[string]any{})
	if err == nil || !strings.Contains(err.Error(), "list the tools and call again") {
		t.Errorf("poke admitted on the stale read listing = %v, %v; want refused", res, err)
	}
}

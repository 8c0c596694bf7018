package launch

import (
	"os/exec"
	"testing"

	"github.com/ramabana/ramabana-mcp/internal/proctest"
)

// TestProcWatchSeesTheEndBeforeTheReap: a live child has not ended; once
// killed it has, before and after it is reaped, without procWatch reaping
// it (Wait still gets its status).
func TestProcWatchSeesTheEndBeforeTheReap(t *testing.T) {
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Skip("no sleep command:", err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	w := newProcWatch(cmd.Process.Pid)
	t.Cleanup(w.close)
	if w.stat == nil {
		t.Fatal("/proc/<pid>/stat not opened")
	}
	for range 3 { // read again and again from the one open file
		if w.ended() {
			t.Fatal("a live child reads as ended")
		}
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	if !proctest.Await(w.ended) {
		t.Fatal("a killed child never reads as ended")
	}
	err := cmd.Wait()
	if err == nil || cmd.ProcessState.Exited() {
		t.Fatalf("Wait = %v (%v): the status was not kept for it", err, cmd.ProcessState)
	}
	if !w.ended() {
		t.Error("a reaped child reads as live")
	}
	w.close()
	if !w.ended() {
		t.Error("after close, a reaped child reads as live")
	}
}

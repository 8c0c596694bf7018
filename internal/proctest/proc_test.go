package proctest

import (
	"os/exec"
	"runtime"
	"testing"
)

// TestProcIsOneProcess: a Proc is alive while its process runs, not after
// it is reaped, and never for another start time at the same pid.
func TestProcIsOneProcess(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Skip("no sleep command:", err)
	}
	p := Find(cmd.Process.Pid)
	if !p.Alive() {
		t.Fatal("a running process reads as not alive")
	}
	other := p
	other.start += "0" // the same pid, started at another time
	if other.Alive() {
		t.Error("a process of another start time at the same pid reads as alive")
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	if p.Alive() {
		t.Error("a reaped process reads as alive")
	}
	if (Proc{Pid: cmd.Process.Pid}).Alive() {
		t.Error("a Proc without a start time reads as alive")
	}
}

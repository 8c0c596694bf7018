package code

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ramabana/ramabana-mcp/sdk"
	"github.com/ramabana/ramabana-mcp/sdk/sdktest"
)

// TestInspectPythonTimeout imports a module that hangs and starts a child
// that would outlive it: the call fails with the timeout, and the whole
// process group is gone.
func TestInspectPythonTimeout(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not on PATH")
	}
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	pidFile := filepath.Join(dir, "child.pid")
	mod := `import subprocess, time
p = subprocess.Popen(["sleep", "300"])
open(` + "r'" + pidFile + "'" + `, "w").write(str(p.pid))
time.sleep(300)
`
	if err := os.WriteFile(filepath.Join(dir, "hang.py"), []byte(mod), 0o644); err != nil {
		t.Fatal(err)
	}
	// The timeout must outlast python's start for the module to start its
	// child (a pyenv shim alone can take seconds): it grows until the child
	// was started before the kill, so the test holds on a slow machine too.
	var b []byte
	for _, timeout := range []time.Duration{time.Second, 4 * time.Second, 16 * time.Second} {
		g, _ := sdktest.Connect(t, newToolbox(timeout), sdk.Host{Roots: []string{dir}, Commands: true})
		res := sdktest.Call(t, g, "inspect_python", map[string]any{"target": "hang.x"})
		if want := fmt.Sprintf("python3 did not finish inspecting hang.x within %s and was killed", timeout); !res.IsError || !strings.Contains(res.Text(), want) {
			t.Fatalf("got %q (error %v), want an error containing %q", res.Text(), res.IsError, want)
		}
		if b, err = os.ReadFile(pidFile); err == nil {
			break
		}
		t.Logf("python3 did not start the module's child within %s; trying a longer timeout", timeout)
	}
	if err != nil {
		t.Fatalf("the module did not start its child: %v", err)
	}
	pid := strings.TrimSpace(string(b))
	// The child was killed with the group; once reaped by init it is gone.
	deadline := time.Now().Add(10 * time.Second)
	for {
		stat, err := os.ReadFile("/proc/" + pid + "/stat")
		if err != nil || strings.Contains(string(stat), ") Z ") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("child %s of the timed-out python3 is still running", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestInspectPythonMissing runs with a PATH that has no python3. It is not
// parallel: it changes the environment.
func TestInspectPythonMissing(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir)
	g, _ := sdktest.Connect(t, New(), sdk.Host{Roots: []string{dir}})
	res := sdktest.Call(t, g, "inspect_python", map[string]any{"target": "json"})
	if want := "python3 not found on PATH; inspect_python needs a Python 3 interpreter"; !res.IsError || res.Text() != want {
		t.Errorf("got %q (error %v), want the error %q", res.Text(), res.IsError, want)
	}
}

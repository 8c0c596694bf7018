package sandbox

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ramabana/ramabana-mcp/internal/proctest"
)

// TestSubreaperFallback forces the fallback for machines that refuse
// namespaces: the caller becomes a child subreaper and Stop ends the
// orphans tagged with the command's marker, setsid and double forks
// included. (A SIGKILL of the caller is not covered there; status says so.)
func TestSubreaperFallback(t *testing.T) {
	escapes := map[string]string{
		"setsid daemon": `setsid bash -c 'exec -a %[1]s sleep 300' </dev/null >/dev/null 2>&1 &`,
		"double fork":   `( ( exec -a %[1]s sleep 300 & ) & )`,
		"python setsid and fork": `python3 -c '
import os, sys
os.setsid()
if os.fork() == 0:
    os.execvp("sleep", [sys.argv[1], "300"])
' %[1]s`,
	}
	for name, script := range escapes {
		t.Run(name, func(t *testing.T) {
			if strings.HasPrefix(script, "python3") {
				if _, err := exec.LookPath("python3"); err != nil {
					t.Skip("no python3")
				}
			}
			marker := fmt.Sprintf("sbx-orphan-%d-%s", os.Getpid(), strings.ReplaceAll(name, " ", "_"))
			pattern := "sbx-orpha[n]" + strings.TrimPrefix(marker, "sbx-orphan")
			cmd := exec.Command("/bin/bash", "-c", fmt.Sprintf(script, marker)+"\n"+
				fmt.Sprintf(`for i in $(seq 1000); do grep -qsa -- '%[1]s' /proc/[0-9]*/cmdline && break; sleep 0.01; done
grep -qsa -- '%[1]s' /proc/[0-9]*/cmdline && echo started`, pattern))
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			a, err := startWith(cmd, Policy{NoCapabilities: true, NewNamespaces: true}, true)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				for _, pid := range proctest.Marked(marker) {
					_ = syscall.Kill(pid, syscall.SIGKILL)
				}
			})
			if a.Reaping != ReapSubreaper {
				t.Fatalf("applied %+v, want the subreaper fallback", a)
			}
			if line, _ := bufio.NewReader(out).ReadString('\n'); line != "started\n" {
				t.Fatalf("the escaping process did not start: %q", line)
			}
			_ = cmd.Wait()
			if !a.Alive() {
				t.Fatalf("the orphan is not found through the marker; running: %v", proctest.Marked(marker))
			}
			a.Stop(time.Second)
			// Stop waits for its SIGKILL to land for a second at most: on
			// a loaded machine a killed orphan may run a moment longer.
			gone := func() bool { return len(proctest.Marked(marker)) == 0 && !a.Alive() }
			if !proctest.Await(gone) {
				t.Errorf("still running after Stop: %v", proctest.Marked(marker))
			}
		})
	}
}

package sandbox_test

import (
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/ramabana/ramabana-mcp/internal/sandbox"
)

// TestOwnSession: a command runs in a session of its own, so it cannot
// reach the caller's controlling terminal (by /dev/tty, or TIOCSTI).
func TestOwnSession(t *testing.T) {
	t.Parallel()
	for name, p := range map[string]sandbox.Policy{"zero policy": {}, "full": full(t.TempDir())} {
		t.Run(name, func(t *testing.T) {
			// Field 6 of stat is the session, as the host numbers it.
			out, a := bash(t, p, "/", "cut -d' ' -f6 /proc/self/stat")
			sid, err := strconv.Atoi(strings.TrimSpace(out))
			if err != nil {
				t.Fatalf("applied %+v: %q: %v", a, out, err)
			}
			if own, _ := unix.Getsid(0); sid == own {
				t.Errorf("applied %+v: the command's session %d is not its own", a, sid)
			}
		})
	}
}

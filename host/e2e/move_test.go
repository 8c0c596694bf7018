package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMoveAndDeleteThroughTheServer: move_file and delete_file are write
// tools (refused read-only, naming --write), and with --write what they
// did is in the activity feed and the changes ledger like any write.
func TestMoveAndDeleteThroughTheServer(t *testing.T) {
	t.Parallel()
	root := project(t)
	if _, err := call(t, startStdio(t, root).session, "delete_file", map[string]any{"path": "pkg/sizes.py"}); err == nil || !strings.Contains(err.Error(), "--write") {
		t.Errorf("delete_file on a read-only server: %v, want it refused naming --write", err)
	}
	s := startStdio(t, root, "--write")
	if res, err := call(t, s.session, "move_file", map[string]any{"from": "pkg/sizes.py", "to": "lib/sizes.py"}); err != nil || res.IsError {
		t.Fatalf("move_file = %q, %v", text(res), err)
	}
	if res, err := call(t, s.session, "delete_file", map[string]any{"path": "lib/sizes.py"}); err != nil || res.IsError {
		t.Fatalf("delete_file = %q, %v", text(res), err)
	}
	if _, err := os.Stat(filepath.Join(root, "lib", "sizes.py")); !os.IsNotExist(err) {
		t.Errorf("lib/sizes.py still there: %v", err)
	}
	act, _ := call(t, s.session, "activity", map[string]any{})
	for _, want := range []string{"move_file", "delete_file"} {
		if !strings.Contains(text(act), want) {
			t.Errorf("activity lacks %s:\n%s", want, text(act))
		}
	}
	changes, _ := call(t, s.session, "changes", map[string]any{})
	for _, want := range []string{"pkg/sizes.py", "lib/sizes.py", "-RESERVE = 16_384"} {
		if !strings.Contains(text(changes), want) {
			t.Errorf("changes lack %q:\n%s", want, text(changes))
		}
	}
}

//go:build linux

package files_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/ramabana/ramabana-mcp/plugins/internal/atomicfile"
	"github.com/ramabana/ramabana-mcp/plugins/internal/atomicfile/atomicfiletest"
	"github.com/ramabana/ramabana-mcp/sdk"
)

// TestLockedFile: every write tool on a file another program keeps locked
// fails, once the bound passes, with a message the model can act on, and
// writes nothing.
func TestLockedFile(t *testing.T) {
	atomicfiletest.Set(t, &atomicfile.LockTimeout, 20*time.Millisecond)
	const content = "one\ntwo\n"
	tests := map[string]struct {
		tool string
		args map[string]any
	}{
		"replace_text": {"replace_text", map[string]any{"path": "f.txt", "old": "one", "new": "ONE"}},
		"edit_file":    {"edit_file", map[string]any{"path": "f.txt", "edits": []map[string]any{ed("replace", 1, h("one"), "text", "ONE")}}},
		"create_file":  {"create_file", map[string]any{"path": "f.txt", "content": "new\n", "overwrite": true}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			e := newEnv(t, map[string]string{"f.txt": content}, false)
			atomicfiletest.HoldLock(t, e.path("f.txt"))
			msg, isErr := e.call(t, tc.tool, tc.args)
			const want = "f.txt is locked by another program; try again later (nothing was written)"
			if !isErr || msg != want {
				t.Errorf("%s = %q (error %v), want the error %q", tc.tool, msg, isErr, want)
			}
			if got := readString(t, e.path("f.txt")); got != content {
				t.Errorf("f.txt = %q, want it untouched", got)
			}
			noTempFiles(t, e.dir)
		})
	}
}

// TestCancelledWhileLocked: a replace_text cancelled while it waits for a
// file another program keeps locked returns the cancellation, and its edit
// is not applied when the lock is released: the next edit, which the
// plugin runs only after the cancelled one has ended, finds the file as
// it was.
func TestCancelledWhileLocked(t *testing.T) {
	atomicfiletest.Set(t, &atomicfile.LockTimeout, time.Hour) // only the cancel can end the wait
	e := newEnv(t, map[string]string{"f.txt": "one\ntwo\n"}, false)
	path := e.path("f.txt")
	release := atomicfiletest.HoldLock(t, path)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	args, _ := json.Marshal(map[string]any{"path": "f.txt", "old": "one", "new": "ONE"})
	done := make(chan error, 1)
	go func() {
		_, err := e.g.Call(ctx, &sdk.Call{Tool: "replace_text", Arguments: args}, nil)
		done <- err
	}()
	atomicfiletest.WaitOpened(t, path, 1)
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled replace_text = %v, want context.Canceled", err)
	}
	release()
	if msg, isErr := e.call(t, "replace_text", map[string]any{"path": "f.txt", "old": "two", "new": "TWO"}); isErr {
		t.Fatalf("replace_text after the release: %s", msg)
	}
	if got := readString(t, path); got != "one\nTWO\n" {
		t.Errorf("f.txt = %q, want %q: the cancelled edit was applied", got, "one\nTWO\n")
	}
	noTempFiles(t, e.dir)
}

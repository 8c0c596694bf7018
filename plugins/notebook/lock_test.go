//go:build linux

package notebook_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ramabana/ramabana-mcp/plugins/internal/atomicfile"
	"github.com/ramabana/ramabana-mcp/plugins/internal/atomicfile/atomicfiletest"
	"github.com/ramabana/ramabana-mcp/sdk"
)

// TestLockedNotebook: every write tool on a notebook another program keeps
// locked fails, once the bound passes, with a message the model can act
// on, and writes nothing.
func TestLockedNotebook(t *testing.T) {
	atomicfiletest.Set(t, &atomicfile.LockTimeout, 20*time.Millisecond)
	e := newEnv(t, false)
	path := e.path("analysis.ipynb")
	before := snap(t, path)
	atomicfiletest.HoldLock(t, path)
	for tool, args := range map[string]map[string]any{
		"edit_cell":   {"index": 0, "source": "x"},
		"insert_cell": {"index": 0, "cell_type": "code", "source": "x"},
		"delete_cell": {"index": 0},
		"move_cell":   {"index": 0, "to": 1},
	} {
		args["path"] = "analysis.ipynb"
		msg, isErr := e.call(t, tool, args)
		const want = "analysis.ipynb is locked by another program; try again later (nothing was written)"
		if !isErr || msg != want {
			t.Errorf("%s = %q (error %v), want the error %q", tool, msg, isErr, want)
		}
	}
	if diff := cmp.Diff(before, snap(t, path)); diff != "" {
		t.Errorf("the notebook changed (-before +after):\n%s", diff)
	}
	noTempFiles(t, e.dir)
}

// TestCancelledWhileLocked: an edit_cell cancelled while it waits for a
// notebook another program keeps locked returns the cancellation, and its
// edit is not applied when the lock is released: the next call, which the
// plugin runs only after the cancelled one has ended, finds the notebook
// as it was.
func TestCancelledWhileLocked(t *testing.T) {
	atomicfiletest.Set(t, &atomicfile.LockTimeout, time.Hour) // only the cancel can end the wait
	e := newEnv(t, false)
	path := e.path("analysis.ipynb")
	before := snap(t, path)
	release := atomicfiletest.HoldLock(t, path)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := e.g.Call(ctx, &sdk.Call{Tool: "edit_cell", Arguments: []byte(`{"path": "analysis.ipynb", "index": 0, "source": "cancelled"}`)}, nil)
		done <- err
	}()
	atomicfiletest.WaitOpened(t, path, 1)
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled edit_cell = %v, want context.Canceled", err)
	}
	release()
	// A refused edit takes the plugin's write lock too, so it runs after
	// the cancelled call has ended, and changes nothing itself.
	if msg, isErr := e.call(t, "edit_cell", map[string]any{"path": "analysis.ipynb", "id": "nope", "source": "x"}); !isErr {
		t.Fatalf("edit_cell of a missing id succeeded: %s", msg)
	}
	if diff := cmp.Diff(before, snap(t, path)); diff != "" {
		t.Errorf("the cancelled edit was applied (-before +after):\n%s", diff)
	}
	noTempFiles(t, e.dir)
}

package atomicfile

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"
)

// ErrLocked is the error of an Update (or UpdateAll) whose file stayed
// locked by another program for LockTimeout.
var ErrLocked = errors.New("the file is locked by another program")

// LockTimeout bounds how long Update waits for another holder of a file's
// lock, and UpdateAll for those of all its files. Tests may shorten it
// (before any Update runs, not in parallel).
var LockTimeout = 10 * time.Second

// The wait for a busy lock retries after minBackoff, doubling up to
// maxBackoff.
const (
	minBackoff = 10 * time.Millisecond
	maxBackoff = 200 * time.Millisecond
)

// busyHookKey is the context key of a func() that lock calls each time it
// finds the lock held by another, so that a test can act while Update is
// known to be waiting. Only this package's tests set it.
type busyHookKey struct{}

// lock takes an exclusive advisory lock on f. While another holds it, it
// retries with a growing pause, without tying up a thread, until ctx ends
// (returning ctx's error) or deadline passes (returning an error matching
// ErrLocked).
func lock(ctx context.Context, f *os.File, deadline time.Time) error {
	hook, _ := ctx.Value(busyHookKey{}).(func())
	pause := minBackoff
	for {
		busy, err := tryLock(f)
		if err != nil || !busy {
			return err
		}
		if hook != nil {
			hook()
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		left := time.Until(deadline)
		if left <= 0 {
			return fmt.Errorf("%w (waited %v)", ErrLocked, LockTimeout)
		}
		t := time.NewTimer(min(pause, left))
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
		pause = min(2*pause, maxBackoff)
	}
}

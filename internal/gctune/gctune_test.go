package gctune

import (
	"runtime"
	"runtime/debug"
	"testing"
)

// sink keeps allocations from being optimised away.
var sink []byte

// churn allocates total bytes of garbage in 4 KiB pieces and returns how
// many collections ran meanwhile.
func churn(total int) uint32 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range total / 4096 {
		sink = make([]byte, 4096)
	}
	runtime.ReadMemStats(&after)
	return after.NumGC - before.NumGC
}

// TestHeadroomSpacesCollections: with 16 MiB of headroom over a small live
// heap, 512 MiB of garbage takes about 32 collections, where Go's default
// (a 4 MiB minimum heap) takes over a hundred.
func TestHeadroomSpacesCollections(t *testing.T) {
	runtime.GC()
	base := churn(512 << 20)
	tu := start(16 << 20)
	t.Cleanup(tu.Stop)
	runtime.GC()
	tuned := churn(512 << 20)
	t.Logf("collections for 512 MiB of garbage: %d by default, %d tuned (limit %d MiB)", base, tuned, tu.Limit()>>20)
	if tuned > 48 {
		t.Errorf("tuned: %d collections, want at most 48", tuned)
	}
	if base < 2*tuned {
		t.Errorf("default %d collections, tuned %d: the tuner should halve them at least", base, tuned)
	}
	if got := debug.SetGCPercent(-1); got != -1 {
		t.Errorf("GOGC while tuned = %d, want off", got)
	}
}

// TestLargeLiveHeapDoesNotThrash: with a live heap larger than the
// headroom, the goal follows twice the live heap (GOGC=100's rule), so the
// collector does not run over and over against a limit the heap has
// outgrown.
func TestLargeLiveHeapDoesNotThrash(t *testing.T) {
	tu := start(4 << 20)
	t.Cleanup(tu.Stop)
	live := make([][]byte, 0, 1024)
	for range 1024 {
		live = append(live, make([]byte, 64<<10)) // 64 MiB live
	}
	runtime.GC()
	runtime.GC() // the finalizer of the first cycle's sentinel retunes
	n := churn(512 << 20)
	runtime.KeepAlive(live)
	t.Logf("collections for 512 MiB of garbage over 64 MiB live: %d (limit %d MiB)", n, tu.Limit()>>20)
	if n > 24 {
		t.Errorf("%d collections, want at most 24 (about 8 at twice the live heap)", n)
	}
	if tu.Limit() < 128<<20 {
		t.Errorf("limit %d MiB, want at least twice the live heap (128 MiB)", tu.Limit()>>20)
	}
}

// TestStopRestores: Stop gives back GOGC and the memory limit as they were.
func TestStopRestores(t *testing.T) {
	oldGC := debug.SetGCPercent(100)
	t.Cleanup(func() { debug.SetGCPercent(oldGC) })
	tu := start(0)
	tu.Stop()
	tu.Stop() // twice is fine
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("GOGC after Stop = %d, want 100", got)
	}
	if got := debug.SetMemoryLimit(-1); got != oldLimit {
		t.Errorf("memory limit after Stop = %d, want %d", got, oldLimit)
	}
}

// oldLimit is the limit with no GOMEMLIMIT set: none.
const oldLimit = 1<<63 - 1

// TestUserSettingsWin: with GOGC or GOMEMLIMIT set, Start tunes nothing.
func TestUserSettingsWin(t *testing.T) {
	for _, env := range []string{"GOGC", "GOMEMLIMIT"} {
		t.Run(env, func(t *testing.T) {
			t.Setenv(env, "100")
			if tu := Start(0); tu != nil {
				tu.Stop()
				t.Fatalf("Start tuned with %s set", env)
			}
		})
	}
	var tu *Tuner
	tu.Stop() // a nil Tuner does nothing
	if tu.Limit() != 0 {
		t.Error("nil Tuner has a limit")
	}
}

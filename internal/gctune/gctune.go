// Package gctune sizes the server's garbage collector to its work.
//
// With Go's default (GOGC=100) a heap of 2 MB live is collected every 2 to
// 4 MB allocated: each MCP request decodes its JSON several times in the
// go-sdk and allocates a few hundred KB, so the server collected every few
// calls, and its collector's workers ran on the cores the plugin answering
// the call needed (37% of the server's CPU went to the collector, measured
// in bench/). Start gives the heap room to grow: it is collected when it
// reaches its live size plus Headroom, or twice its live size when that is
// more (GOGC=100's rule, for large heaps). It does so with the memory
// limit, not a ballast: the collector is off (GOGC=off) and the limit is
// moved after every cycle to the next goal. The process's memory is bounded
// by that goal as it would be by GOGC.
//
// The user's settings win: with GOGC or GOMEMLIMIT in the environment,
// Start changes nothing.
package gctune

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// Headroom is how much the heap may grow past what the last collection
// found live before the next collection starts, at least: 16 MiB is some
// fifty calls' garbage between collections (instead of a dozen), at a
// cost of as much memory in the server (the plugins keep the default).
const Headroom = 16 << 20

// Tuner moves the memory limit after each collection. Stop gives the
// runtime back its settings.
type Tuner struct {
	headroom uint64
	samples  []metrics.Sample

	mu      sync.Mutex
	stopped bool
	oldGC   int
	oldLim  int64
	limit   int64 // the limit set last
}

// Start tunes the collector of this process with the given headroom
// (Headroom when 0), unless the environment sets GOGC or GOMEMLIMIT: then
// it returns nil and changes nothing. A nil Tuner's methods do nothing.
func Start(headroom uint64) *Tuner {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return nil
	}
	return start(headroom)
}

func start(headroom uint64) *Tuner {
	if headroom == 0 {
		headroom = Headroom
	}
	t := &Tuner{
		headroom: headroom,
		samples: []metrics.Sample{
			{Name: "/gc/heap/live:bytes"},
			{Name: "/memory/classes/total:bytes"},
			{Name: "/memory/classes/heap/objects:bytes"},
			{Name: "/memory/classes/heap/unused:bytes"},
			{Name: "/memory/classes/heap/free:bytes"},
			{Name: "/memory/classes/heap/released:bytes"},
		},
	}
	t.mu.Lock()
	t.oldLim = debug.SetMemoryLimit(-1)
	t.retuneLocked()
	t.oldGC = debug.SetGCPercent(-1) // after the limit: never a moment with neither
	t.mu.Unlock()
	t.arm()
	return t
}

// sentinel is an object the next collection finds unreachable; its
// cleanup retunes and arms the next one. (32 bytes: the tiny allocator,
// which may keep a small object alive with its neighbours, takes objects
// under 16.)
type sentinel struct{ _ [32]byte }

// arm makes the next cycle's sentinel. Its cleanup runs after the cycle
// on the runtime's cleanup goroutine, not the finalizers' one, which any
// package's slow finalizer could hold up; were it held up anyway, the
// limit would stay where it was: memory stays bounded by it, and the
// collector runs more often than it needs to until the cleanup runs.
func (t *Tuner) arm() {
	runtime.AddCleanup(new(sentinel), func(t *Tuner) {
		t.mu.Lock()
		defer t.mu.Unlock()
		if t.stopped {
			return
		}
		t.retuneLocked()
		t.arm()
	}, t)
}

// retuneLocked sets the limit to what the runtime's non-heap memory needs
// plus the heap goal: the live heap and the larger of headroom and the
// live heap again.
func (t *Tuner) retuneLocked() {
	metrics.Read(t.samples)
	live := t.samples[0].Value.Uint64()
	total := t.samples[1].Value.Uint64()
	var heap uint64
	for _, s := range t.samples[2:] {
		heap += s.Value.Uint64()
	}
	// The limit counts everything the runtime mapped except released heap
	// pages; what is not heap (stacks, metadata) is added on top of the goal.
	nonHeap := total - min(total, heap)
	goal := nonHeap + live + max(t.headroom, live)
	t.limit = int64(min(goal, math.MaxInt64))
	debug.SetMemoryLimit(t.limit)
}

// Limit is the memory limit the tuner set last; 0 for a nil Tuner.
func (t *Tuner) Limit() int64 {
	if t == nil {
		return 0
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.limit
}

// Stop restores the settings the runtime had before Start.
func (t *Tuner) Stop() {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.stopped {
		return
	}
	t.stopped = true
	debug.SetGCPercent(t.oldGC)
	debug.SetMemoryLimit(t.oldLim)
}

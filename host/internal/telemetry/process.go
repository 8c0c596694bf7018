package telemetry

// The process's own figures on /metrics, under the names, help and types
// client_golang's Go and process collectors gave them (what a load test
// watches for growth): the Go runtime's from runtime, runtime/debug and
// runtime/metrics, the process's from /proc/self on Linux (none
// elsewhere). The collectors' process_network_receive_bytes_total and
// process_network_transmit_bytes_total, the whole network namespace's
// traffic rather than the process's, are not kept.

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"time"
)

// memStats are client_golang's go_memstats_* figures, each the sum of
// runtime/metrics samples as its help says.
var memStats = []struct {
	name, help string
	counter    bool
	sum        []string
}{
	{"alloc_bytes", "Number of bytes allocated in heap and currently in use. Equals to /memory/classes/heap/objects:bytes.", false, []string{"/memory/classes/heap/objects:bytes"}},
	{"alloc_bytes_total", "Total number of bytes allocated in heap until now, even if released already. Equals to /gc/heap/allocs:bytes.", true, []string{"/gc/heap/allocs:bytes"}},
	{"sys_bytes", "Number of bytes obtained from system. Equals to /memory/classes/total:byte.", false, []string{"/memory/classes/total:bytes"}},
	{"mallocs_total", "Total number of heap objects allocated, both live and gc-ed. Semantically a counter version for go_memstats_heap_objects gauge. Equals to /gc/heap/allocs:objects + /gc/heap/tiny/allocs:objects.", true, []string{"/gc/heap/allocs:objects", "/gc/heap/tiny/allocs:objects"}},
	{"frees_total", "Total number of heap objects frees. Equals to /gc/heap/frees:objects + /gc/heap/tiny/allocs:objects.", true, []string{"/gc/heap/frees:objects", "/gc/heap/tiny/allocs:objects"}},
	{"heap_alloc_bytes", "Number of heap bytes allocated and currently in use, same as go_memstats_alloc_bytes. Equals to /memory/classes/heap/objects:bytes.", false, []string{"/memory/classes/heap/objects:bytes"}},
	{"heap_sys_bytes", "Number of heap bytes obtained from system. Equals to /memory/classes/heap/objects:bytes + /memory/classes/heap/unused:bytes + /memory/classes/heap/released:bytes + /memory/classes/heap/free:bytes.", false, []string{"/memory/classes/heap/objects:bytes", "/memory/classes/heap/unused:bytes", "/memory/classes/heap/released:bytes", "/memory/classes/heap/free:bytes"}},
	{"heap_idle_bytes", "Number of heap bytes waiting to be used. Equals to /memory/classes/heap/released:bytes + /memory/classes/heap/free:bytes.", false, []string{"/memory/classes/heap/released:bytes", "/memory/classes/heap/free:bytes"}},
	{"heap_inuse_bytes", "Number of heap bytes that are in use. Equals to /memory/classes/heap/objects:bytes + /memory/classes/heap/unused:bytes", false, []string{"/memory/classes/heap/objects:bytes", "/memory/classes/heap/unused:bytes"}},
	{"heap_released_bytes", "Number of heap bytes released to OS. Equals to /memory/classes/heap/released:bytes.", false, []string{"/memory/classes/heap/released:bytes"}},
	{"heap_objects", "Number of currently allocated objects. Equals to /gc/heap/objects:objects.", false, []string{"/gc/heap/objects:objects"}},
	{"stack_inuse_bytes", "Number of bytes obtained from system for stack allocator in non-CGO environments. Equals to /memory/classes/heap/stacks:bytes.", false, []string{"/memory/classes/heap/stacks:bytes"}},
	{"stack_sys_bytes", "Number of bytes obtained from system for stack allocator. Equals to /memory/classes/heap/stacks:bytes + /memory/classes/os-stacks:bytes.", false, []string{"/memory/classes/heap/stacks:bytes", "/memory/classes/os-stacks:bytes"}},
	{"mspan_inuse_bytes", "Number of bytes in use by mspan structures. Equals to /memory/classes/metadata/mspan/inuse:bytes.", false, []string{"/memory/classes/metadata/mspan/inuse:bytes"}},
	{"mspan_sys_bytes", "Number of bytes used for mspan structures obtained from system. Equals to /memory/classes/metadata/mspan/inuse:bytes + /memory/classes/metadata/mspan/free:bytes.", false, []string{"/memory/classes/metadata/mspan/inuse:bytes", "/memory/classes/metadata/mspan/free:bytes"}},
	{"mcache_inuse_bytes", "Number of bytes in use by mcache structures. Equals to /memory/classes/metadata/mcache/inuse:bytes.", false, []string{"/memory/classes/metadata/mcache/inuse:bytes"}},
	{"mcache_sys_bytes", "Number of bytes used for mcache structures obtained from system. Equals to /memory/classes/metadata/mcache/inuse:bytes + /memory/classes/metadata/mcache/free:bytes.", false, []string{"/memory/classes/metadata/mcache/inuse:bytes", "/memory/classes/metadata/mcache/free:bytes"}},
	{"buck_hash_sys_bytes", "Number of bytes used by the profiling bucket hash table. Equals to /memory/classes/profiling/buckets:bytes.", false, []string{"/memory/classes/profiling/buckets:bytes"}},
	{"gc_sys_bytes", "Number of bytes used for garbage collection system metadata. Equals to /memory/classes/metadata/other:bytes.", false, []string{"/memory/classes/metadata/other:bytes"}},
	{"other_sys_bytes", "Number of bytes used for other system allocations. Equals to /memory/classes/other:bytes.", false, []string{"/memory/classes/other:bytes"}},
	{"next_gc_bytes", "Number of heap bytes when next garbage collection will take place. Equals to /gc/heap/goal:bytes.", false, []string{"/gc/heap/goal:bytes"}},
}

// runtimeGauges are runtime/metrics samples served as they are, with the
// runtime's description and "Sourced from <name>." for help.
var runtimeGauges = []struct{ name, sample string }{
	{"go_gc_gogc_percent", "/gc/gogc:percent"},
	{"go_gc_gomemlimit_bytes", "/gc/gomemlimit:bytes"},
	{"go_sched_gomaxprocs_threads", "/sched/gomaxprocs:threads"},
}

var runtimeDescriptions = sync.OnceValue(func() map[string]string {
	d := map[string]string{}
	for _, m := range metrics.All() {
		d[m.Name] = m.Description
	}
	return d
})

// addRuntime adds the Go runtime's figures.
func addRuntime(fams families) {
	fams.gauge("go_goroutines", "Number of goroutines that currently exist.", float64(runtime.NumGoroutine()))
	threads, _ := runtime.ThreadCreateProfile(nil)
	fams.gauge("go_threads", "Number of OS threads created.", float64(threads))
	fams.add("go_info", "Information about the Go environment.", "gauge", series{labels: []label{{"version", runtime.Version()}}, value: 1})

	gc := debug.GCStats{PauseQuantiles: make([]time.Duration, 5)} // min, 25%, 50%, 75%, max
	debug.ReadGCStats(&gc)
	pauses := series{sum: gc.PauseTotal.Seconds(), count: float64(gc.NumGC)}
	for i, q := range gc.PauseQuantiles {
		pauses.points = append(pauses.points, point{float64(i) / 4, q.Seconds()})
	}
	fams.add("go_gc_duration_seconds", "A summary of the wall-time pause (stop-the-world) duration in garbage collection cycles.", "summary", pauses)
	fams.gauge("go_memstats_last_gc_time_seconds", "Number of seconds since 1970 of last garbage collection.", float64(gc.LastGC.UnixNano())/1e9)

	var samples []metrics.Sample
	index := map[string]int{}
	want := func(name string) {
		if _, ok := index[name]; !ok {
			index[name] = len(samples)
			samples = append(samples, metrics.Sample{Name: name})
		}
	}
	for _, m := range memStats {
		for _, n := range m.sum {
			want(n)
		}
	}
	for _, g := range runtimeGauges {
		want(g.sample)
	}
	metrics.Read(samples)
	value := func(name string) (float64, bool) {
		switch v := samples[index[name]].Value; v.Kind() {
		case metrics.KindUint64:
			return float64(v.Uint64()), true
		case metrics.KindFloat64:
			return v.Float64(), true
		}
		return 0, false // not in this Go's runtime/metrics
	}
	for _, m := range memStats {
		var sum uint64
		for _, n := range m.sum {
			if v := samples[index[n]].Value; v.Kind() == metrics.KindUint64 {
				sum += v.Uint64()
			}
		}
		if m.counter {
			fams.counter("go_memstats_"+m.name, m.help, float64(sum))
		} else {
			fams.gauge("go_memstats_"+m.name, m.help, float64(sum))
		}
	}
	for _, g := range runtimeGauges {
		if v, ok := value(g.sample); ok {
			fams.gauge(g.name, runtimeDescriptions()[g.sample]+" Sourced from "+g.sample+".", v)
		}
	}
}

// addProcess adds the process's figures from /proc/self: CPU time, memory,
// file descriptors, start time. Elsewhere than on Linux, or whatever
// cannot be read, is left out.
func addProcess(fams families) {
	if runtime.GOOS != "linux" {
		return
	}
	// /proc/self/stat: the fields after the command's name (which may hold
	// spaces and parentheses) from the 3rd, state.
	if b, err := os.ReadFile("/proc/self/stat"); err == nil {
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		field := func(n int) float64 { // n counts from 1, as in proc(5)
			if n-3 >= len(f) {
				return 0
			}
			v, _ := strconv.ParseFloat(f[n-3], 64)
			return v
		}
		const userHZ = 100 // clock ticks per second: USER_HZ, 100 on Linux's ABIs
		fams.counter("process_cpu_seconds_total", "Total user and system CPU time spent in seconds.", (field(14)+field(15))/userHZ)
		fams.gauge("process_virtual_memory_bytes", "Virtual memory size in bytes.", field(23))
		fams.gauge("process_resident_memory_bytes", "Resident memory size in bytes.", field(24)*float64(os.Getpagesize()))
		if boot, ok := bootTime(); ok {
			fams.gauge("process_start_time_seconds", "Start time of the process since unix epoch in seconds.", boot+field(22)/userHZ)
		}
	}
	if fds, ok := openFDs(); ok {
		fams.gauge("process_open_fds", "Number of open file descriptors.", float64(fds))
	}
	if b, err := os.ReadFile("/proc/self/limits"); err == nil {
		for line := range strings.Lines(string(b)) {
			for _, l := range []struct{ prefix, name, help string }{
				{"Max open files", "process_max_fds", "Maximum number of open file descriptors."},
				{"Max address space", "process_virtual_memory_max_bytes", "Maximum amount of virtual memory available in bytes."},
			} {
				rest, ok := strings.CutPrefix(line, l.prefix)
				if f := strings.Fields(rest); ok && len(f) > 0 { // the soft limit
					v, err := strconv.ParseFloat(f[0], 64)
					if f[0] == "unlimited" {
						v, err = math.MaxUint64, nil
					}
					if err == nil {
						fams.gauge(l.name, l.help, v)
					}
				}
			}
		}
	}
}

// openFDs counts the process's open file descriptors: the size of
// /proc/self/fd where Linux (6.2 on) gives it, else its entries.
func openFDs() (int, bool) {
	if fi, err := os.Stat("/proc/self/fd"); err == nil && fi.Size() > 0 {
		return int(fi.Size()), true
	}
	d, err := os.Open("/proc/self/fd")
	if err != nil {
		return 0, false
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	return len(names), err == nil
}

// bootTime is when the system booted, in seconds since the epoch: btime in
// /proc/stat.
var bootTime = sync.OnceValues(func() (float64, bool) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, false
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, "btime "); ok {
			t, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			return t, err == nil
		}
	}
	return 0, false
})

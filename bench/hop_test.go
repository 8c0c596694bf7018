package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	pluginv1 "github.com/ramabana/ramabana-mcp/internal/gen/ramabana/plugin/v1"
	"github.com/ramabana/ramabana-mcp/internal/launch"
	"github.com/ramabana/ramabana-mcp/internal/pluginclient"
	"github.com/ramabana/ramabana-mcp/internal/pluginrpc"
	"github.com/ramabana/ramabana-mcp/internal/proctest"
	"github.com/ramabana/ramabana-mcp/sdk"
)

// This file measures the plugin hop side by side with its floors, every
// variant alive at once and run in interleaved blocks, so that the machine's
// load falls on all of them alike: BenchmarkHopInterleaved through MCP,
// BenchmarkPureHop without it.

// pingPongEnv names the socket a re-executed test binary dials to serve as
// BenchmarkPureHop's raw-socket peer.
const pingPongEnv = "RAMABANA_BENCH_PINGPONG"

// pingPongPeer is the raw-socket peer, run in place of the tests when the
// test binary is started with pingPongEnv set (TestMain calls it first): it
// dials the socket and writes back whatever it reads, until EOF.
func pingPongPeer() {
	sock := os.Getenv(pingPongEnv)
	if sock == "" {
		return
	}
	conn, err := net.Dial("unix", sock)
	if err != nil {
		fmt.Fprintln(os.Stderr, "ping-pong peer:", err)
		os.Exit(1)
	}
	buf := make([]byte, 512)
	for {
		n, err := conn.Read(buf)
		if n > 0 {
			if _, werr := conn.Write(buf[:n]); werr != nil {
				os.Exit(0)
			}
		}
		if err != nil {
			os.Exit(0) // EOF: the benchmark has closed its end
		}
	}
}

// hopVariant is one thing measured: a call, and the processes whose CPU
// time is counted for it besides the test process's own.
type hopVariant struct {
	name string
	call func(ctx context.Context) error
	// peer is the server (or plugin, or helper) process, 0 for none;
	// with children, its descendants are counted apart (the plugins).
	peer     int
	children bool
}

// blockResult is one block of calls of one variant. CPU figures are µs of
// CPU time per call, NaN where they could not be read.
type blockResult struct {
	calls                   int
	callsPerSec             float64
	p50, p99                float64 // µs
	cpuSelf, cpuPeer, cpuCh float64
}

// interleave runs rounds rounds; in each, every variant runs a block of
// calls in turn (callers goroutines pulling calls from the block), the
// first variant of a round rotating so that none always follows the same
// one. The blocks share b.N calls per variant. Every call's error fails
// the benchmark.
func interleave(b *testing.B, vs []hopVariant, rounds, callers int) map[string][]blockResult {
	b.Helper()
	block := max(1, b.N/rounds)
	out := map[string][]blockResult{}
	b.ResetTimer()
	for r := range rounds {
		for i := range vs {
			v := vs[(r+i)%len(vs)]
			b.StopTimer()
			for range 5 { // untimed: the variant's caches after the others ran
				if err := v.call(context.Background()); err != nil {
					b.Fatalf("%s: %v", v.name, err)
				}
			}
			b.StartTimer()
			res, err := runBlock(v, block, callers)
			if err != nil {
				b.Fatalf("%s: %v", v.name, err)
			}
			out[v.name] = append(out[v.name], res)
		}
	}
	b.StopTimer()
	return out
}

// runBlock makes n calls of v with callers goroutines and reads the CPU
// time the processes spent on them.
func runBlock(v hopVariant, n, callers int) (blockResult, error) {
	var kids []int
	if v.peer != 0 && v.children {
		kids = processTree(v.peer)[1:]
	}
	self0, peer0, kids0 := cpuTime(os.Getpid()), cpuTime(v.peer), cpuTimes(kids)
	var next atomic.Int64
	lat := make([][]time.Duration, callers)
	errs := make(chan error, callers)
	var wg sync.WaitGroup
	t0 := time.Now()
	for i := range callers {
		wg.Go(func() {
			for next.Add(1) <= int64(n) {
				c0 := time.Now()
				err := v.call(context.Background())
				lat[i] = append(lat[i], time.Since(c0))
				if err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(t0)
	self1, peer1, kids1 := cpuTime(os.Getpid()), cpuTime(v.peer), cpuTimes(kids)
	close(errs)
	if err := <-errs; err != nil {
		return blockResult{}, err
	}
	d := slices.Concat(lat...)
	slices.Sort(d)
	at := func(q float64) float64 {
		return float64(d[min(len(d)-1, int(q*float64(len(d))))]) / float64(time.Microsecond)
	}
	perCall := func(t0, t1 time.Duration) float64 {
		if t0 < 0 || t1 < 0 {
			return math.NaN()
		}
		return float64(t1-t0) / float64(n) / float64(time.Microsecond)
	}
	res := blockResult{
		calls: n, callsPerSec: float64(n) / elapsed.Seconds(), p50: at(0.50), p99: at(0.99),
		cpuSelf: perCall(self0, self1), cpuPeer: math.NaN(), cpuCh: math.NaN(),
	}
	if v.peer != 0 {
		res.cpuPeer = perCall(peer0, peer1)
	}
	if v.children && runtime.GOOS == "linux" {
		res.cpuCh = perCall(common(kids0, kids1))
	}
	return res, nil
}

// cpuTime is the CPU time (user and system) pid's threads have had, -1
// where it cannot be read (pid 0, a gone process, a system without /proc).
//
// It sums the first field of every thread's /proc/PID/task/TID/schedstat:
// the scheduler's nanoseconds on CPU. /proc/PID/schedstat itself is the
// main thread's alone, and /proc/PID/stat's utime and stime, which do cover
// the whole process, come in clock ticks of 10 ms (Linux's USER_HZ of 100),
// too coarse for a block of calls of some tens of µs each; they are the
// fallback where schedstat is missing (a kernel without CONFIG_SCHEDSTATS
// or CONFIG_SCHED_INFO). Threads that exit take their time with them: Go
// rarely ends a thread.
func cpuTime(pid int) time.Duration {
	if pid == 0 || runtime.GOOS != "linux" {
		return -1
	}
	dir := "/proc/" + strconv.Itoa(pid)
	tasks, err := os.ReadDir(dir + "/task")
	if err != nil {
		return -1
	}
	var sum time.Duration
	for _, t := range tasks {
		b, err := os.ReadFile(dir + "/task/" + t.Name() + "/schedstat")
		if err != nil {
			if errors.Is(err, os.ErrNotExist) && t.Name() == strconv.Itoa(pid) {
				return ticks(dir + "/stat") // no schedstat on this kernel
			}
			continue // a thread that just ended
		}
		f := strings.Fields(string(b))
		if len(f) == 0 {
			continue
		}
		ns, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return -1
		}
		sum += time.Duration(ns)
	}
	return sum
}

// ticks is utime + stime from a /proc/PID/stat, -1 when unreadable.
func ticks(path string) time.Duration {
	b, err := os.ReadFile(path)
	if err != nil {
		return -1
	}
	// The command name, field 2, may hold spaces: count from the ')'.
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	if len(f) < 13 {
		return -1
	}
	u, err1 := strconv.ParseInt(f[11], 10, 64) // field 14, utime
	s, err2 := strconv.ParseInt(f[12], 10, 64) // field 15, stime
	if err1 != nil || err2 != nil {
		return -1
	}
	const clkTck = 100 // USER_HZ: 100 on every Linux architecture Go runs on
	return time.Duration(u+s) * time.Second / clkTck
}

// cpuTimes reads the CPU time of each of pids (-1 for the unreadable).
func cpuTimes(pids []int) map[int]time.Duration {
	m := make(map[int]time.Duration, len(pids))
	for _, pid := range pids {
		m[pid] = cpuTime(pid)
	}
	return m
}

// common sums two readings of the same processes over those readable in
// both, so that a process that starts or ends in between counts for
// neither. With no process at all both sums are 0.
func common(before, after map[int]time.Duration) (t0, t1 time.Duration) {
	for pid, a := range after {
		if b, ok := before[pid]; ok && a >= 0 && b >= 0 {
			t0, t1 = t0+b, t1+a
		}
	}
	return t0, t1
}

// hopFigure is one figure of a block, for the summaries.
type hopFigure struct {
	name string
	get  func(blockResult) float64
}

var (
	figP50    = hopFigure{"p50 µs", func(r blockResult) float64 { return r.p50 }}
	figP99    = hopFigure{"p99 µs", func(r blockResult) float64 { return r.p99 }}
	figTail   = hopFigure{"p99/p50", func(r blockResult) float64 { return r.p99 / r.p50 }}
	figCalls  = hopFigure{"calls/s", func(r blockResult) float64 { return r.callsPerSec }}
	figSelf   = hopFigure{"", func(r blockResult) float64 { return r.cpuSelf }}
	figPeer   = hopFigure{"", func(r blockResult) float64 { return r.cpuPeer }}
	figCh     = hopFigure{"", func(r blockResult) float64 { return r.cpuCh }}
	figServer = hopFigure{"", func(r blockResult) float64 {
		if math.IsNaN(r.cpuCh) {
			return r.cpuPeer
		}
		return r.cpuPeer + r.cpuCh
	}}
	figBoth = hopFigure{"", func(r blockResult) float64 {
		if math.IsNaN(r.cpuPeer) {
			return r.cpuSelf
		}
		return r.cpuSelf + r.cpuPeer
	}}
)

// named gives f another column name.
func (f hopFigure) named(name string) hopFigure { f.name = name; return f }

// medianOf is the median of the numbers of v that are not NaN; NaN when
// there are none.
func medianOf(v []float64) float64 {
	v = slices.DeleteFunc(slices.Clone(v), math.IsNaN)
	if len(v) == 0 {
		return math.NaN()
	}
	slices.Sort(v)
	if len(v)%2 == 0 {
		return (v[len(v)/2-1] + v[len(v)/2]) / 2
	}
	return v[len(v)/2]
}

// medianFigure is the median over the rounds of f, and the median over the
// rounds of f's ratio to base's f in the same round (NaN where base's is 0
// or unknown): on a noisy machine the ratio within a round is the fairer
// comparison.
func medianFigure(rs, base []blockResult, f hopFigure) (value, ratio float64) {
	var vals, ratios []float64
	for i, r := range rs {
		vals = append(vals, f.get(r))
		if i < len(base) {
			if bv := f.get(base[i]); bv > 0 {
				ratios = append(ratios, f.get(r)/bv)
			}
		}
	}
	return medianOf(vals), medianOf(ratios)
}

// logTable logs, as a Markdown table, each variant's median figures over
// the rounds with their median ratio to base's.
func logTable(b *testing.B, title string, names []string, base string, res map[string][]blockResult, figs []hopFigure) {
	var t strings.Builder
	fmt.Fprintf(&t, "%s\n| variant |", title)
	for _, f := range figs {
		fmt.Fprintf(&t, " %s |", f.name)
	}
	t.WriteString("\n| --- |" + strings.Repeat(" --- |", len(figs)) + "\n")
	for _, name := range names {
		fmt.Fprintf(&t, "| %s |", name)
		for _, f := range figs {
			v, ratio := medianFigure(res[name], res[base], f)
			switch {
			case math.IsNaN(v):
				t.WriteString(" n/a |")
			case name == base || math.IsNaN(ratio):
				fmt.Fprintf(&t, " %s |", num(v))
			default:
				fmt.Fprintf(&t, " %s (%.2f×) |", num(v), ratio)
			}
		}
		t.WriteString("\n")
	}
	b.Log(t.String())
}

// num writes v with about three significant digits.
func num(v float64) string {
	switch a := math.Abs(v); {
	case a >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case a >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	default:
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
}

// reportMedians reports each variant's median figures as the benchmark's
// metrics, named <variant>-<unit>; unknown figures are left out.
func reportMedians(b *testing.B, res map[string][]blockResult, figs map[string]hopFigure) {
	for name, rs := range res {
		for unit, f := range figs {
			if v, _ := medianFigure(rs, nil, f); !math.IsNaN(v) {
				b.ReportMetric(v, name+"-"+unit)
			}
		}
	}
}

// mcpCall is a variant's call: tool with args on cs, whose text must be
// want.
func mcpCall(cs *mcp.ClientSession, tool string, args any, want string) func(context.Context) error {
	return func(ctx context.Context) error {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
		if err != nil {
			return fmt.Errorf("call %s: %w", tool, err)
		}
		if got := text(res); res.IsError || got != want {
			return fmt.Errorf("call %s: answered %q (isError %v), want %q", tool, got, res.IsError, want)
		}
		return nil
	}
}

// settleTree waits until pid's process tree has not changed for a second:
// the server has started its plugins.
func settleTree(pid int) {
	last, since := -1, time.Now()
	proctest.Await(func() bool {
		if n := len(processTree(pid)); n != last {
			last, since = n, time.Now()
		}
		return time.Since(since) >= time.Second
	})
}

// BenchmarkHopInterleaved measures one tools/call on three long-lived
// servers started once and alive together, driven by the go-sdk client
// over stdio: the floor's in-process echo, the test plugin's echo through
// ramabana's plugin hop (--plugins), and view_file of a 5-line file on a
// ramabana with its default groups. The run has $RAMABANA_BENCH_REPS
// rounds (5); in each, every server answers a block of b.N/rounds calls in
// turn, so the load of a shared machine falls on all three alike. Two
// sub-benchmarks: serial (one call at a time) and callers=8 (8 goroutines
// calling at once over the one session). With $RAMABANA_BENCH_BASELINE
// naming another ramabana-mcp binary (an older commit's), its echo and
// view_file take turns too, as baseline-echo and baseline-view-small.
//
// Figures per server, as <server>-<unit> metrics (medians over the
// rounds): p50-µs, p99-µs, calls/s, and the CPU time per call of the
// server process (host-µs/call) and of its descendants, the plugins
// (plugin-µs/call), on Linux. With -v, a summary table of the medians and
// their ratios to the floor's in the same round.
func BenchmarkHopInterleaved(b *testing.B) {
	root := project(b)
	echo := map[string]any{"text": "hello"}
	view := map[string]any{"path": "small.py"}
	floorCmd := command(floor, root, "")
	floorCS := start(b, floorCmd)
	echoCmd := command(ramabana, root, b.TempDir(), "--plugins", pluginDir(b))
	echoCS := start(b, echoCmd)
	viewCmd := command(ramabana, root, b.TempDir())
	viewCS := start(b, viewCmd)
	page := text(call(b, viewCS, "view_file", view))
	if n := strings.Count(page, "\n") + 1; n != 5 || !strings.Contains(page, "return ctx - RESERVE") {
		b.Fatalf("view_file small.py: %d lines, want the 5 of small.py:\n%s", n, page)
	}
	variants := []hopVariant{
		{name: "floor", call: mcpCall(floorCS, "echo", echo, "hello"), peer: floorCmd.Process.Pid, children: true},
		{name: "ramabana-echo", call: mcpCall(echoCS, "echo", echo, "hello"), peer: echoCmd.Process.Pid, children: true},
		{name: "ramabana-view-small", call: mcpCall(viewCS, "view_file", view, page), peer: viewCmd.Process.Pid, children: true},
	}
	names := []string{"floor", "ramabana-echo", "ramabana-view-small"}
	if base := os.Getenv("RAMABANA_BENCH_BASELINE"); base != "" {
		// Another build of ramabana-mcp (an older commit's, to compare
		// before and after a change in the same run), with the same flags.
		// Its echo plugin is this tree's test plugin.
		baseEcho := command(ramabana, root, b.TempDir(), "--plugins", pluginDir(b))
		baseEcho.Path, baseEcho.Args[0] = base, base
		baseEchoCS := start(b, baseEcho)
		baseView := command(ramabana, root, b.TempDir())
		baseView.Path, baseView.Args[0] = base, base
		baseViewCS := start(b, baseView)
		variants = append(variants,
			hopVariant{name: "baseline-echo", call: mcpCall(baseEchoCS, "echo", echo, "hello"), peer: baseEcho.Process.Pid, children: true},
			hopVariant{name: "baseline-view-small", call: mcpCall(baseViewCS, "view_file", view, page), peer: baseView.Process.Pid, children: true})
		names = append(names, "baseline-echo", "baseline-view-small")
	}
	for _, v := range variants {
		settleTree(v.peer)
		for range warmup {
			if err := v.call(context.Background()); err != nil {
				b.Fatalf("%s: %v", v.name, err)
			}
		}
	}
	rounds := benchReps(b, 5)
	modes := []struct {
		name, what string
		callers    int
	}{{"serial", "one call at a time", 1}, {"callers=8", "8 goroutines calling at once over the one session", 8}}
	results := map[string]map[string][]blockResult{}
	for _, m := range modes {
		b.Run(m.name, func(b *testing.B) {
			res := interleave(b, variants, rounds, m.callers)
			results[m.name] = res
			figs := map[string]hopFigure{"p50-µs": figP50, "p99-µs": figP99, "host-µs/call": figPeer, "plugin-µs/call": figCh}
			if m.callers > 1 {
				figs["calls/s"] = figCalls
			}
			reportMedians(b, res, figs)
		})
	}
	cpu := []hopFigure{figPeer.named("cpu host µs/call"), figCh.named("cpu plugin µs/call"), figServer.named("cpu host+plugin µs/call"), figSelf.named("cpu client µs/call")}
	for _, m := range modes {
		if res := results[m.name]; res != nil {
			figs := append([]hopFigure{figP50, figP99, figTail}, cpu...)
			if m.callers > 1 {
				figs = append([]hopFigure{figCalls}, figs...)
			}
			logTable(b, fmt.Sprintf("%s, %s: medians of %d rounds of %d calls; (×) the median of each round's ratio to the floor's", m.name, m.what, rounds, res["floor"][0].calls), names, "floor", res, figs)
		}
	}
}

// BenchmarkPureHop measures the host-to-plugin hop without MCP, serially,
// in interleaved rounds as BenchmarkHopInterleaved: launched-plugin is
// pluginclient's Call of the test plugin's echo in a plugin process started
// by launch.Start, as the host starts it; in-process-grpc is the same
// service (pluginrpc's server, the sdk's service, the call token) serving
// an echo tool in the test process on a Unix socket; raw-socket is an
// 8-byte message written to another process over a Unix socket and read
// back. Figures: p50-µs, p99-µs, and the CPU time per call of the test
// process (caller-µs/call; in-process-grpc's both sides) and of the other
// process (peer-µs/call), on Linux.
func BenchmarkPureHop(b *testing.B) {
	args := json.RawMessage(`{"text":"hello"}`)
	b.Cleanup(launch.RemoveSocketDir) // after the plugin has stopped
	proc, _, err := launch.Start(context.Background(),
		launch.Command{Name: "echo", Path: filepath.Join(pluginDir(b), "ramabana-plugin-echo")},
		sdk.Host{Roots: []string{b.TempDir()}},
		launch.Options{Env: launch.Environ(os.Environ(), nil)})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(proc.Stop)
	raw, peer := pingPong(b)
	variants := []hopVariant{
		{name: "raw-socket", call: raw, peer: peer},
		{name: "in-process-grpc", call: groupCall(inProcessEcho(b), args, "hello")},
		{name: "launched-plugin", call: groupCall(proc.Group(), args, "hello"), peer: proc.Pid()},
	}
	for _, v := range variants {
		for range warmup {
			if err := v.call(context.Background()); err != nil {
				b.Fatalf("%s: %v", v.name, err)
			}
		}
	}
	var results map[string][]blockResult
	rounds := benchReps(b, 5)
	b.Run("serial", func(b *testing.B) {
		results = interleave(b, variants, rounds, 1)
		reportMedians(b, results, map[string]hopFigure{"p50-µs": figP50, "p99-µs": figP99, "caller-µs/call": figSelf, "peer-µs/call": figPeer})
	})
	if results == nil {
		return
	}
	logTable(b, fmt.Sprintf("the hop alone: median of %d rounds of %d calls; (×) the median of each round's ratio to raw-socket's", rounds, results["raw-socket"][0].calls),
		[]string{"raw-socket", "in-process-grpc", "launched-plugin"}, "raw-socket", results,
		[]hopFigure{figP50, figP99, figTail, figSelf.named("cpu caller µs/call"), figPeer.named("cpu peer µs/call"), figBoth.named("cpu caller+peer µs/call")})
}

// groupCall is a variant's call: tool echo of g with args, whose text must
// be want.
func groupCall(g sdk.Group, args json.RawMessage, want string) func(context.Context) error {
	return func(ctx context.Context) error {
		res, err := g.Call(ctx, &sdk.Call{Tool: "echo", Arguments: args}, nil)
		if err != nil {
			return fmt.Errorf("call echo: %w", err)
		}
		if got := res.Text(); res.IsError || got != want {
			return fmt.Errorf("call echo: answered %q (isError %v), want %q", got, res.IsError, want)
		}
		return nil
	}
}

type hopEchoArgs struct {
	Text string `json:"text" jsonschema:"the text to echo"`
}

// inProcessEcho serves an echo tool (the test plugin's, written again: that
// is a main package) in this process as a plugin process serves it:
// pluginrpc's server with the sdk's service and the call token, on a Unix
// socket; the client is dialled as the host dials a plugin.
func inProcessEcho(b *testing.B) sdk.Group {
	b.Helper()
	box := sdk.NewToolbox("echo", sdk.WithVersion("0.0.1"), sdk.WithDescription("test tools"))
	box.AddGroup(sdk.GroupSpec{Name: "echo", Description: "test tools"},
		sdk.TypedTool(sdk.ToolSpec{Name: "echo", Description: "Echo the text.", Kind: sdk.KindRead},
			func(_ context.Context, _ *sdk.Request, a hopEchoArgs) (*sdk.Result, error) {
				return sdk.TextResult(a.Text), nil
			}))
	token, err := pluginrpc.NewToken()
	if err != nil {
		b.Fatal(err)
	}
	lis, err := net.Listen("unix", filepath.Join(socketDir(b), "plugin.sock"))
	if err != nil {
		b.Fatal(err)
	}
	srv := pluginrpc.NewServer(pluginrpc.RequireToken(token)...)
	pluginv1.RegisterToolGroupServiceServer(srv, sdk.Service(box))
	go func() { _ = srv.Serve(lis) }()
	conn, err := grpc.NewClient("unix://"+lis.Addr().String(), append(pluginrpc.DialOptions(),
		grpc.WithTransportCredentials(insecure.NewCredentials()), pluginrpc.TokenDialOption(token))...)
	if err != nil {
		srv.Stop()
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = conn.Close(); srv.Stop() })
	return pluginclient.Dial(conn)
}

// socketDir is a short temporary folder for sockets (a socket's path may
// not exceed 104 bytes on macOS, 108 on Linux), removed with the benchmark.
func socketDir(b *testing.B) string {
	b.Helper()
	dir, err := os.MkdirTemp("", "hop")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = os.RemoveAll(dir) })
	return dir
}

// pingPong starts the raw-socket peer (this test binary again, run as
// pingPongPeer) and returns one round trip as a call, and the peer's pid.
// The peer ends with the benchmark: closing the socket ends it.
func pingPong(b *testing.B) (func(context.Context) error, int) {
	b.Helper()
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: filepath.Join(socketDir(b), "pingpong.sock"), Net: "unix"})
	if err != nil {
		b.Fatal(err)
	}
	defer ln.Close()
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), pingPongEnv+"="+ln.Addr().String())
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	var conn net.Conn
	b.Cleanup(func() {
		if conn != nil {
			_ = conn.Close()
		}
		waitOrKill(cmd)
	})
	_ = ln.SetDeadline(time.Now().Add(proctest.Patience))
	if conn, err = ln.Accept(); err != nil {
		b.Fatalf("the ping-pong peer did not connect: %v", err)
	}
	msg := []byte("ping-hop")
	buf := make([]byte, len(msg))
	return func(context.Context) error {
		if _, err := conn.Write(msg); err != nil {
			return fmt.Errorf("ping: %w", err)
		}
		if _, err := io.ReadFull(conn, buf); err != nil {
			return fmt.Errorf("pong: %w", err)
		}
		if !bytes.Equal(buf, msg) {
			return fmt.Errorf("pong: got %q, want %q", buf, msg)
		}
		return nil
	}, cmd.Process.Pid
}

package bench

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ramabana/ramabana-mcp/internal/proctest"
)

// httpServer is a server process serving streamable HTTP on loopback.
type httpServer struct {
	cmd   *exec.Cmd
	url   string // http://127.0.0.1:PORT/mcp
	token string // bearer token, "" for none
	pprof bool   // answers /debug/pprof/goroutine
}

// listening matches the line both servers log once they accept
// connections: ramabana's slog line and the floor's.
var listening = regexp.MustCompile(`mcp=(http://\S+/mcp)`)

// startHTTP starts cmd, which must log a listening line on stderr, and
// ends it (SIGTERM, then SIGKILL) with the benchmark.
func startHTTP(b *testing.B, cmd *exec.Cmd, token string) *httpServer {
	b.Helper()
	stderr, err := cmd.StderrPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatalf("start %s: %v", cmd.Path, err)
	}
	b.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		waitOrKill(cmd)
	})
	found := make(chan string, 1)
	var head strings.Builder // what it said before listening, for the error
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := listening.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
				break
			}
			head.WriteString(sc.Text() + "\n")
		}
		close(found)
		_, _ = io.Copy(io.Discard, stderr) // a full pipe would block its logging
	}()
	select {
	case url, ok := <-found:
		if !ok {
			b.Fatalf("%s exited before listening:\n%s", cmd.Path, head.String())
		}
		s := &httpServer{cmd: cmd, url: url, token: token, pprof: true}
		_, s.pprof = s.goroutines()
		return s
	case <-time.After(proctest.Patience):
		b.Fatalf("%s did not listen within %s", cmd.Path, proctest.Patience)
	}
	return nil
}

// bearer adds the token to every request.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (t bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	if t.token == "" {
		return t.next.RoundTrip(r)
	}
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+t.token)
	return t.next.RoundTrip(r)
}

// CloseIdleConnections lets http.Client.CloseIdleConnections through.
func (t bearer) CloseIdleConnections() {
	if c, ok := t.next.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

// httpClient is one user: an HTTP client with connections of its own.
func (s *httpServer) httpClient() *http.Client {
	return &http.Client{Transport: bearer{s.token, &http.Transport{MaxIdleConnsPerHost: 4}}}
}

// connect opens an MCP session over streamable HTTP, as a client such as
// Claude Code does (standalone SSE stream included), on connections of its
// own. Its Close ends the session and closes those connections.
func (s *httpServer) connect(ctx context.Context) (*mcp.ClientSession, func(), error) {
	hc := s.httpClient()
	c := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "0"}, &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}})
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: s.url, HTTPClient: hc}, nil)
	if err != nil {
		hc.CloseIdleConnections()
		return nil, nil, err
	}
	return cs, func() { _ = cs.Close(); hc.CloseIdleConnections() }, nil
}

// goroutines reads the server's goroutine count from
// /debug/pprof/goroutine?debug=1, when it serves that (ramabana with
// --pprof); ok is false otherwise.
func (s *httpServer) goroutines() (n int, ok bool) {
	if !s.pprof {
		return 0, false
	}
	req, err := http.NewRequest(http.MethodGet, strings.TrimSuffix(s.url, "/mcp")+"/debug/pprof/goroutine?debug=1", nil)
	if err != nil {
		return 0, false
	}
	hc := s.httpClient()
	defer hc.CloseIdleConnections()
	resp, err := hc.Do(req)
	if err != nil {
		return 0, false
	}
	defer resp.Body.Close()
	line, _ := bufio.NewReader(resp.Body).ReadString('\n')
	// "goroutine profile: total 42"
	n, err = strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(line, "goroutine profile: total")))
	return n, resp.StatusCode == http.StatusOK && err == nil
}

// usage is what a server's process tree (it and its descendants, the
// plugins) holds, read from /proc.
type usage struct {
	procs, threads, fds int
	rssKB, pssKB        int
	goroutines          int // the host's, -1 when it has no pprof endpoint
}

func (s *httpServer) usage() usage {
	u := usage{goroutines: -1}
	if n, ok := s.goroutines(); ok {
		u.goroutines = n
	}
	for _, pid := range processTree(s.cmd.Process.Pid) {
		u.procs++
		dir := "/proc/" + strconv.Itoa(pid)
		if fds, err := os.ReadDir(dir + "/fd"); err == nil {
			u.fds += len(fds)
		}
		u.threads += procField(dir+"/status", "Threads:")
		u.rssKB += procField(dir+"/status", "VmRSS:")
		u.pssKB += procField(dir+"/smaps_rollup", "Pss:")
	}
	return u
}

// processTree is pid and its live descendants.
func processTree(pid int) []int {
	out := []int{pid}
	for i := 0; i < len(out); i++ {
		out = append(out, proctest.Children(out[i])...)
	}
	return out
}

// procField reads the number after name in a /proc file of "Name: value"
// lines (kB for sizes), 0 when it is not there.
func procField(path, name string) int {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(b)) {
		if rest, ok := strings.CutPrefix(line, name); ok {
			n, _ := strconv.Atoi(strings.Fields(rest)[0])
			return n
		}
	}
	return 0
}

// httpClients are the numbers of concurrent clients, from
// $RAMABANA_BENCH_CLIENTS ("1,8,32,64,128") or 1, 8 and 32.
func httpClients(b *testing.B) []int {
	spec := os.Getenv("RAMABANA_BENCH_CLIENTS")
	if spec == "" {
		return []int{1, 8, 32}
	}
	var ns []int
	for f := range strings.SplitSeq(spec, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			b.Fatalf("RAMABANA_BENCH_CLIENTS=%q: want client counts such as 1,8,32", spec)
		}
		ns = append(ns, n)
	}
	return ns
}

// loadResult is one sub-benchmark's figures, for the run's summary.
type loadResult struct {
	calls                 int
	callsPerSec, p50, p99 float64 // p50 and p99 in ms
}

// BenchmarkHTTPLoad measures N concurrent streamable-HTTP clients, each a
// session on connections of its own, making b.N calls in all on one
// long-lived server: the floor's in-process echo over the SDK's HTTP
// handler (bench/floor -http), the test plugin's echo through ramabana
// (--transport http, all bundled groups plus --plugins), and view_file of a
// 5-line file on that same ramabana. For each N the three run side by side;
// -count repeats the whole sequence, so the servers alternate.
//
// Figures: calls/s (b.N over the time from the first call to the last
// answer), p50-ms and p99-ms of one call, and what the server's process
// tree (host and plugins) held after the sessions closed against before
// they opened: fd-growth, proc-growth, goroutine-growth (with a pprof
// endpoint), and its PSS in MB after the burst. The run ends with a summary
// of each N's ratios to the floor in the benchmark's log.
func BenchmarkHTTPLoad(b *testing.B) {
	root := project(b)
	const token = "bench-token"
	floorSrv := startHTTP(b, exec.Command(floorBin, "-http", "127.0.0.1:0"), "")
	args := []string{"--transport", "http", "--addr", "127.0.0.1:0", "--root", root, "--cfg", b.TempDir(), "--plugins", pluginDir(b)}
	if pprofFlag() {
		args = append(args, "--pprof")
	}
	cmd := exec.Command(ramabanaBin, args...)
	cmd.Env = append(os.Environ(), "RAMABANA_PLUGIN_PATH=", "RAMABANA_TOKEN="+token)
	ramaSrv := startHTTP(b, cmd, token)

	echo := map[string]any{"text": "hello"}
	view := map[string]any{"path": "small.py"}
	targets := []struct {
		name string
		srv  *httpServer
		tool string
		args any
	}{
		{"floor-echo", floorSrv, "echo", echo},
		{"ramabana-echo", ramaSrv, "echo", echo},
		{"ramabana-view-small", ramaSrv, "view_file", view},
	}
	// One session first, so that every plugin has started and answered.
	for _, t := range targets {
		cs, done, err := t.srv.connect(context.Background())
		if err != nil {
			b.Fatalf("%s: connect: %v", t.name, err)
		}
		call(b, cs, t.tool, t.args)
		done()
	}
	ramaSrv.settle()
	start := ramaSrv.usage()
	b.Logf("ramabana after start: %s", start)

	results := map[string][]loadResult{}
	ns := httpClients(b)
	for _, n := range ns {
		for range benchReps(b, 3) {
			for _, t := range targets {
				name := fmt.Sprintf("N=%d/%s", n, t.name)
				b.Run(name, func(b *testing.B) {
					r := load(b, t.srv, n, t.tool, t.args)
					results[name] = append(results[name], r)
				})
			}
		}
	}
	b.Logf("ramabana after the run: %s", ramaSrv.usage())
	summarize(b, ns, results)
}

// summarize logs, for each N, the median over the repetitions of each
// ramabana target's figures against the floor's, and the most clients
// whose median p99 stayed within 100 ms.
func summarize(b *testing.B, ns []int, results map[string][]loadResult) {
	med := func(v []float64) float64 {
		v = slices.Clone(v)
		slices.Sort(v)
		return v[len(v)/2]
	}
	pick := func(rs []loadResult, f func(loadResult) float64) []float64 {
		v := make([]float64, len(rs))
		for i, r := range rs {
			v[i] = f(r)
		}
		return v
	}
	median := func(rs []loadResult) loadResult {
		return loadResult{
			callsPerSec: med(pick(rs, func(r loadResult) float64 { return r.callsPerSec })),
			p50:         med(pick(rs, func(r loadResult) float64 { return r.p50 })),
			p99:         med(pick(rs, func(r loadResult) float64 { return r.p99 })),
		}
	}
	maxN, over := map[string]int{}, map[string]bool{}
	for _, n := range ns {
		// b.N is 1 in a sub-benchmark's first, tentative run; only the
		// runs of the asked-for count are figures.
		runs := func(name string) []loadResult {
			return slices.DeleteFunc(slices.Clone(results[fmt.Sprintf("N=%d/%s", n, name)]), func(r loadResult) bool { return r.calls < 2 })
		}
		fr := runs("floor-echo")
		if len(fr) == 0 {
			continue
		}
		f := median(fr)
		b.Logf("N=%d floor-echo: %.0f calls/s, p50 %.2f ms, p99 %.2f ms, p99/p50 %.1f (median of %d)", n, f.callsPerSec, f.p50, f.p99, f.p99/f.p50, len(fr))
		for _, name := range []string{"ramabana-echo", "ramabana-view-small"} {
			rr := runs(name)
			if len(rr) == 0 {
				continue
			}
			r := median(rr)
			// The floor's run just before it, in the same repetition, is
			// the fairest comparison on a noisy machine: the median of
			// those paired ratios.
			var paired []float64
			for i := range min(len(rr), len(fr)) {
				paired = append(paired, 100*rr[i].callsPerSec/fr[i].callsPerSec)
			}
			b.Logf("N=%d %s: %.0f calls/s, %.0f%% of the floor's (paired by repetition; %.0f%% as a ratio of medians); p50 %.2f ms, p99 %.2f ms, p99/p50 %.1f (median of %d)",
				n, name, r.callsPerSec, med(paired), 100*r.callsPerSec/f.callsPerSec, r.p50, r.p99, r.p99/r.p50, len(rr))
			if r.p99 > 100 {
				over[name] = true
			} else if !over[name] {
				maxN[name] = n
			}
		}
	}
	for _, name := range []string{"ramabana-echo", "ramabana-view-small"} {
		switch n, ok := maxN[name]; {
		case ok && over[name]:
			b.Logf("%s: median p99 within 100 ms up to N=%d, above it at the next N", name, n)
		case ok:
			b.Logf("%s: median p99 within 100 ms at every N tried, up to %d", name, n)
		case over[name]:
			b.Logf("%s: median p99 above 100 ms already at N=%d", name, ns[0])
		}
	}
}

// settle waits until the server's plugins have started: its /readyz says
// ready, or, where it has none, its process tree has not changed for a
// second.
func (s *httpServer) settle() {
	hc := s.httpClient()
	defer hc.CloseIdleConnections()
	if resp, err := hc.Get(strings.TrimSuffix(s.url, "/mcp") + "/readyz"); err == nil {
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound {
			proctest.Await(func() bool {
				resp, err := hc.Get(strings.TrimSuffix(s.url, "/mcp") + "/readyz")
				if err != nil {
					return false
				}
				resp.Body.Close()
				return resp.StatusCode == http.StatusOK
			})
		}
	}
	last, since := -1, time.Now()
	proctest.Await(func() bool {
		if n := len(processTree(s.cmd.Process.Pid)); n != last {
			last, since = n, time.Now()
		}
		return time.Since(since) >= time.Second
	})
}

func (u usage) String() string {
	g := "n/a"
	if u.goroutines >= 0 {
		g = strconv.Itoa(u.goroutines)
	}
	return fmt.Sprintf("%d processes, %d threads, %d fds, RSS %.1f MB, PSS %.1f MB, host goroutines %s",
		u.procs, u.threads, u.fds, float64(u.rssKB)/1024, float64(u.pssKB)/1024, g)
}

// pprofFlag reports whether ramabana-mcp has a --pprof flag (a switch that
// serves /debug/pprof on the HTTP listener).
func pprofFlag() bool {
	out, _ := exec.Command(ramabanaBin, "--help").CombinedOutput()
	return strings.Contains(string(out), "--pprof")
}

// load runs one sub-benchmark: n sessions, b.N calls of tool in all.
func load(b *testing.B, srv *httpServer, n int, tool string, args any) loadResult {
	before := srv.usage()
	sessions := make([]*mcp.ClientSession, n)
	closers := make([]func(), n)
	ctx, cancel := context.WithTimeout(context.Background(), proctest.Patience)
	for i := range sessions {
		cs, done, err := srv.connect(ctx)
		if err != nil {
			cancel()
			b.Fatalf("session %d of %d: %v", i+1, n, err)
		}
		sessions[i], closers[i] = cs, done
	}
	cancel()
	closeAll := sync.OnceFunc(func() {
		for _, done := range closers {
			if done != nil {
				done()
			}
		}
	})
	defer closeAll()
	for _, cs := range sessions {
		for range 5 {
			call(b, cs, tool, args)
		}
	}

	var next atomic.Int64
	lat := make([][]time.Duration, n)
	errs := make(chan error, n)
	var wg sync.WaitGroup
	b.ResetTimer()
	t0 := time.Now()
	for i, cs := range sessions {
		wg.Go(func() {
			for next.Add(1) <= int64(b.N) {
				c0 := time.Now()
				res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
				lat[i] = append(lat[i], time.Since(c0))
				if err == nil && res.IsError {
					err = fmt.Errorf("tool error: %s", text(res))
				}
				if err != nil {
					errs <- fmt.Errorf("client %d: %s: %w", i+1, tool, err)
					return
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(t0)
	b.StopTimer()
	close(errs)
	if err := <-errs; err != nil {
		b.Fatal(err)
	}

	d := slices.Concat(lat...)
	slices.Sort(d)
	at := func(q float64) float64 {
		return float64(d[min(len(d)-1, int(q*float64(len(d))))]) / float64(time.Millisecond)
	}
	r := loadResult{calls: b.N, callsPerSec: float64(b.N) / elapsed.Seconds(), p50: at(0.50), p99: at(0.99)}
	b.ReportMetric(r.callsPerSec, "calls/s")
	b.ReportMetric(r.p50, "p50-ms")
	b.ReportMetric(r.p99, "p99-ms")
	b.ReportMetric(float64(srv.usage().pssKB)/1024, "pss-MB")

	// What the sessions held must go with them: wait for the server to
	// let go (closing is asynchronous on its side), then report what is
	// left over.
	closeAll()
	var after usage
	proctest.Await(func() bool {
		after = srv.usage()
		return after.fds <= before.fds && after.procs <= before.procs && after.goroutines <= before.goroutines
	})
	b.ReportMetric(float64(after.fds-before.fds), "fd-growth")
	b.ReportMetric(float64(after.procs-before.procs), "proc-growth")
	if after.goroutines >= 0 && before.goroutines >= 0 {
		b.ReportMetric(float64(after.goroutines-before.goroutines), "goroutine-growth")
	}
	return r
}

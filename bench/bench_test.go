package bench

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ramabana/ramabana-mcp/internal/proctest"
)

// The binaries under test, built once without -race by TestMain.
var (
	ramabanaBin string // ./cmd/ramabana-mcp
	floorBin    string // ./bench/floor
	testPlugin  string // ./internal/testplugin
	testUp      string // ./internal/testupstream
)

// TestMain builds the binaries into a temporary folder, or into
// $RAMABANA_BENCH_BIN when set, where they stay (for perf to resolve their
// symbols).
func TestMain(m *testing.M) {
	pingPongPeer() // when this binary is BenchmarkPureHop's peer, it serves and exits
	flag.Parse()
	if flag.Lookup("test.bench").Value.String() == "" {
		os.Exit(m.Run()) // no benchmark asked for: build nothing
	}
	dir, keep := os.LookupEnv("RAMABANA_BENCH_BIN")
	if !keep {
		var err error
		if dir, err = os.MkdirTemp("", "ramabana-bench"); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	cleanup := func() {
		if !keep {
			_ = os.RemoveAll(dir)
		}
	}
	ramabanaBin = filepath.Join(dir, "ramabana-mcp")
	floorBin = filepath.Join(dir, "floor")
	testPlugin = filepath.Join(dir, "testplugin")
	testUp = filepath.Join(dir, "testupstream")
	for out, pkg := range map[string]string{
		ramabanaBin: "github.com/ramabana/ramabana-mcp/cmd/ramabana-mcp",
		floorBin:    "github.com/ramabana/ramabana-mcp/bench/floor",
		testPlugin:  "github.com/ramabana/ramabana-mcp/internal/testplugin",
		testUp:      "github.com/ramabana/ramabana-mcp/internal/testupstream",
	} {
		if b, err := exec.Command("go", "build", "-o", out, pkg).CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "go build %s: %v\n%s", pkg, err, b)
			cleanup()
			os.Exit(1)
		}
	}
	code := m.Run()
	cleanup()
	os.Exit(code)
}

// benchReps is how many rounds or repetitions a side-by-side benchmark
// runs: $RAMABANA_BENCH_REPS, or def.
func benchReps(b *testing.B, def int) int {
	spec := os.Getenv("RAMABANA_BENCH_REPS")
	if spec == "" {
		return def
	}
	n, err := strconv.Atoi(spec)
	if err != nil || n < 1 {
		b.Fatalf("RAMABANA_BENCH_REPS=%q: want a count such as %d", spec, def)
	}
	return n
}

// warmup calls made on a long-lived server before timing starts.
const warmup = 20

// kind says which server a sub-benchmark runs.
type kind int

const (
	floor kind = iota
	ramabana
)

// command returns the command line for a server of kind k serving root;
// for ramabana, extra flags follow the defaults (all bundled groups).
func command(k kind, root, cfg string, extra ...string) *exec.Cmd {
	if k == floor {
		return exec.Command(floorBin)
	}
	args := append([]string{"--root", root, "--cfg", cfg}, extra...)
	cmd := exec.Command(ramabanaBin, args...)
	// Plugins come only from --plugins and the bundled groups.
	cmd.Env = append(os.Environ(), "RAMABANA_PLUGIN_PATH=")
	return cmd
}

// connect starts cmd and initializes an MCP session over its stdio. The
// session's Close closes the server's stdin and waits for it to exit
// (SIGTERM, then SIGKILL, if it lingers).
//
// The client declares no capabilities, as ramabana's own upstream client:
// with the go-sdk's default (roots), server-everything asks for the roots
// 350 ms after initialize and, when the client has closed by then, waits
// 60 s for the answer before it exits. No server here needs the roots.
func connect(ctx context.Context, cmd *exec.Cmd) (*mcp.ClientSession, error) {
	c := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "0"}, &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}})
	cs, err := c.Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 5 * time.Second}, nil)
	if err != nil {
		reap(cmd)
		return nil, err
	}
	return cs, nil
}

// reap ends cmd if it was started and has not been waited for.
func reap(cmd *exec.Cmd) {
	if cmd.Process != nil && cmd.ProcessState == nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}
}

// waitOrKill waits for cmd to exit, and kills it if it has not within
// proctest.Patience.
func waitOrKill(cmd *exec.Cmd) {
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(proctest.Patience):
		_ = cmd.Process.Kill()
		<-done
	}
}

// start starts a long-lived server for one sub-benchmark; it ends with the
// sub-benchmark.
func start(b *testing.B, cmd *exec.Cmd) *mcp.ClientSession {
	b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := connect(ctx, cmd)
	if err != nil {
		b.Fatalf("start %s: %v", cmd.Path, err)
	}
	b.Cleanup(func() {
		if err := cs.Close(); err != nil {
			b.Errorf("close %s: %v", cmd.Path, err)
		}
		reap(cmd)
	})
	return cs
}

// project makes a served folder holding small.py (5 lines) and big.py
// (10,000 lines, about 350 KB).
func project(b *testing.B) string {
	b.Helper()
	dir := b.TempDir()
	small := "RESERVE = 16_384\n\n\ndef threshold(ctx):\n    return ctx - RESERVE\n"
	var big strings.Builder
	for i := 1; i <= 10000; i++ {
		if i%10 == 1 {
			fmt.Fprintf(&big, "def block_%04d(ctx):\n", i/10)
		} else {
			fmt.Fprintf(&big, "    x_%05d = f(%d, \"some text\")\n", i, i)
		}
	}
	for name, data := range map[string]string{"small.py": small, "big.py": big.String()} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return dir
}

// pluginDir holds the test plugin as ramabana-plugin-echo.
func pluginDir(b *testing.B) string {
	b.Helper()
	dir := b.TempDir()
	if err := os.Symlink(testPlugin, filepath.Join(dir, "ramabana-plugin-echo")); err != nil {
		b.Fatal(err)
	}
	return dir
}

// call makes one tool call and fails the benchmark on any error, including
// an isError result.
func call(b *testing.B, cs *mcp.ClientSession, name string, args any) *mcp.CallToolResult {
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		b.Fatalf("call %s: %v", name, err)
	}
	if res.IsError {
		b.Fatalf("call %s: tool error: %s", name, text(res))
	}
	return res
}

func text(r *mcp.CallToolResult) string {
	var parts []string
	for _, c := range r.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// has reports whether list holds the tool name.
func has(list *mcp.ListToolsResult, name string) bool {
	return slices.ContainsFunc(list.Tools, func(t *mcp.Tool) bool { return t.Name == name })
}

// timeCalls runs fn once per b.Loop iteration, after warmup untimed runs,
// and reports the p50 and p99 of the iterations in µs.
func timeCalls(b *testing.B, fn func()) {
	b.Helper()
	for range warmup {
		fn()
	}
	var d []time.Duration
	for b.Loop() {
		t0 := time.Now()
		fn()
		d = append(d, time.Since(t0))
	}
	report(b, d, time.Microsecond, "µs")
}

// report adds the p50 and p99 of d as metrics in the given unit.
func report(b *testing.B, d []time.Duration, unit time.Duration, name string) {
	if len(d) == 0 {
		return
	}
	slices.Sort(d)
	at := func(q float64) float64 {
		return float64(d[min(len(d)-1, int(q*float64(len(d))))]) / float64(unit)
	}
	b.ReportMetric(at(0.50), "p50-"+name)
	b.ReportMetric(at(0.99), "p99-"+name)
	b.ReportMetric(float64(d[len(d)-1])/float64(unit), "max-"+name)
}

// BenchmarkSpawnToolsList measures a client's cold start: spawn the server,
// initialize, list its tools.
func BenchmarkSpawnToolsList(b *testing.B) {
	root := project(b)
	for _, bc := range []struct {
		name string
		kind kind
	}{{"floor", floor}, {"ramabana", ramabana}} {
		b.Run(bc.name, func(b *testing.B) {
			cfg := b.TempDir()
			timeSpawn(b, func() *exec.Cmd { return command(bc.kind, root, cfg) }, "")
		})
	}
}

// timeSpawn runs one cold start per b.Loop iteration: start the command
// newCmd returns, initialize, list tools (one tools/list, its first page).
// It reports the p50 and p99 of spawn → tools/list answered in ms. Closing
// the session (stdin closed, server exit awaited) is outside the timer and
// reported as close-ms. The first page must hold the tool want, or any tool
// when want is "".
func timeSpawn(b *testing.B, newCmd func() *exec.Cmd, want string) {
	b.Helper()
	var spawn []time.Duration
	var closing time.Duration
	for b.Loop() {
		t0 := time.Now()
		cmd := newCmd()
		cs, err := connect(context.Background(), cmd)
		if err != nil {
			b.Fatalf("start %s: %v", cmd.Path, err)
		}
		list, err := cs.ListTools(context.Background(), nil)
		spawn = append(spawn, time.Since(t0))
		b.StopTimer()
		t1 := time.Now()
		cerr := cs.Close()
		closing += time.Since(t1)
		reap(cmd)
		if err != nil {
			b.Fatalf("tools/list: %v", err)
		}
		if cerr != nil {
			b.Fatalf("close %s: %v", cmd.Path, cerr)
		}
		if len(list.Tools) == 0 {
			b.Fatalf("%s lists no tools", cmd.Path)
		}
		if want != "" && !has(list, want) {
			b.Fatalf("%s: no %s in the first tools/list (%d tools)", cmd.Path, want, len(list.Tools))
		}
		b.StartTimer()
	}
	report(b, spawn, time.Millisecond, "ms")
	b.ReportMetric(float64(closing)/float64(b.N)/float64(time.Millisecond), "close-ms")
}

// BenchmarkCall measures one call of a trivial tool on a long-lived server:
// the floor's in-process echo, the test plugin's echo through ramabana's
// plugin hop, and view_file of a 5-line file.
func BenchmarkCall(b *testing.B) {
	root := project(b)
	echo := map[string]any{"text": "hello"}
	b.Run("floor", func(b *testing.B) {
		cs := start(b, command(floor, root, ""))
		timeCalls(b, func() { call(b, cs, "echo", echo) })
	})
	b.Run("ramabana", func(b *testing.B) {
		cs := start(b, command(ramabana, root, b.TempDir(), "--plugins", pluginDir(b)))
		timeCalls(b, func() { call(b, cs, "echo", echo) })
	})
	b.Run("ramabana-view-small", func(b *testing.B) {
		cs := start(b, command(ramabana, root, b.TempDir()))
		view := map[string]any{"path": "small.py"}
		if got := strings.Count(text(call(b, cs, "view_file", view)), "\n") + 1; got != 5 {
			b.Fatalf("view_file small.py: %d lines, want 5", got)
		}
		timeCalls(b, func() { call(b, cs, "view_file", view) })
	})
}

// BenchmarkViewFile10k measures view_file of a whole 10,000-line file
// against the floor sending the very bytes view_file returned, as one text
// content.
func BenchmarkViewFile10k(b *testing.B) {
	root := project(b)
	rs := start(b, command(ramabana, root, b.TempDir()))
	view := map[string]any{"path": "big.py", "limit": 10000}
	res := call(b, rs, "view_file", view)
	if len(res.Content) != 1 {
		b.Fatalf("view_file big.py: %d contents, want 1", len(res.Content))
	}
	page := text(res)
	if n := strings.Count(page, "\n") + 1; n != 10000 {
		b.Fatalf("view_file big.py: %d lines, want 10000 (last: %q)", n, page[strings.LastIndexByte(page, '\n')+1:])
	}
	rendered := filepath.Join(b.TempDir(), "rendered.txt")
	if err := os.WriteFile(rendered, []byte(page), 0o644); err != nil {
		b.Fatal(err)
	}
	send := map[string]any{"path": rendered}

	b.Run("floor", func(b *testing.B) {
		cs := start(b, command(floor, root, ""))
		if got := text(call(b, cs, "send_bytes", send)); len(got) != len(page) {
			b.Fatalf("send_bytes: %d bytes, view_file sent %d", len(got), len(page))
		}
		b.SetBytes(int64(len(page)))
		timeCalls(b, func() { call(b, cs, "send_bytes", send) })
	})
	b.Run("ramabana", func(b *testing.B) {
		b.SetBytes(int64(len(page)))
		timeCalls(b, func() { call(b, rs, "view_file", view) })
	})
}

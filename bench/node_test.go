package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
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
)

// nodeServer is one server in client.mjs's spec.
type nodeServer struct {
	Name      string            `json:"name"`
	Command   string            `json:"command"`
	Args      []string          `json:"args"`
	Env       map[string]string `json:"env,omitempty"`
	WantTools []string          `json:"wantTools,omitempty"`
	Read      nodeRead          `json:"read"`
}

// nodeRead is the small-file read call client.mjs times, and text its result
// must hold.
type nodeRead struct {
	Tool   string         `json:"tool"`
	Args   map[string]any `json:"args"`
	Expect string         `json:"expect"`
}

// nodeResult is one line of client.mjs's output: one server's samples of one
// measure, in ms, one list per round.
type nodeResult struct {
	Server  string      `json:"server"`
	Measure string      `json:"measure"`
	N       int         `json:"n"`
	P50     float64     `json:"p50"`
	P99     float64     `json:"p99"`
	Max     float64     `json:"max"`
	Tools   int         `json:"tools"` // list measures: tools listed
	Bytes   int         `json:"bytes"` // list measures: the tools/list result's size as JSON
	Rounds  [][]float64 `json:"rounds"`
	Done    bool        `json:"done"`
}

// nodeMeasures are client.mjs's measures, as reported: the metric's prefix,
// and its unit.
var nodeMeasures = []struct {
	measure, unit string
	scale         float64 // from ms
}{
	{"spawn", "ms", 1},
	{"first-read", "ms", 1},
	{"idle-pss", "MB", 1},
	{"list", "ms", 1},
	{"list-req", "ms", 1},
	{"read", "µs", 1000},
}

// BenchmarkNodeClient measures the servers through the TypeScript SDK's
// client (bench/peer/client.mjs, the client most MCP hosts embed) rather
// than the go-sdk's: spawn → initialize → tools/list answered, tools/list on
// a live session, and one read of small.py (ramabana's view_file,
// server-filesystem's read_text_file, the floor's echo of the same text).
// The three servers run interleaved in one client process, so they share the
// machine's noise; the sub-benchmarks only report what that one run measured.
//
// Rounds: $RAMABANA_BENCH_REPS, or 5. In each round every server makes
// min(4, calls) cold starts and `calls` timed tools/list, bare tools/list and
// read calls on its live session, where calls is N of -benchtime Nx, or 100.
// A cold start also measures the process tree's PSS once idle after
// tools/list, and its first read (for ramabana, a plugin's start included).
// With $RAMABANA_BENCH_BASELINE naming another ramabana-mcp binary (an
// older commit's), it takes its turns as "baseline".
//
// A fourth server, "floor-catalog", is the floor listing ramabana's own
// tools besides its two (floor -tools): the least any Go MCP server with
// this catalog pays, the client's parsing of the 30-odd tools included.
func BenchmarkNodeClient(b *testing.B) {
	node, err := exec.LookPath("node")
	if err != nil {
		b.Skip("node not on PATH")
	}
	script, err := filepath.Abs(filepath.Join("peer", "client.mjs"))
	if err != nil {
		b.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join("peer", "node_modules", "@modelcontextprotocol", "sdk", "package.json")); err != nil {
		b.Skip("@modelcontextprotocol/sdk not installed: run npm ci in bench/peer")
	}
	root := project(b)
	small, err := os.ReadFile(filepath.Join(root, "small.py"))
	if err != nil {
		b.Fatal(err)
	}
	fs := peerFilesystem(b, root)
	fl := command(floor, root, "")
	rb := command(ramabana, root, b.TempDir())
	const expect = "RESERVE = 16_384"
	servers := []nodeServer{
		{
			Name: "floor", Command: fl.Path, Args: fl.Args[1:],
			Read: nodeRead{Tool: "echo", Args: map[string]any{"text": string(small)}, Expect: expect},
		},
		{
			// Node's StdioClientTransport passes only HOME, PATH and a few
			// others of its own environment, plus env.
			Name: "ramabana", Command: rb.Path, Args: rb.Args[1:], Env: map[string]string{"RAMABANA_PLUGIN_PATH": ""},
			// One tool of every bundled group in the default (read-only)
			// set: each is listed (its process starts at its first call).
			WantTools: []string{"view_file", "search_code", "git_status", "fetch_url", "recall", "view_notebook"},
			Read:      nodeRead{Tool: "view_file", Args: map[string]any{"path": "small.py"}, Expect: expect},
		},
		{
			Name: "server-filesystem", Command: fs.Path, Args: fs.Args[1:],
			WantTools: []string{"read_text_file"},
			Read:      nodeRead{Tool: "read_text_file", Args: map[string]any{"path": filepath.Join(root, "small.py")}, Expect: expect},
		},
	}
	catalog := catalogFile(b, command(ramabana, root, b.TempDir()))
	servers = append(servers, nodeServer{
		Name: "floor-catalog", Command: floorBin, Args: []string{"-tools", catalog},
		Read: nodeRead{Tool: "echo", Args: map[string]any{"text": string(small)}, Expect: expect},
	})
	if base := os.Getenv("RAMABANA_BENCH_BASELINE"); base != "" {
		// Another build of ramabana-mcp (an older commit's), with the same
		// flags and calls, to compare before and after in one run. It is
		// copied first: a file just written is wholly in the page cache, as
		// the fresh build is, and a start then maps more of it around each
		// fault (fault-around), which showed as 2 MB more idle PSS for
		// whichever binary was written last.
		fresh := filepath.Join(b.TempDir(), "baseline-ramabana-mcp")
		bin, err := os.ReadFile(base)
		if err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(fresh, bin, 0o755); err != nil {
			b.Fatal(err)
		}
		bl := servers[1]
		bl.Name, bl.Command = "baseline", fresh
		bl.Args = command(ramabana, root, b.TempDir()).Args[1:]
		servers = append(servers, bl)
	}
	calls := benchCalls(100)
	spec, err := json.Marshal(map[string]any{
		"rounds": benchReps(b, 5), "spawns": min(4, calls), "calls": calls, "warmup": warmup, "servers": servers,
	})
	if err != nil {
		b.Fatal(err)
	}

	load0 := loadAvg()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, script, "-")
	cmd.Dir = filepath.Dir(script)
	cmd.Stdin = bytes.NewReader(spec)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.WaitDelay = 10 * time.Second
	out, err := cmd.Output()
	if err != nil {
		b.Fatalf("node client.mjs: %v\n%s", err, stderr.Bytes())
	}
	results, err := parseNode(out)
	if err != nil {
		b.Fatalf("node client.mjs: %v\n%s", err, out)
	}

	for _, s := range servers {
		b.Run(s.Name, func(b *testing.B) {
			for _, m := range nodeMeasures {
				r, ok := results[s.Name][m.measure]
				if !ok {
					b.Fatalf("client.mjs reported no %s for %s", m.measure, s.Name)
				}
				b.ReportMetric(r.P50*m.scale, m.measure+"-p50-"+m.unit)
				b.ReportMetric(r.P99*m.scale, m.measure+"-p99-"+m.unit)
			}
			b.ReportMetric(0, "ns/op") // one run for all servers: no time per iteration
		})
	}
	summarizeNode(b, results, load0)
}

// catalogFile writes the tools cmd's server lists (every page) to a file,
// as the JSON array the floor's -tools reads, and returns its path.
func catalogFile(b *testing.B, cmd *exec.Cmd) string {
	b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs, err := connect(ctx, cmd)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	var tools []*mcp.Tool
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			b.Fatal(err)
		}
		tools = append(tools, t)
	}
	data, err := json.Marshal(tools)
	if err != nil {
		b.Fatal(err)
	}
	p := filepath.Join(b.TempDir(), "catalog.json")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		b.Fatal(err)
	}
	return p
}

// benchCalls is N of -benchtime Nx, or def for a -benchtime given as a
// duration.
func benchCalls(def int) int {
	f := flag.Lookup("test.benchtime")
	if f == nil {
		return def
	}
	n, err := strconv.Atoi(strings.TrimSuffix(f.Value.String(), "x"))
	if !strings.HasSuffix(f.Value.String(), "x") || err != nil || n < 1 {
		return def
	}
	return n
}

// parseNode reads client.mjs's lines into results[server][measure]; the
// output must end with its done line.
func parseNode(out []byte) (map[string]map[string]nodeResult, error) {
	results := map[string]map[string]nodeResult{}
	done := false
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var r nodeResult
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return nil, fmt.Errorf("read line %q: %w", sc.Text(), err)
		}
		if r.Done {
			done = true
			continue
		}
		if results[r.Server] == nil {
			results[r.Server] = map[string]nodeResult{}
		}
		results[r.Server][r.Measure] = r
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read output: %w", err)
	}
	if !done {
		return nil, fmt.Errorf("output ends before its done line")
	}
	return results, nil
}

// summarizeNode logs, with -v, ramabana's figures against the targets, the
// floor and server-filesystem: each as the ratio of the p50s over all rounds
// and, in brackets, the p50 ratio of each round (both servers measured in the
// same round, so the ratio is paired).
func summarizeNode(b *testing.B, results map[string]map[string]nodeResult, load0 string) {
	b.Helper()
	rb, fl, fs := results["ramabana"], results["floor"], results["server-filesystem"]
	ratio := func(m string, other map[string]nodeResult) string {
		x, y := rb[m], other[m]
		var per []string
		for i := range min(len(x.Rounds), len(y.Rounds)) {
			per = append(per, fmt.Sprintf("%.2f", median(x.Rounds[i])/median(y.Rounds[i])))
		}
		return fmt.Sprintf("%.2f× [%s]", x.P50/y.P50, strings.Join(per, " "))
	}
	b.Logf("load average before %s, after %s", load0, loadAvg())
	b.Logf("spawn → tools/list (p50, p99 ms): floor %.1f, %.1f; ramabana %.1f, %.1f; server-filesystem %.1f, %.1f",
		fl["spawn"].P50, fl["spawn"].P99, rb["spawn"].P50, rb["spawn"].P99, fs["spawn"].P50, fs["spawn"].P99)
	b.Logf("ramabana spawn: %.0f%% of the 30 ms target; %s the floor's, %s server-filesystem's", 100*rb["spawn"].P50/30, ratio("spawn", fl), ratio("spawn", fs))
	if fc, ok := results["floor-catalog"]; ok {
		b.Logf("the floor listing ramabana's %d tools (%d B): spawn %.1f, %.1f ms (p50, p99); ramabana %s it", fc["list"].Tools, fc["list"].Bytes, fc["spawn"].P50, fc["spawn"].P99, ratio("spawn", fc))
	}
	b.Logf("first read of a cold start (p50, p99 ms; ramabana's files plugin starts for it): floor %.1f, %.1f; ramabana %.1f, %.1f (target ≤ 60 ms); server-filesystem %.1f, %.1f",
		fl["first-read"].P50, fl["first-read"].P99, rb["first-read"].P50, rb["first-read"].P99, fs["first-read"].P50, fs["first-read"].P99)
	b.Logf("idle after tools/list, PSS of the process tree (p50 MB): floor %.1f; ramabana %.1f (target below server-filesystem's); server-filesystem %.1f; ramabana %s server-filesystem's",
		fl["idle-pss"].P50, rb["idle-pss"].P50, fs["idle-pss"].P50, ratio("idle-pss", fs))
	b.Logf("tools/list on a live session, bare request (p50, p99 ms): floor %.3f, %.3f; ramabana %.3f, %.3f (target ≤ 1 ms); server-filesystem %.3f, %.3f",
		fl["list-req"].P50, fl["list-req"].P99, rb["list-req"].P50, rb["list-req"].P99, fs["list-req"].P50, fs["list-req"].P99)
	b.Logf("tools/list result: floor %d tools, %d B; ramabana %d tools, %d B; server-filesystem %d tools, %d B",
		fl["list"].Tools, fl["list"].Bytes, rb["list"].Tools, rb["list"].Bytes, fs["list"].Tools, fs["list"].Bytes)
	b.Logf("tools/list through client.listTools() (p50, p99 ms): floor %.3f, %.3f; ramabana %.3f, %.3f; server-filesystem %.3f, %.3f",
		fl["list"].P50, fl["list"].P99, rb["list"].P50, rb["list"].P99, fs["list"].P50, fs["list"].P99)
	b.Logf("read small.py (p50, p99 µs): floor echo %.0f, %.0f; ramabana view_file %.0f, %.0f; server-filesystem read_text_file %.0f, %.0f",
		1000*fl["read"].P50, 1000*fl["read"].P99, 1000*rb["read"].P50, 1000*rb["read"].P99, 1000*fs["read"].P50, 1000*fs["read"].P99)
	b.Logf("ramabana view_file: %s server-filesystem's read_text_file (target < 1), %s the floor's echo", ratio("read", fs), ratio("read", fl))
	if bl, ok := results["baseline"]; ok {
		b.Logf("baseline (p50): spawn %.1f ms, first read %.1f ms, idle PSS %.1f MB, read %.0f µs; ramabana against it: spawn %s, first read %s, idle PSS %s, read %s",
			bl["spawn"].P50, bl["first-read"].P50, bl["idle-pss"].P50, 1000*bl["read"].P50,
			ratio("spawn", bl), ratio("first-read", bl), ratio("idle-pss", bl), ratio("read", bl))
	}
}

func median(d []float64) float64 {
	if len(d) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(d))
	return s[len(s)/2]
}

// loadAvg is the 1, 5 and 15-minute load averages, where /proc has them.
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "n/a"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "n/a"
	}
	return strings.Join(f[:3], " ")
}

package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ramabana/ramabana-mcp/internal/proctest"
)

// findCmdline returns the pids of live processes whose command line
// contains marker (NULs read as spaces).
func findCmdline(marker string) []int {
	paths, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	var out []int
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil || !strings.Contains(string(bytes.ReplaceAll(b, []byte{0}, []byte{' '})), marker) {
			continue
		}
		if pid, err := strconv.Atoi(filepath.Base(filepath.Dir(p))); err == nil && proctest.Alive(pid) {
			out = append(out, pid)
		}
	}
	return out
}

// raceNoExitSleep is the GORACE setting that spares a race-built server
// and its plugins the race runtime's 1 s sleep at exit (atexit_sleep_ms),
// which is no part of a shutdown being measured.
func raceNoExitSleep() string {
	return "GORACE=" + strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0")
}

// TestSignalMidCallStopsTheServerAndItsCommand: SIGTERM, SIGINT or SIGHUP
// while run_command runs `sleep` cancels the call, stops the plugins and
// the command, and the server exits cleanly within 2 s.
func TestSignalMidCallStopsTheServerAndItsCommand(t *testing.T) {
	t.Parallel()
	sigs := map[string]syscall.Signal{"SIGTERM": syscall.SIGTERM, "SIGINT": syscall.SIGINT, "SIGHUP": syscall.SIGHUP}
	if testing.Short() {
		sigs = map[string]syscall.Signal{"SIGTERM": syscall.SIGTERM}
	}
	for name, sig := range sigs {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := startStdioEnv(t, []string{raceNoExitSleep()}, project(t), "--write")
			marker := fmt.Sprintf("%d.%d", 300+int(sig), time.Now().UnixNano()%1e6)
			callDone := make(chan struct{})
			go func() {
				defer close(callDone)
				_, _ = call(t, s.session, "run_command", map[string]any{"command": "sleep " + marker})
			}()
			var pids []int
			if !proctest.Await(func() bool { pids = findCmdline("sleep " + marker); return len(pids) > 0 }) {
				t.Fatalf("the command never started; stderr:\n%s", s.stderr)
			}
			var sleeps []proctest.Proc // with their start times: a pid may be reused once it ends
			for _, pid := range pids {
				sleeps = append(sleeps, proctest.Find(pid))
			}
			waited := make(chan error, 1)
			start := time.Now()
			if err := s.cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			go func() { waited <- s.cmd.Wait() }()
			var err error
			select {
			case err = <-waited:
			case <-time.After(proctest.Patience):
				_ = s.cmd.Process.Kill()
				<-waited
				t.Fatalf("server still running %s after %s; stderr:\n%s", proctest.Patience, name, s.stderr)
			}
			elapsed := time.Since(start)
			// A clean exit (0) stopped everything in time; exit 1 is the
			// deadline's forced exit, which still keeps the 2 s promise.
			t.Logf("%s mid-call: server exited after %s (%v)", name, elapsed.Round(time.Millisecond), err)
			if os.Getenv("RAMABANA_TEST_SHOW") != "" {
				t.Logf("stderr:\n%s", s.stderr)
			}
			if elapsed > 5*time.Second {
				t.Errorf("exit took %s, promised within 2 s; stderr:\n%s", elapsed, s.stderr)
			}
			for _, cmd := range sleeps {
				if !proctest.Await(func() bool { return !cmd.Alive() }) {
					t.Errorf("the command (pid %d) outlived the server", cmd.Pid)
					_ = proctest.Kill(cmd.Pid)
				}
			}
			<-callDone
		})
	}
}

// rawStdio is the real binary driven line by line, for frames no client
// library would send.
type rawStdio struct {
	t     *testing.T
	in    io.WriteCloser
	lines chan []byte
	srv   *server
}

func startRawStdio(t *testing.T, root string, args ...string) *rawStdio {
	t.Helper()
	cmd := exec.Command(binary, baseArgs(t, root, args...)...)
	s := &server{cmd: cmd, stderr: &proctest.Output{}}
	cmd.Stderr = s.stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = in.Close(); s.stop(t) })
	r := &rawStdio{t: t, in: in, lines: make(chan []byte, 64), srv: s}
	go func() {
		defer close(r.lines)
		br := bufio.NewReaderSize(out, 1<<20)
		for {
			line, err := br.ReadBytes('\n')
			if len(line) > 0 {
				r.lines <- line
			}
			if err != nil {
				return
			}
		}
	}()
	return r
}

func (r *rawStdio) send(frame []byte) {
	r.t.Helper()
	if _, err := r.in.Write(append(frame, '\n')); err != nil {
		r.t.Fatalf("write: %v; stderr:\n%s", err, r.srv.stderr)
	}
}

// reply waits for the message with the given raw id, skipping
// notifications and other ids.
func (r *rawStdio) reply(id string) map[string]json.RawMessage {
	r.t.Helper()
	timeout := time.After(30 * time.Second)
	for {
		select {
		case line, ok := <-r.lines:
			if !ok {
				r.t.Fatalf("server closed stdout waiting for id %s; stderr:\n%s", id, r.srv.stderr)
			}
			var m map[string]json.RawMessage
			if err := json.Unmarshal(line, &m); err != nil {
				r.t.Fatalf("stdout line is not JSON: %q", line)
			}
			if string(m["id"]) == id {
				return m
			}
		case <-timeout:
			r.t.Fatalf("no reply with id %s; stderr:\n%s", id, r.srv.stderr)
		}
	}
}

// TestMalformedStdioFramesDoNotEndTheSession sends 20 malformed frames to
// the real binary: each that deserves an answer gets its JSON-RPC error,
// with the request's id when it has a valid one, and the server answers a
// tools/list after every one, echoing string and number ids as sent.
func TestMalformedStdioFramesDoNotEndTheSession(t *testing.T) {
	t.Parallel()
	r := startRawStdio(t, project(t))
	r.send([]byte(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`))
	if m := r.reply(`"init"`); m["result"] == nil {
		t.Fatalf("initialize = %v", m)
	}
	r.send([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	deep := func(n int) []byte {
		return []byte(`{"jsonrpc":"2.0","id":"deep","method":"ping","params":{"x":` + strings.Repeat("[", n) + strings.Repeat("]", n) + `}}`)
	}
	const parse, invalid = -32700, -32600
	frames := []struct {
		name  string
		frame []byte
		code  int    // 0: no answer expected
		id    string // the error's id
	}{
		{"not JSON", []byte("hello there"), parse, "null"},
		{"truncated", []byte(`{"jsonrpc":"2.0","id":1,`), parse, "null"},
		{"NUL bytes", []byte("{\"jsonrpc\":\"2.0\",\x00\x00\"id\":1}"), parse, "null"},
		{"NUL in a string", []byte("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\x00b\"}"), parse, "null"},
		{"invalid UTF-8 outside strings", []byte{0xff, 0xfe, '{', '}'}, parse, "null"},
		{"batch", []byte(`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"}]`), invalid, "null"},
		{"empty batch", []byte(`[]`), invalid, "null"},
		{"a bare number", []byte(`42`), invalid, "null"},
		{"object id", []byte(`{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}`), invalid, "null"},
		{"bool id", []byte(`{"jsonrpc":"2.0","id":true,"method":"ping"}`), invalid, "null"},
		{"null id", []byte(`{"jsonrpc":"2.0","id":null,"method":"ping"}`), invalid, "null"},
		{"fractional id", []byte(`{"jsonrpc":"2.0","id":2.5,"method":"ping"}`), invalid, "null"},
		{"id beyond 2^53", []byte(`{"jsonrpc":"2.0","id":123456789012345678901,"method":"ping"}`), invalid, "null"},
		{"duplicate id", []byte(`{"jsonrpc":"2.0","id":1,"id":"2","method":"ping"}`), invalid, "null"},
		{"nesting 999", deep(999), invalid, `"deep"`},
		{"nesting 20000", deep(20000), parse, "null"},
		{"frame over 16 MiB", []byte(`{"jsonrpc":"2.0","id":"big","method":"ping","params":{"x":"` + strings.Repeat("a", 16<<20) + `"}}`), invalid, "null"},
		{"wrong version", []byte(`{"jsonrpc":"1.0","id":"v1","method":"ping"}`), invalid, `"v1"`},
		{"method not a string", []byte(`{"jsonrpc":"2.0","id":77,"method":["ping"]}`), invalid, "77"},
		{"a response nobody asked for", []byte(`{"jsonrpc":"2.0","id":"nobody","result":{}}`), 0, ""},
	}
	for i, f := range frames {
		r.send(f.frame)
		if f.code != 0 {
			m := r.reply(f.id)
			var e struct{ Code int }
			if err := json.Unmarshal(m["error"], &e); err != nil || e.Code != f.code {
				t.Errorf("%s: reply %v, want error %d with id %s", f.name, m, f.code, f.id)
			}
		}
		id := strconv.Itoa(1000 + i)
		if i%2 == 1 {
			id = `"list-` + strconv.Itoa(i) + `"`
		}
		r.send([]byte(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/list"}`))
		if m := r.reply(id); !bytes.Contains(m["result"], []byte(`"view_file"`)) {
			t.Fatalf("after %s: tools/list = %v", f.name, m)
		}
	}
	t.Logf("%d malformed frames, the session answered after each", len(frames))
}

// TestForeignOriginIsRefused: a browser request from another origin gets
// 403 on /mcp and /sse, token or not; the server's own origin, its
// loopback alias, an allowed origin and requests without Origin pass.
func TestForeignOriginIsRefused(t *testing.T) {
	t.Parallel()
	_, base := startHTTP(t, project(t), "--token", "s3cret", "--allow-origin", "http://inspector.example:6274")
	port := base[strings.LastIndex(base, ":")+1:]
	initBody := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"o","version":"0"}}}`
	for name, tc := range map[string]struct {
		method, path, origin string
		want                 int
	}{
		"foreign Origin, /mcp":        {"POST", "/mcp", "http://evil.com", http.StatusForbidden},
		"foreign Origin, /sse":        {"GET", "/sse", "http://evil.com", http.StatusForbidden},
		"foreign Origin, GET /mcp":    {"GET", "/mcp", "http://evil.com", http.StatusForbidden},
		"another local port":          {"POST", "/mcp", "http://localhost:1", http.StatusForbidden},
		"no Origin":                   {"POST", "/mcp", "", http.StatusOK},
		"same origin":                 {"POST", "/mcp", base, http.StatusOK},
		"localhost alias":             {"POST", "/mcp", "http://localhost:" + port, http.StatusOK},
		"allowed with --allow-origin": {"POST", "/mcp", "http://inspector.example:6274", http.StatusOK},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var body io.Reader
			if tc.method == "POST" {
				body = strings.NewReader(initBody)
			}
			req, _ := http.NewRequest(tc.method, base+tc.path, body)
			req.Header.Set("Authorization", "Bearer s3cret")
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			if tc.origin != "" {
				req.Header.Set("Origin", tc.origin)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			_ = resp.Body.Close()
			if resp.StatusCode != tc.want {
				t.Errorf("status %d, want %d", resp.StatusCode, tc.want)
			}
		})
	}
}

var callIDRE = regexp.MustCompile(`call=([A-Z2-7]{16})`)

// TestCallIDInActivityAndLogs: every call gets its own call_id, which the
// activity feed shows and the host's log lines for the call carry.
func TestCallIDInActivityAndLogs(t *testing.T) {
	t.Parallel()
	s := startStdio(t, project(t))
	for range 2 {
		if res, err := call(t, s.session, "view_file", map[string]any{"path": "pkg/sizes.py"}); err != nil || res.IsError {
			t.Fatalf("view_file: %v %v", res, err)
		}
	}
	res, err := call(t, s.session, "activity", map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	for _, line := range strings.Split(text(res), "\n") {
		if !strings.Contains(line, "view_file") {
			continue
		}
		m := callIDRE.FindStringSubmatch(line)
		if m == nil {
			t.Fatalf("activity line without a call id: %q", line)
		}
		ids[m[1]] = true
		if !s.logged("call_id=" + m[1]) {
			t.Errorf("no host log line carries call_id=%s; stderr:\n%s", m[1], s.stderr)
		}
	}
	if len(ids) != 2 {
		t.Errorf("call ids %v, want 2 distinct ones; activity:\n%s", ids, text(res))
	}
}

// TestKilledServersLeaveNoSocketFolders: plugin sockets live under
// $TMPDIR/ramabana-<uid>/<server pid> (never go-plugin's plugin-dir* in
// $TMPDIR itself); a SIGKILLed server leaves its folder, the next server
// removes it, and a server that exits cleanly removes its own.
func TestKilledServersLeaveNoSocketFolders(t *testing.T) {
	t.Parallel()
	tmp, err := os.MkdirTemp("", "rk") // short: socket paths are bounded
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(tmp) })
	base := filepath.Join(tmp, "ramabana-"+strconv.Itoa(os.Getuid()))
	root := project(t)
	start := func() *server {
		t.Helper()
		s := startStdioEnv(t, []string{"TMPDIR=" + tmp, raceNoExitSleep()}, root)
		// A plugin starts at its first call: two calls, two plugins.
		for tool, args := range map[string]map[string]any{"view_file": {"path": "pkg/sizes.py"}, "git_status": {}} {
			if _, err := call(t, s.session, tool, args); err != nil { // a tool error is an answer too: git_status outside a repository
				t.Fatalf("%s: %v", tool, err)
			}
		}
		pid := s.cmd.Process.Pid
		for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			dirs, _ := filepath.Glob(filepath.Join(base, strconv.Itoa(pid), "plugin-dir*"))
			if len(proctest.Children(pid)) >= 2 && len(dirs) >= 2 {
				return s
			}
		}
		t.Fatalf("plugins did not start with their sockets in %s; stderr:\n%s", base, s.stderr)
		return nil
	}
	left := func() (hosts []string, strays []string) {
		entries, _ := os.ReadDir(base)
		for _, e := range entries {
			hosts = append(hosts, e.Name())
		}
		strays, _ = filepath.Glob(filepath.Join(tmp, "plugin-dir*"))
		return hosts, strays
	}
	var killed []string
	for range 3 {
		s := start()
		_ = s.cmd.Process.Kill()
		_ = s.cmd.Wait()
		killed = append(killed, strconv.Itoa(s.cmd.Process.Pid))
	}
	// Each start removed the folder of the server killed before it.
	hosts, strays := left()
	t.Logf("after 3 SIGKILLs: host folders %v, %d plugin-dir* in $TMPDIR", hosts, len(strays))
	if len(strays) != 0 || len(hosts) != 1 || hosts[0] != killed[2] {
		t.Errorf("after 3 SIGKILLs: host folders %v, strays %v; want only the last killed server's (%s) and no strays", hosts, strays, killed[2])
	}
	s := start()
	if hosts, _ := left(); len(hosts) != 1 || hosts[0] != strconv.Itoa(s.cmd.Process.Pid) {
		t.Errorf("after the next start: host folders %v, want only the running server's", hosts)
	}
	s.stop(t)
	if hosts, strays := left(); len(hosts) != 0 || len(strays) != 0 {
		t.Errorf("after a clean exit: host folders %v, strays %v, want none", hosts, strays)
	}
}

package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ramabana/ramabana-mcp/host"
	"github.com/ramabana/ramabana-mcp/host/internal/mcpserver"
	"github.com/ramabana/ramabana-mcp/host/internal/supervise"
	"github.com/ramabana/ramabana-mcp/internal/proctest"
	"github.com/ramabana/ramabana-mcp/plugins/files"
)

// The end-to-end tests build the real binary once and drive it with the
// go-sdk client, over stdio and HTTP, as a user's MCP client would.
var (
	binary       string // ramabana-mcp
	testPlugin   string // internal/testplugin
	testUpstream string // internal/testupstream
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "ramabana-e2e")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "ramabana-mcp")
	testPlugin = filepath.Join(dir, "testplugin")
	testUpstream = filepath.Join(dir, "testupstream")
	// The three in parallel, each shared with the other packages' tests
	// that build it with the same flags (proctest.Build).
	errs := make([]error, 3)
	var wg sync.WaitGroup
	for i, b := range []struct{ path, pkg string }{
		{binary, "github.com/ramabana/ramabana-mcp/cmd/ramabana-mcp"},
		{testPlugin, "github.com/ramabana/ramabana-mcp/internal/testplugin"},
		{testUpstream, "github.com/ramabana/ramabana-mcp/internal/testupstream"},
	} {
		wg.Go(func() { errs[i] = proctest.Build(b.path, raceFlags, b.pkg) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		fmt.Fprintf(os.Stderr, "go build: %v\n", err)
		_ = os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// project makes a served folder with pkg/sizes.py.
func project(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "pkg"), 0o755); err != nil {
		t.Fatal(err)
	}
	src := "RESERVE = 16_384\n\ndef threshold(ctx):\n    return ctx - RESERVE\n"
	if err := os.WriteFile(filepath.Join(dir, "pkg", "sizes.py"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// pluginDir holds the test plugin under each mode name.
func pluginDir(t *testing.T, modes ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, m := range modes {
		if err := os.Symlink(testPlugin, filepath.Join(dir, supervise.PluginPrefix+m)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// server is a running ramabana-mcp under test.
type server struct {
	cmd     *exec.Cmd
	stderr  *proctest.Output
	session *mcp.ClientSession
	stdout  *proctest.Output // every byte the server wrote to stdout (stdio only)
	// progress gets the progress notifications of the session's calls
	// (stdio only); those that find it full are dropped.
	progress chan *mcp.ProgressNotificationParams
}

// logged says whether the server's log holds want, waiting for it: a
// line logged before an answer on stdout comes through another pipe,
// which the test reads on its own, maybe after the answer.
func (s *server) logged(want string) bool {
	return proctest.Await(func() bool { return strings.Contains(s.stderr.String(), want) })
}

// baseArgs are every test server's flags, then the test's own (a later
// flag wins). Plugins get the suite's patience to start, and the first
// tools/list waits as long for them, so a loaded machine slows the tests
// down instead of leaving tools out of the list.
func baseArgs(t *testing.T, root string, args ...string) []string {
	patience := proctest.Patience.String()
	return append([]string{"--root", root, "--cfg", t.TempDir(), "--log-level", "debug",
		"--start-timeout", patience, "--upstream-wait", patience}, args...)
}

// startStdio starts the binary and connects over its stdin and stdout,
// recording everything it writes to stdout.
func startStdio(t *testing.T, root string, args ...string) *server {
	t.Helper()
	return startStdioEnv(t, nil, root, args...)
}

// startStdioEnv is startStdio with extra environment variables.
func startStdioEnv(t *testing.T, env []string, root string, args ...string) *server {
	t.Helper()
	return startStdioEnvOpts(t, env, nil, root, args...)
}

// startStdioEnvOpts is startStdioEnv with the client's options (its
// progress handler is the server's).
func startStdioEnvOpts(t *testing.T, env []string, opts *mcp.ClientOptions, root string, args ...string) *server {
	t.Helper()
	cmd := exec.Command(binary, baseArgs(t, root, args...)...)
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	return startStdioCmd(t, cmd, opts)
}

// startStdioCmd starts cmd, a command line of the binary serving stdio,
// and connects a client with opts to it.
func startStdioCmd(t *testing.T, cmd *exec.Cmd, opts *mcp.ClientOptions) *server {
	t.Helper()
	s := &server{cmd: cmd, stderr: &proctest.Output{}, stdout: &proctest.Output{}, progress: make(chan *mcp.ProgressNotificationParams, 100)}
	cmd.Stderr = s.stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.stop(t) })
	tr := &mcp.IOTransport{Reader: io.NopCloser(io.TeeReader(stdout, s.stdout)), Writer: stdin}
	if opts == nil {
		opts = &mcp.ClientOptions{}
	}
	opts.ProgressNotificationHandler = func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
		select {
		case s.progress <- req.Params:
		default:
		}
	}
	s.session = connectWith(t, tr, opts)
	return s
}

// startHTTP starts the binary on an ephemeral port and returns its base URL.
func startHTTP(t *testing.T, root string, args ...string) (*server, string) {
	t.Helper()
	cmd := exec.Command(binary, baseArgs(t, root, append([]string{"--transport", "http", "--addr", "127.0.0.1:0"}, args...)...)...)
	pr, pw := io.Pipe()
	s := &server{cmd: cmd, stderr: &proctest.Output{}}
	cmd.Stderr = io.MultiWriter(s.stderr, pw)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.stop(t) })
	urlc := make(chan string, 1)
	go func() {
		re := regexp.MustCompile(`mcp=(http://\S+)/mcp`)
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				urlc <- m[1]
				break
			}
		}
		_, _ = io.Copy(io.Discard, pr)
	}()
	select {
	case u := <-urlc:
		return s, u
	case <-time.After(30 * time.Second):
		t.Fatalf("server did not listen; stderr:\n%s", s.stderr)
		return nil, ""
	}
}

func connect(t *testing.T, tr mcp.Transport) *mcp.ClientSession {
	t.Helper()
	return connectWith(t, tr, nil)
}

func connectWith(t *testing.T, tr mcp.Transport, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	// The context outlives Connect: the SSE transport's event stream is
	// bound to it.
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	c := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "0"}, opts)
	cs, err := c.Connect(ctx, tr, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// stop ends the server as a client would (closing its stdin, or SIGTERM
// for HTTP) and waits for it.
func (s *server) stop(t *testing.T) {
	if s.cmd.ProcessState != nil {
		return
	}
	if s.session != nil {
		_ = s.session.Close()
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- s.cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(proctest.Patience):
		_ = s.cmd.Process.Kill()
		<-done
		t.Errorf("server did not exit on SIGTERM; stderr:\n%s", s.stderr)
	}
}

// awaitPlugins waits until the server's children are exactly the plugin
// processes of names, `plugin serve <name>` for a bundled group and the
// test plugin installed as ramabana-plugin-<name> for the others, and
// returns their pids. A plugin runs once a call started it (a bundled
// group's, or one whose description was kept) or while it describes
// itself, and until --plugin-idle passes.
func (s *server) awaitPlugins(t *testing.T, names ...string) []int {
	t.Helper()
	var want []string
	for _, name := range names {
		if slices.Contains(host.BundledNames(), name) {
			want = append(want, filepath.Base(binary)+" plugin serve "+name)
		} else {
			want = append(want, supervise.PluginPrefix+name)
		}
	}
	slices.Sort(want)
	var kids []int
	var got []string
	if !proctest.Await(func() bool {
		kids, got = proctest.Children(s.cmd.Process.Pid), nil
		for _, pid := range kids {
			if args := proctest.Args(pid); len(args) > 0 {
				got = append(got, strings.Join(append([]string{filepath.Base(args[0])}, args[1:]...), " "))
			}
		}
		slices.Sort(got)
		return slices.Equal(got, want)
	}) {
		t.Fatalf("the server's children are %q, want its plugins %q; stderr:\n%s", got, want, s.stderr)
	}
	return kids
}

func tools(t *testing.T, cs *mcp.ClientSession) map[string]*mcp.Tool {
	t.Helper()
	out := map[string]*mcp.Tool{}
	for tool, err := range cs.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		out[tool.Name] = tool
	}
	return out
}

func call(t *testing.T, cs *mcp.ClientSession, name string, args any) (*mcp.CallToolResult, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
}

// text is a result's text parts, "" for a nil result (a call that failed
// outright), so that a test reports the failure instead of panicking.
func text(r *mcp.CallToolResult) string {
	if r == nil {
		return ""
	}
	var parts []string
	for _, c := range r.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

var writeTools = []string{"create_file", "replace_text", "edit_file"}

func TestStdioReadOnlyByDefault(t *testing.T) {
	t.Parallel()
	root := project(t)
	s := startStdio(t, root)
	ts := tools(t, s.session)
	for _, name := range []string{"view_file", "list_files"} {
		tool, ok := ts[name]
		if !ok {
			t.Fatalf("%s not listed; have %v", name, keys(ts))
		}
		if !tool.Annotations.ReadOnlyHint || *tool.Annotations.DestructiveHint {
			t.Errorf("%s annotations = %+v, want read-only, not destructive", name, tool.Annotations)
		}
		meta, _ := tool.Meta[mcpserver.MetaKey].(map[string]any)
		if meta["task"] != "completion" {
			t.Errorf("%s _meta.%s = %v, want task completion", name, mcpserver.MetaKey, tool.Meta)
		}
	}
	for _, name := range writeTools {
		if _, ok := ts[name]; ok {
			t.Errorf("write tool %s listed on a read-only server", name)
		}
		_, err := call(t, s.session, name, map[string]any{"path": "pkg/sizes.py"})
		var rpc *jsonrpc.Error
		if !errors.As(err, &rpc) || rpc.Code != jsonrpc.CodeInvalidParams || !strings.HasPrefix(rpc.Message, "Unknown tool: "+name+" (") {
			t.Errorf("call %s on a read-only server: err = %v, want invalid params saying why", name, err)
		}
		if want := "Unknown tool: create_file (a write tool: this server runs read-only; start it with --write)"; name == "create_file" && rpc != nil && rpc.Message != want {
			t.Errorf("call create_file on a read-only server: %q, want %q", rpc.Message, want)
		}
	}
	// An argument mistake is said in words.
	if res, err := call(t, s.session, "view_file", map[string]any{"path": "pkg/sizes.py", "start": 0}); err != nil || !res.IsError ||
		text(res) != `invalid arguments for view_file: "start" must be at least 1 (got 0)` {
		t.Errorf("view_file with start 0 = %v, %v", res, err)
	}

	res, err := call(t, s.session, "view_file", map[string]any{"path": "pkg/sizes.py"})
	if err != nil {
		t.Fatal(err)
	}
	first := strings.SplitN(text(res), "\n", 2)[0]
	if want := "1|" + files.LineHash("RESERVE = 16_384") + "|RESERVE = 16_384"; first != want {
		t.Errorf("view_file first line = %q, want %q", first, want)
	}

	res, err = call(t, s.session, "view_file", map[string]any{"path": "../outside.txt"})
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || !strings.Contains(text(res), "outside") {
		t.Errorf("view_file ../outside.txt = %q (isError %v), want an outside-the-roots error", text(res), res.IsError)
	}

	res, err = call(t, s.session, "view_file", map[string]any{"path": 7})
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || !strings.Contains(text(res), "invalid arguments") {
		t.Errorf("view_file with a number path = %q, want an invalid-arguments error", text(res))
	}
}

func TestStdioWriteAndExhash(t *testing.T) {
	t.Parallel()
	root := project(t)
	for name, tc := range map[string]struct {
		args []string
		want []string
		not  []string
	}{
		"write":               {args: []string{"--write"}, want: []string{"create_file", "replace_text"}, not: []string{"edit_file"}},
		"exhash, read-only":   {args: []string{"--groups", "exhash"}, not: writeTools},
		"exhash and write":    {args: []string{"--write", "--groups", "exhash"}, want: writeTools},
		"files group opt out": {args: []string{"--write", "--groups", "-files"}, not: append([]string{"view_file"}, writeTools...)},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := startStdio(t, root, tc.args...)
			ts := tools(t, s.session)
			for _, n := range tc.want {
				tool, ok := ts[n]
				if !ok {
					t.Errorf("%s not listed", n)
					continue
				}
				if tool.Annotations.ReadOnlyHint || !*tool.Annotations.DestructiveHint {
					t.Errorf("%s annotations = %+v, want destructive", n, tool.Annotations)
				}
			}
			for _, n := range tc.not {
				if _, ok := ts[n]; ok {
					t.Errorf("%s listed", n)
				}
			}
		})
	}

	s := startStdio(t, root, "--write")
	res, err := call(t, s.session, "replace_text", map[string]any{"path": "pkg/sizes.py", "old": "16_384", "new": "32_768"})
	if err != nil || res.IsError {
		t.Fatalf("replace_text: %v %q", err, text(res))
	}
	b, _ := os.ReadFile(filepath.Join(root, "pkg", "sizes.py"))
	if !strings.HasPrefix(string(b), "RESERVE = 32_768\n") {
		t.Errorf("after replace_text the file is %q", b)
	}
}

func TestStreamableHTTPAndSSE(t *testing.T) {
	t.Parallel()
	root := project(t)
	_, base := startHTTP(t, root, "--token", "s3cret")
	client := &http.Client{Transport: bearer{"s3cret"}}
	for name, tr := range map[string]mcp.Transport{
		"streamable": &mcp.StreamableClientTransport{Endpoint: base + "/mcp", HTTPClient: client},
		"sse":        &mcp.SSEClientTransport{Endpoint: base + "/sse", HTTPClient: client},
	} {
		t.Run(name, func(t *testing.T) {
			cs := connect(t, tr)
			if _, ok := tools(t, cs)["view_file"]; !ok {
				t.Fatal("view_file not listed")
			}
			res, err := call(t, cs, "view_file", map[string]any{"path": "pkg/sizes.py", "limit": 1})
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(text(res), "|RESERVE = 16_384") {
				t.Errorf("view_file = %q", text(res))
			}
		})
	}

	for name, req := range map[string]func() *http.Request{
		"no token": func() *http.Request {
			r, _ := http.NewRequest("POST", base+"/mcp", strings.NewReader(`{}`))
			return r
		},
		"wrong token": func() *http.Request {
			r, _ := http.NewRequest("POST", base+"/mcp", strings.NewReader(`{}`))
			r.Header.Set("Authorization", "Bearer nope")
			return r
		},
	} {
		resp, err := http.DefaultClient.Do(req())
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("%s: status %d, want 401", name, resp.StatusCode)
		}
	}

	// DNS-rebinding protection: a localhost server refuses a foreign Host.
	r, _ := http.NewRequest("POST", base+"/mcp", strings.NewReader(`{}`))
	r.Host = "evil.example"
	r.Header.Set("Authorization", "Bearer s3cret")
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("foreign Host header: status %d, want 403", resp.StatusCode)
	}
}

type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

func TestDroppedPluginsServeAndBadOnesAreSkipped(t *testing.T) {
	t.Parallel()
	dir := pluginDir(t, "echo", "nohandshake", "badcookie", "exits")
	// The timeout that skips nohandshake applies to every plugin, so it is
	// generous: the bundled groups must start within it on a loaded machine.
	s := startStdio(t, project(t), "--plugins", dir, "--start-timeout", (proctest.Patience / 2).String())
	ts := tools(t, s.session)
	if _, ok := ts["echo"]; !ok {
		t.Fatalf("echo not listed; stderr:\n%s", s.stderr)
	}
	if _, ok := ts["view_file"]; !ok {
		t.Fatal("bundled view_file not listed next to the dropped plugin")
	}
	res, err := call(t, s.session, "echo", map[string]any{"text": "through the plugin"})
	if err != nil || text(res) != "through the plugin" {
		t.Fatalf("echo = %v, %v", res, err)
	}
	for _, name := range []string{"nohandshake", "badcookie", "exits"} {
		if !s.logged(`msg="plugin skipped" plugin=` + name) {
			t.Errorf("no skip line for %s in stderr:\n%s", name, s.stderr)
		}
	}
}

func TestKilledPluginRestartsAndNothingIsLeftBehind(t *testing.T) {
	t.Parallel()
	dir := pluginDir(t, "echo")
	s := startStdio(t, project(t), "--plugins", dir)
	pidOf := func() int {
		res, err := call(t, s.session, "pid", map[string]any{})
		if err != nil || res.IsError {
			t.Fatalf("pid: %v %q", err, text(res))
		}
		pid, _ := strconv.Atoi(text(res))
		return pid
	}
	pid := pidOf()

	errc := make(chan *mcp.CallToolResult, 1)
	go func() {
		params := &mcp.CallToolParams{Name: "slow", Arguments: map[string]any{"seconds": 60}}
		params.SetProgressToken("slow-1")
		res, err := s.session.CallTool(context.Background(), params)
		if err != nil {
			res = &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "protocol error: " + err.Error()}}}
		}
		errc <- res
	}()
	// The slow tool reports progress as it starts: the call is in the plugin.
	select {
	case <-s.progress:
	case <-time.After(proctest.Patience):
		t.Fatalf("no progress from the slow call; stderr:\n%s", s.stderr)
	}
	if err := proctest.Kill(pid); err != nil {
		t.Fatal(err)
	}
	select {
	case res := <-errc:
		if !res.IsError || !strings.Contains(text(res), `group "echo-extra"`) {
			t.Fatalf("in-flight call = %q (isError %v), want a tool error naming the group", text(res), res.IsError)
		}
	case <-time.After(proctest.Patience):
		t.Fatal("in-flight call did not return after the plugin was killed")
	}
	newPid := pidOf()
	if newPid == pid {
		t.Fatal("plugin was not restarted")
	}
	plugins := s.awaitPlugins(t, "echo")
	if !slices.Contains(plugins, newPid) {
		t.Fatalf("the restarted plugin %d is not among the server's plugins %v", newPid, plugins)
	}
	s.stop(t)
	for _, p := range append(plugins, pid) {
		if proctest.Alive(p) {
			t.Errorf("process %d still alive after the host exited", p)
		}
	}
}

func TestHostKilledTakesPluginsWithIt(t *testing.T) {
	t.Parallel()
	s := startStdio(t, project(t), "--plugins", pluginDir(t, "echo"))
	// A bundled group's process starts at its first call.
	if _, err := call(t, s.session, "view_file", map[string]any{"path": "pkg/sizes.py"}); err != nil {
		t.Fatal(err)
	}
	var kids []proctest.Proc // with their start times: a pid may be reused once it ends
	for _, pid := range s.awaitPlugins(t, "files", "echo") {
		kids = append(kids, proctest.Find(pid))
	}
	_ = s.cmd.Process.Kill()
	_ = s.cmd.Wait()
	alive := func() []int {
		var out []int
		for _, p := range kids {
			if p.Alive() {
				out = append(out, p.Pid)
			}
		}
		return out
	}
	if !proctest.Await(func() bool { return len(alive()) == 0 }) {
		t.Errorf("plugins %v outlived their killed host by %s", alive(), proctest.Patience)
	}
}

func TestStdoutCarriesOnlyJSONRPC(t *testing.T) {
	t.Parallel()
	s := startStdio(t, project(t), "--plugins", pluginDir(t, "echo"))
	res, err := call(t, s.session, "noisy", map[string]any{})
	if err != nil || text(res) != "quiet" {
		t.Fatalf("noisy = %v, %v", res, err)
	}
	if _, err := call(t, s.session, "view_file", map[string]any{"path": "pkg/sizes.py"}); err != nil {
		t.Fatal(err)
	}
	s.stop(t)
	out := s.stdout.String()
	if out == "" {
		t.Fatal("no stdout recorded")
	}
	for _, line := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		var msg struct {
			JSONRPC string `json:"jsonrpc"`
		}
		if err := json.Unmarshal([]byte(line), &msg); err != nil || msg.JSONRPC != "2.0" {
			t.Errorf("stdout line is not JSON-RPC: %q", line)
		}
	}
	if !strings.Contains(s.stderr.String(), "noise on fd 1") {
		t.Errorf("the plugin's stdout noise was not logged to stderr:\n%s", s.stderr)
	}
}

func TestProgressAndCancellationPassThrough(t *testing.T) {
	t.Parallel()
	s := startStdio(t, project(t), "--plugins", pluginDir(t, "echo"))
	cs := s.session
	if !strings.Contains(cs.InitializeResult().Instructions, "lineno|hash|content") {
		t.Errorf("instructions = %q", cs.InitializeResult().Instructions)
	}

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		params := &mcp.CallToolParams{Name: "slow", Arguments: map[string]any{"seconds": 60}}
		params.SetProgressToken("tok-1")
		_, err := cs.CallTool(ctx, params)
		done <- err
	}()
	select {
	case p := <-s.progress:
		if p.ProgressToken != "tok-1" || p.Message != "working" {
			t.Errorf("progress = %+v", p)
		}
	case <-time.After(proctest.Patience):
		t.Fatal("no progress notification")
	}
	cancel()
	select {
	case <-done:
	case <-time.After(proctest.Patience):
		t.Fatal("cancelled call did not return")
	}
	if !s.logged("slow: cancelled") {
		t.Errorf("the plugin never saw the cancellation; stderr:\n%s", s.stderr)
	}
	if res, err := call(t, cs, "echo", map[string]any{"text": "still here"}); err != nil || text(res) != "still here" {
		t.Errorf("echo after a cancelled call = %v, %v", res, err)
	}
}

func TestHotReloadThroughMCP(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	changed := make(chan struct{}, 10)
	s := &server{stderr: &proctest.Output{}}
	s.cmd = exec.Command(binary, baseArgs(t, project(t), "--plugins", dir)...)
	s.cmd.Stderr = s.stderr
	t.Cleanup(func() { s.stop(t) })
	c := mcp.NewClient(&mcp.Implementation{Name: "e2e"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			select {
			case changed <- struct{}{}:
			default: // a full channel has news enough; never block the client
			}
		},
	})
	cs, err := c.Connect(context.Background(), &mcp.CommandTransport{Command: s.cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	s.session = cs
	// wait waits for a tools/list_changed sent after the last drain and for
	// the list to show echo as listed: one change sends several
	// notifications.
	wait := func(what string, listed bool) {
		t.Helper()
		isListed := func() bool { _, ok := tools(t, cs)["echo"]; return ok == listed }
		if ok, notified := proctest.AwaitSignal(changed, isListed); !ok {
			t.Fatalf("after %s: notified %v, echo listed = %v; stderr:\n%s", what, notified, !listed, s.stderr)
		}
	}
	bin := filepath.Join(dir, supervise.PluginPrefix+"echo")
	b, err := os.ReadFile(testPlugin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".echo.part"), b, 0o755); err != nil {
		t.Fatal(err)
	}
	proctest.Drain(changed)
	if err := os.Rename(filepath.Join(dir, ".echo.part"), bin); err != nil {
		t.Fatal(err)
	}
	wait("install", true)
	if res, err := call(t, cs, "echo", map[string]any{"text": "hot"}); err != nil || text(res) != "hot" {
		t.Fatalf("echo after install = %v, %v", res, err)
	}
	proctest.Drain(changed)
	if err := os.Remove(bin); err != nil {
		t.Fatal(err)
	}
	wait("remove", false)
}

func TestLegacyAndOptInGroupsThroughMCP(t *testing.T) {
	t.Parallel()
	dir := pluginDir(t, "legacy", "optin")
	ts := tools(t, startStdio(t, project(t), "--plugins", dir).session)
	old, ok := ts["old_echo"]
	if !ok {
		t.Fatal("legacy tool not listed on a server without an agent")
	}
	if diff := old.Meta["deprecated"]; fmt.Sprint(diff) != "map[replaced_by:echo]" {
		t.Errorf("legacy tool _meta.deprecated = %v, want replaced_by echo", diff)
	}
	if _, ok := ts["optin_echo"]; ok {
		t.Error("opt-in tool listed without --groups")
	}
	ts = tools(t, startStdio(t, project(t), "--plugins", dir, "--groups", "optin").session)
	if _, ok := ts["optin_echo"]; !ok {
		t.Error("opt-in tool not listed with --groups optin")
	}
}

func TestVersion(t *testing.T) {
	t.Parallel()
	out, err := exec.Command(binary, "--version").Output()
	if err != nil || !strings.HasPrefix(string(out), "ramabana-mcp ") || !strings.Contains(string(out), "protocol 1") {
		t.Errorf("--version = %q, %v", out, err)
	}
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestTamperedInstalledPluginIsRefusedAtLaunch(t *testing.T) {
	t.Parallel()
	cfg := t.TempDir()
	src := filepath.Join(pluginDir(t, "echo"), supervise.PluginPrefix+"echo")
	if out, err := exec.Command(binary, "plugin", "install", src, "--cfg", cfg).CombinedOutput(); err != nil {
		t.Fatalf("plugin install: %v\n%s", err, out)
	}
	installed := filepath.Join(cfg, "plugins", supervise.PluginPrefix+"echo")
	s := startStdio(t, project(t), "--cfg", cfg)
	if _, ok := tools(t, s.session)["echo"]; !ok {
		t.Fatalf("installed plugin not served; stderr:\n%s", s.stderr)
	}
	s.stop(t)

	f, err := os.OpenFile(installed, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = f.Write([]byte{0})
	_ = f.Close()
	s = startStdio(t, project(t), "--cfg", cfg)
	if _, ok := tools(t, s.session)["echo"]; ok {
		t.Error("a plugin modified after install was served")
	}
	if !s.logged("modified after install") {
		t.Errorf("no clear refusal in stderr:\n%s", s.stderr)
	}
}

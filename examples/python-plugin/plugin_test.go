// Package pythonplugin_test checks the Python example plugin, written with
// the kit in sdk/python: built with build.sh into one file, spoken to over
// real gRPC as the host would, then served by the real ramabana-mcp binary
// to a go-sdk MCP client.
package pythonplugin_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/emptypb"

	pluginv1 "github.com/ramabana/ramabana-mcp/internal/gen/ramabana/plugin/v1"
	"github.com/ramabana/ramabana-mcp/internal/pluginrpc"
	"github.com/ramabana/ramabana-mcp/internal/proctest"
)

const python = "/usr/bin/python3"

var (
	skipReason string // why the tests cannot run here, or ""
	pluginBin  string // the built zipapp, dist/ramabana-plugin-wordcount
	hostBin    string // ramabana-mcp
)

func TestMain(m *testing.M) {
	if skipReason = missingTools(); skipReason != "" {
		os.Exit(m.Run())
	}
	dir, err := os.MkdirTemp("", "ramabana-python-plugin")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := func() int {
		defer os.RemoveAll(dir)
		// Built into a temp dir, not the source tree's dist/.
		build := exec.Command("./build.sh")
		build.Env = append(os.Environ(), "DIST_DIR="+filepath.Join(dir, "dist"))
		if out, err := build.CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "build.sh: %v\n%s", err, out)
			return 1
		}
		pluginBin = filepath.Join(dir, "dist", pluginPrefix+"wordcount")
		hostBin = filepath.Join(dir, "ramabana-mcp")
		if err := proctest.Build(hostBin, nil, "github.com/ramabana/ramabana-mcp/cmd/ramabana-mcp"); err != nil {
			fmt.Fprintf(os.Stderr, "go build ramabana-mcp: %v\n", err)
			return 1
		}
		return m.Run()
	}()
	os.Exit(code)
}

// pluginPrefix is the host's plugin file name prefix (supervise.PluginPrefix),
// spelled out: a plugin author's contract, not an import.
const pluginPrefix = "ramabana-plugin-"

// missingTools says which build prerequisite is absent, or "". The kit
// carries the contract: no protoc is needed.
func missingTools() string {
	const hint = "; install them with: apt-get install python3-grpcio python3-protobuf"
	if err := exec.Command(python, "-c", "import grpc, google.protobuf").Run(); err != nil {
		return python + " cannot import grpc and google.protobuf (" + err.Error() + ")" + hint
	}
	return ""
}

func need(t *testing.T) {
	t.Helper()
	if skipReason != "" {
		t.Skip("python plugin example: " + skipReason)
	}
}

// proc is a started process whose Wait runs in the background.
type proc struct {
	cmd  *exec.Cmd
	done chan struct{} // closed when Wait returned
}

func start(t *testing.T, cmd *exec.Cmd) *proc {
	t.Helper()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &proc{cmd: cmd, done: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		close(p.done)
	}()
	return p
}

// wait waits up to d for the process to end and returns its exit code
// (-1 when a signal ended it). ok is false when it had to be killed because
// it did not end in time. wait may be called again.
func (p *proc) wait(d time.Duration) (code int, ok bool) {
	select {
	case <-p.done:
		return p.cmd.ProcessState.ExitCode(), true
	case <-time.After(d):
		_ = p.cmd.Process.Kill()
		<-p.done
		return -1, false
	}
}

func pluginEnv(socketDir string, extra ...string) []string {
	hs := pluginrpc.Handshake()
	return append([]string{
		"PATH=" + os.Getenv("PATH"),
		hs.MagicCookieKey + "=" + hs.MagicCookieValue,
		"PLUGIN_PROTOCOL_VERSIONS=1",
		"PLUGIN_UNIX_SOCKET_DIR=" + socketDir,
		"RAMABANA_LOG_LEVEL=debug",
	}, extra...)
}

func TestRefusesToRunByHand(t *testing.T) {
	need(t)
	t.Parallel()
	for name, tc := range map[string]struct {
		env  []string
		want string
	}{
		"no cookie":      {env: []string{"PLUGIN_PROTOCOL_VERSIONS=1"}, want: "not meant to be run by hand"},
		"wrong cookie":   {env: []string{pluginrpc.Handshake().MagicCookieKey + "=nope", "PLUGIN_PROTOCOL_VERSIONS=1"}, want: "not meant to be run by hand"},
		"no protocol v1": {env: pluginEnv(t.TempDir(), "PLUGIN_PROTOCOL_VERSIONS=2,3"), want: "speaks plugin protocol versions 2,3; this plugin speaks 1"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			cmd := exec.Command(pluginBin)
			cmd.Env = tc.env
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != 1 {
				t.Fatalf("run = %v, want exit status 1; stderr: %s", err, &stderr)
			}
			if !strings.Contains(stderr.String(), tc.want) {
				t.Errorf("stderr = %q, want it to say %q", &stderr, tc.want)
			}
			if stdout.Len() > 0 {
				t.Errorf("stdout = %q, want nothing", &stdout)
			}
		})
	}
}

// pluginProc is the plugin started as the host starts it: cookie and
// socket dir in the environment, a lifeline pipe as stdin.
type pluginProc struct {
	*proc
	lifeline  io.WriteCloser
	stderr    *proctest.Output
	handshake string
	socket    string
	conn      *grpc.ClientConn
}

var handshakeRE = regexp.MustCompile(`^1\|1\|unix\|(/[^|]+)\|grpc\|$`)

func startPlugin(t *testing.T, env ...string) *pluginProc {
	t.Helper()
	socketDir := t.TempDir()
	cmd := exec.Command(pluginBin)
	p := &pluginProc{stderr: &proctest.Output{}}
	cmd.Env = pluginEnv(socketDir, env...)
	cmd.Stderr = p.stderr
	var err error
	if p.lifeline, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	// Read through an os.Pipe, not StdoutPipe: Wait must not close it
	// while the handshake line is being read.
	stdout, stdoutW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout = stdoutW
	p.proc = start(t, cmd)
	_ = stdoutW.Close()
	lines := make(chan string, 1)
	go func() {
		defer stdout.Close()
		sc := bufio.NewScanner(stdout)
		if sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
		_, _ = io.Copy(io.Discard, stdout)
	}()
	t.Cleanup(func() {
		if p.conn != nil {
			_ = p.conn.Close()
		}
		_ = p.lifeline.Close()
		if _, ok := p.wait(proctest.Patience); !ok {
			t.Errorf("plugin did not exit on stdin EOF; stderr:\n%s", p.stderr)
		}
	})
	select {
	case p.handshake = <-lines:
	case <-time.After(30 * time.Second):
		t.Fatalf("no handshake line; stderr:\n%s", p.stderr)
	}
	m := handshakeRE.FindStringSubmatch(p.handshake)
	if m == nil {
		t.Fatalf("handshake line = %q, want 1|1|unix|<socket>|grpc|; stderr:\n%s", p.handshake, p.stderr)
	}
	p.socket = m[1]
	if filepath.Dir(p.socket) != socketDir {
		t.Errorf("socket %s is not in PLUGIN_UNIX_SOCKET_DIR %s", p.socket, socketDir)
	}
	p.conn, err = grpc.NewClient("unix:"+p.socket, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return c
}

func TestHealth(t *testing.T) {
	need(t)
	t.Parallel()
	p := startPlugin(t)
	client := healthpb.NewHealthClient(p.conn)
	for name, tc := range map[string]struct {
		service string
		want    codes.Code
	}{
		"plugin":  {service: "plugin", want: codes.OK},
		"server":  {service: "", want: codes.OK},
		"unknown": {service: "ramabana.plugin.v1.Nope", want: codes.NotFound},
	} {
		t.Run(name, func(t *testing.T) {
			res, err := client.Check(ctx(t), &healthpb.HealthCheckRequest{Service: tc.service})
			if status.Code(err) != tc.want {
				t.Fatalf("Check(%q) = %v, want %v", tc.service, err, tc.want)
			}
			if err == nil && res.GetStatus() != healthpb.HealthCheckResponse_SERVING {
				t.Errorf("Check(%q) = %v, want SERVING", tc.service, res.GetStatus())
			}
		})
	}
}

// TestAnswersOnlyItsHost: started with a token, the plugin refuses every
// RPC that does not carry it (a program of the same user that finds the
// socket), and answers the ones that do.
func TestAnswersOnlyItsHost(t *testing.T) {
	need(t)
	t.Parallel()
	p := startPlugin(t, pluginrpc.TokenEnv+"=s3cret")
	_, err := healthpb.NewHealthClient(p.conn).Check(ctx(t), &healthpb.HealthCheckRequest{Service: "plugin"})
	if status.Code(err) != codes.Unauthenticated {
		t.Errorf("health check without the token = %v, want Unauthenticated", err)
	}
	_, err = pluginv1.NewToolGroupServiceClient(p.conn).Describe(ctx(t), &pluginv1.DescribeRequest{Host: &pluginv1.HostContext{Roots: []string{"/"}, Write: true}})
	if status.Code(err) != codes.Unauthenticated {
		t.Errorf("Describe without the token = %v, want Unauthenticated", err)
	}
	stream, err := pluginv1.NewToolGroupServiceClient(p.conn).Call(ctx(t), &pluginv1.CallRequest{Tool: "count_words"})
	if err == nil {
		_, err = stream.Recv()
	}
	if status.Code(err) != codes.Unauthenticated {
		t.Errorf("Call without the token = %v, want Unauthenticated", err)
	}
	good, err := grpc.NewClient("unix:"+p.socket, grpc.WithTransportCredentials(insecure.NewCredentials()), pluginrpc.TokenDialOption("s3cret"))
	if err != nil {
		t.Fatal(err)
	}
	defer good.Close()
	if _, err := healthpb.NewHealthClient(good).Check(ctx(t), &healthpb.HealthCheckRequest{Service: "plugin"}); err != nil {
		t.Errorf("health check with the token: %v", err)
	}
	if _, err := pluginv1.NewToolGroupServiceClient(good).Describe(ctx(t), &pluginv1.DescribeRequest{Host: &pluginv1.HostContext{}}); err != nil {
		t.Errorf("Describe with the token: %v", err)
	}
}

func TestDescribe(t *testing.T) {
	need(t)
	t.Parallel()
	p := startPlugin(t)
	res, err := pluginv1.NewToolGroupServiceClient(p.conn).Describe(ctx(t), &pluginv1.DescribeRequest{
		Host: &pluginv1.HostContext{Roots: []string{t.TempDir()}, HostVersion: "test"},
	})
	if err != nil {
		t.Fatalf("Describe: %v; stderr:\n%s", err, p.stderr)
	}
	type tool struct {
		Name, Title string
		Kind        pluginv1.ToolKind
		Task        pluginv1.ToolTask
		Schema      map[string]any
		HasOutput   bool
	}
	type group struct {
		Name  string
		Mode  pluginv1.GroupMode
		Tools []tool
	}
	got := struct {
		Name, Version string
		Groups        []group
	}{Name: res.GetName(), Version: res.GetVersion()}
	for _, g := range res.GetGroups() {
		gg := group{Name: g.GetName(), Mode: g.GetMode()}
		for _, s := range g.GetTools() {
			var schema map[string]any
			if err := json.Unmarshal(s.GetInputSchema(), &schema); err != nil {
				t.Errorf("%s input schema: %v", s.GetName(), err)
			}
			if s.GetDescription() == "" {
				t.Errorf("%s has no description", s.GetName())
			}
			// Only the schema's shape is pinned here; descriptions may change.
			for _, prop := range schema["properties"].(map[string]any) {
				delete(prop.(map[string]any), "description")
			}
			gg.Tools = append(gg.Tools, tool{Name: s.GetName(), Title: s.GetTitle(), Kind: s.GetKind(), Task: s.GetTask(), Schema: schema, HasOutput: len(s.GetOutputSchema()) > 0})
		}
		got.Groups = append(got.Groups, gg)
	}
	textProp := map[string]any{"type": "string"}
	want := struct {
		Name, Version string
		Groups        []group
	}{Name: "wordcount", Version: "0.1.0", Groups: []group{{
		Name: "wordcount", Mode: pluginv1.GroupMode_GROUP_MODE_DEFAULT,
		Tools: []tool{
			{
				Name: "count_words", Title: "Count words and lines",
				Kind: pluginv1.ToolKind_TOOL_KIND_READ, Task: pluginv1.ToolTask_TOOL_TASK_COMPLETION, HasOutput: true,
				Schema: map[string]any{"type": "object", "properties": map[string]any{"text": textProp}, "required": []any{"text"}, "additionalProperties": false},
			},
			{
				Name: "top_words", Title: "Most frequent words",
				Kind: pluginv1.ToolKind_TOOL_KIND_READ, Task: pluginv1.ToolTask_TOOL_TASK_COMPLETION,
				Schema: map[string]any{"type": "object", "properties": map[string]any{
					"text": textProp,
					"n":    map[string]any{"type": "integer", "minimum": 1.0, "maximum": 100.0, "default": 10.0},
				}, "required": []any{"text"}, "additionalProperties": false},
			},
		},
	}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Describe (-want +got):\n%s", diff)
	}
}

// callResult is what one Call stream carried.
type callResult struct {
	Progress   []string // "progress/total message"
	Text       string
	IsError    bool
	Structured string
}

func callTool(t *testing.T, c pluginv1.ToolGroupServiceClient, tool, args string) (callResult, error) {
	t.Helper()
	stream, err := c.Call(ctx(t), &pluginv1.CallRequest{Tool: tool, Arguments: []byte(args), CallId: "t1"})
	if err != nil {
		return callResult{}, err
	}
	var out callResult
	results := 0
	for {
		ev, err := stream.Recv()
		if err == io.EOF {
			break
		}
		if err != nil {
			return out, err
		}
		switch e := ev.GetEvent().(type) {
		case *pluginv1.CallResponse_Progress:
			out.Progress = append(out.Progress, fmt.Sprintf("%g/%g %s", e.Progress.GetProgress(), e.Progress.GetTotal(), e.Progress.GetMessage()))
		case *pluginv1.CallResponse_Result:
			results++
			for _, c := range e.Result.GetContent() {
				out.Text += c.GetText()
			}
			out.IsError, out.Structured = e.Result.GetIsError(), string(e.Result.GetStructured())
		}
	}
	if results != 1 {
		t.Errorf("%s sent %d results, want exactly 1", tool, results)
	}
	return out, nil
}

func TestCall(t *testing.T) {
	need(t)
	t.Parallel()
	p := startPlugin(t)
	client := pluginv1.NewToolGroupServiceClient(p.conn)
	const sample = `The cat and the hat. THE end; don't stop, don't.`
	counted := func(n int) []string { return []string{fmt.Sprintf("1/2 counted %d words", n)} }
	for name, tc := range map[string]struct {
		tool, args string
		want       callResult
	}{
		"count words and lines": {tool: "count_words", args: `{"text": "one two  three\nfour\n"}`,
			want: callResult{Text: "4 words, 2 lines", Structured: `{"words": 4, "lines": 2}`}},
		"count empty":           {tool: "count_words", args: `{"text": ""}`, want: callResult{Text: "0 words, 0 lines", Structured: `{"words": 0, "lines": 0}`}},
		"count one, no newline": {tool: "count_words", args: `{"text": "word"}`, want: callResult{Text: "1 word, 1 line", Structured: `{"words": 1, "lines": 1}`}},
		"count blank lines":     {tool: "count_words", args: `{"text": "a\n\n"}`, want: callResult{Text: "1 word, 2 lines", Structured: `{"words": 1, "lines": 2}`}},
		"count unicode":         {tool: "count_words", args: `{"text": "héllo wörld\tçà"}`, want: callResult{Text: "3 words, 1 line", Structured: `{"words": 3, "lines": 1}`}},
		"top two": {tool: "top_words", args: fmt.Sprintf(`{"text": %q, "n": 2}`, sample), want: callResult{
			Progress:   counted(10),
			Text:       "10 words, 7 distinct; the 2 most frequent:\nthe: 3\ndon't: 2",
			Structured: `{"total": 10, "distinct": 7, "top": [{"word": "the", "count": 3}, {"word": "don't", "count": 2}]}`,
		}},
		"top ties alphabetical, default n": {tool: "top_words", args: `{"text": "b a_c a b"}`, want: callResult{
			Progress:   counted(5),
			Text:       "5 words, 3 distinct; the 3 most frequent:\na: 2\nb: 2\nc: 1",
			Structured: `{"total": 5, "distinct": 3, "top": [{"word": "a", "count": 2}, {"word": "b", "count": 2}, {"word": "c", "count": 1}]}`,
		}},
		"top n as 1.0": {tool: "top_words", args: `{"text": "x y x", "n": 1.0}`, want: callResult{
			Progress: []string{"1/2 counted 3 words"}, Text: "3 words, 2 distinct; the 1 most frequent:\nx: 2",
			Structured: `{"total": 3, "distinct": 2, "top": [{"word": "x", "count": 2}]}`,
		}},
		"top no words": {tool: "top_words", args: `{"text": " -- ... "}`, want: callResult{
			Progress: counted(0), Text: "no words in text", Structured: `{"total": 0, "distinct": 0, "top": []}`,
		}},
		"missing text":     {tool: "count_words", args: `{}`, want: callResult{IsError: true, Text: `count_words needs "text", a string`}},
		"text not string":  {tool: "count_words", args: `{"text": 7}`, want: callResult{IsError: true, Text: `"text" must be a string; got a number`}},
		"unknown argument": {tool: "count_words", args: `{"text": "a", "extra": 1}`, want: callResult{IsError: true, Text: `unknown argument "extra": count_words takes text`}},
		"n zero":           {tool: "top_words", args: `{"text": "a", "n": 0}`, want: callResult{IsError: true, Text: `"n" must be an integer from 1 to 100; got 0`}},
		"n fraction":       {tool: "top_words", args: `{"text": "a", "n": 1.5}`, want: callResult{IsError: true, Text: `"n" must be an integer from 1 to 100; got 1.5`}},
		"n boolean":        {tool: "top_words", args: `{"text": "a", "n": true}`, want: callResult{IsError: true, Text: `"n" must be an integer from 1 to 100; got true`}},
		"not an object":    {tool: "count_words", args: `[1]`, want: callResult{IsError: true, Text: "arguments must be a JSON object; got an array"}},
		"empty arguments":  {tool: "count_words", args: ``, want: callResult{IsError: true, Text: `count_words needs "text", a string`}},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, err := callTool(t, client, tc.tool, tc.args)
			if err != nil {
				t.Fatalf("Call: %v; stderr:\n%s", err, p.stderr)
			}
			// Structured JSON compared as values, not bytes.
			got.Structured, tc.want.Structured = normJSON(t, got.Structured), normJSON(t, tc.want.Structured)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Call %s %s (-want +got):\n%s", tc.tool, tc.args, diff)
			}
		})
	}
	t.Run("bad JSON", func(t *testing.T) {
		t.Parallel()
		got, err := callTool(t, client, "count_words", `{"text":`)
		if err != nil || !got.IsError || !strings.HasPrefix(got.Text, "arguments are not valid JSON") {
			t.Errorf("Call with bad JSON = %+v, %v; want an is_error result about JSON", got, err)
		}
	})
	t.Run("unknown tool", func(t *testing.T) {
		t.Parallel()
		_, err := callTool(t, client, "nope", `{}`)
		if status.Code(err) != codes.NotFound || !strings.Contains(err.Error(), "nope") {
			t.Errorf("Call nope = %v, want NotFound naming the tool", err)
		}
	})
}

func normJSON(t *testing.T, s string) string {
	t.Helper()
	if s == "" {
		return ""
	}
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("structured %q: %v", s, err)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// TestEnds checks each way the host ends a plugin: the plugin exits with
// status 0 and removes its socket.
func TestEnds(t *testing.T) {
	need(t)
	t.Parallel()
	for name, end := range map[string]func(t *testing.T, p *pluginProc){
		"stdin EOF": func(t *testing.T, p *pluginProc) { _ = p.lifeline.Close() },
		"Shutdown": func(t *testing.T, p *pluginProc) {
			// go-plugin's GRPCController; plugin.Empty has the wire form of
			// google.protobuf.Empty.
			if err := p.conn.Invoke(ctx(t), "/plugin.GRPCController/Shutdown", &emptypb.Empty{}, &emptypb.Empty{}); err != nil {
				t.Errorf("Shutdown: %v", err)
			}
		},
		"SIGTERM": func(t *testing.T, p *pluginProc) { _ = p.cmd.Process.Signal(syscall.SIGTERM) },
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			p := startPlugin(t)
			// A served call first: the plugin is up, not just listening.
			if _, err := healthpb.NewHealthClient(p.conn).Check(ctx(t), &healthpb.HealthCheckRequest{Service: "plugin"}); err != nil {
				t.Fatal(err)
			}
			end(t, p)
			if code, ok := p.wait(proctest.Patience); !ok || code != 0 {
				t.Errorf("exit code %d (ended by itself: %v), want 0; stderr:\n%s", code, ok, p.stderr)
			}
			if _, err := os.Stat(p.socket); !os.IsNotExist(err) {
				t.Errorf("socket %s left behind (stat: %v)", p.socket, err)
			}
		})
	}
}

// server is a running ramabana-mcp driven over stdio.
type server struct {
	*proc
	stdin   io.WriteCloser
	stderr  *proctest.Output
	session *mcp.ClientSession
	mu      sync.Mutex
	prog    []string
}

func startHost(t *testing.T, args ...string) *server {
	t.Helper()
	args = append([]string{"--root", t.TempDir(), "--log-level", "debug"}, args...)
	cmd := exec.Command(hostBin, args...)
	s := &server{stderr: &proctest.Output{}}
	cmd.Env = append(os.Environ(), "RAMABANA_PLUGIN_PATH=")
	cmd.Stderr = s.stderr
	var err error
	if s.stdin, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	s.proc = start(t, cmd)
	t.Cleanup(func() {
		if s.session != nil {
			_ = s.session.Close()
		}
		_ = s.stdin.Close()
		if _, ok := s.wait(proctest.Patience); !ok {
			t.Errorf("ramabana-mcp did not exit when its stdin closed; stderr:\n%s", s.stderr)
		}
	})
	c := mcp.NewClient(&mcp.Implementation{Name: "python-plugin-test", Version: "0"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			s.mu.Lock()
			defer s.mu.Unlock()
			s.prog = append(s.prog, fmt.Sprintf("%v %g/%g %s", r.Params.ProgressToken, r.Params.Progress, r.Params.Total, r.Params.Message))
		},
	})
	cctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	s.session, err = c.Connect(cctx, &mcp.IOTransport{Reader: stdout, Writer: s.stdin}, nil)
	if err != nil {
		t.Fatalf("connect: %v; stderr:\n%s", err, s.stderr)
	}
	return s
}

func (s *server) progress() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.prog...)
}

func (s *server) call(t *testing.T, name string, args map[string]any, progressToken any) *mcp.CallToolResult {
	t.Helper()
	params := &mcp.CallToolParams{Name: name, Arguments: args}
	if progressToken != nil {
		params.SetProgressToken(progressToken)
	}
	res, err := s.session.CallTool(ctx(t), params)
	if err != nil {
		t.Fatalf("call %s: %v; stderr:\n%s", name, err, s.stderr)
	}
	return res
}

func resultText(r *mcp.CallToolResult) string {
	var parts []string
	for _, c := range r.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// pluginPid is the pid of the host's child running the Python plugin.
func (s *server) pluginPid(t *testing.T) int {
	t.Helper()
	for _, pid := range proctest.Children(s.cmd.Process.Pid) {
		cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if bytes.Contains(cmdline, []byte(pluginPrefix+"wordcount")) {
			return pid
		}
	}
	t.Fatalf("no child of ramabana-mcp runs %swordcount; stderr:\n%s", pluginPrefix, s.stderr)
	return 0
}

// pluginDir holds a copy of the built plugin, alone: the zipapp must run
// without the example's sources next to it.
func pluginDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	b, err := os.ReadFile(pluginBin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, pluginPrefix+"wordcount"), b, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// checkServed checks the plugin's tools as an MCP client sees them, and a
// call of each.
func checkServed(t *testing.T, s *server) {
	t.Helper()
	tools := map[string]*mcp.Tool{}
	for tool, err := range s.session.Tools(ctx(t), nil) {
		if err != nil {
			t.Fatal(err)
		}
		tools[tool.Name] = tool
	}
	for _, name := range []string{"count_words", "top_words"} {
		tool, ok := tools[name]
		if !ok {
			t.Fatalf("%s not listed; stderr:\n%s", name, s.stderr)
		}
		if a := tool.Annotations; a == nil || !a.ReadOnlyHint || a.DestructiveHint == nil || *a.DestructiveHint {
			t.Errorf("%s annotations = %+v, want read-only, not destructive", name, a)
		}
		if meta, _ := tool.Meta["mcp_server"].(map[string]any); meta["task"] != "completion" {
			t.Errorf("%s _meta = %v, want mcp_server.task completion", name, tool.Meta)
		}
	}
	res := s.call(t, "count_words", map[string]any{"text": "to be or not\nto be"}, nil)
	if res.IsError || resultText(res) != "6 words, 2 lines" {
		t.Errorf("count_words = %q (isError %v), want \"6 words, 2 lines\"", resultText(res), res.IsError)
	}
	if diff := cmp.Diff(map[string]any{"words": 6.0, "lines": 2.0}, res.StructuredContent); diff != "" {
		t.Errorf("count_words structured (-want +got):\n%s", diff)
	}
}

func TestServedByTheHost(t *testing.T) {
	need(t)
	t.Parallel()
	s := startHost(t, "--cfg", t.TempDir(), "--plugins", pluginDir(t))
	checkServed(t, s)

	res := s.call(t, "top_words", map[string]any{"text": "to be or not to be", "n": 2}, "tok")
	if want := "6 words, 4 distinct; the 2 most frequent:\nbe: 2\nto: 2"; res.IsError || resultText(res) != want {
		t.Errorf("top_words = %q (isError %v), want %q", resultText(res), res.IsError, want)
	}
	proctest.Await(func() bool { return len(s.progress()) > 0 })
	if diff := cmp.Diff([]string{"tok 1/2 counted 6 words"}, s.progress()); diff != "" {
		t.Errorf("progress notifications (-want +got):\n%s", diff)
	}

	// The host checks arguments against the plugin's schema first.
	res = s.call(t, "top_words", map[string]any{"text": "a", "n": 0}, nil)
	if !res.IsError || !strings.Contains(resultText(res), "invalid arguments") {
		t.Errorf("top_words n=0 = %q (isError %v), want the host's invalid-arguments error", resultText(res), res.IsError)
	}
}

// TestHostEndTakesThePluginWithIt: however the host ends, the Python
// process ends too (its lifeline pipe reaches EOF, or the host shuts it down).
func TestHostEndTakesThePluginWithIt(t *testing.T) {
	need(t)
	t.Parallel()
	for name, end := range map[string]func(s *server){
		"host exits": func(s *server) {
			_ = s.session.Close()
			_ = s.stdin.Close()
		},
		"host killed": func(s *server) {
			_ = s.cmd.Process.Kill()
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := startHost(t, "--cfg", t.TempDir(), "--plugins", pluginDir(t))
			if res := s.call(t, "count_words", map[string]any{"text": "x"}, nil); res.IsError {
				t.Fatalf("count_words: %q", resultText(res))
			}
			plugin := proctest.Find(s.pluginPid(t)) // its start time too: the pid may be reused once it ends
			end(s)
			s.wait(proctest.Patience)
			if !proctest.Await(func() bool { return !plugin.Alive() }) {
				t.Errorf("python plugin %d outlived its host", plugin.Pid)
			}
		})
	}
}

// TestInstallAndRemove installs the single-file plugin with `ramabana-mcp
// plugin install`, serves it from the config dir, then removes it.
func TestInstallAndRemove(t *testing.T) {
	need(t)
	t.Parallel()
	cfg := t.TempDir()
	home := t.TempDir() // so a command ignoring --cfg cannot touch the real one
	run := func(args ...string) (string, error) {
		cmd := exec.Command(hostBin, args...)
		cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+home, "RAMABANA_PLUGIN_PATH=")
		out, err := cmd.CombinedOutput()
		return string(out), err
	}

	// TODO: drop this fallback once `plugin install` has landed: a binary
	// without it does not mention install in its answer to -h.
	if help, _ := run("plugin", "install", "-h"); !strings.Contains(help, "install") {
		t.Skipf("`ramabana-mcp plugin install` is not implemented yet (`plugin install -h` answered: %s)", strings.TrimSpace(help))
	}
	out, err := run("plugin", "install", "--cfg", cfg, pluginBin)
	if err != nil {
		t.Fatalf("plugin install: %v\n%s", err, out)
	}
	installed := filepath.Join(cfg, "plugins", pluginPrefix+"wordcount")
	got, err := os.ReadFile(installed)
	if err != nil {
		t.Fatalf("installed plugin: %v", err)
	}
	if want, _ := os.ReadFile(pluginBin); !bytes.Equal(got, want) {
		t.Errorf("%s differs from %s", installed, pluginBin)
	}
	if out, err := run("plugin", "list", "--cfg", cfg); err != nil || !strings.Contains(out, "wordcount") {
		t.Errorf("plugin list after install = %v\n%s\nwant wordcount listed", err, out)
	}

	s := startHost(t, "--cfg", cfg)
	checkServed(t, s)
	_ = s.session.Close()
	_ = s.stdin.Close()
	if code, ok := s.wait(proctest.Patience); !ok || code != 0 {
		t.Errorf("ramabana-mcp did not exit cleanly; stderr:\n%s", s.stderr)
	}

	if out, err := run("plugin", "remove", "--cfg", cfg, "wordcount"); err != nil {
		t.Fatalf("plugin remove: %v\n%s", err, out)
	}
	if _, err := os.Stat(installed); !os.IsNotExist(err) {
		t.Errorf("%s still there after remove (stat: %v)", installed, err)
	}
	if out, err := run("plugin", "list", "--cfg", cfg); err != nil || strings.Contains(out, "wordcount") {
		t.Errorf("plugin list after remove = %v\n%s\nwant no wordcount", err, out)
	}
}

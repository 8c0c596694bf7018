package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ramabana/ramabana-mcp/internal/proctest"
)

// roundRobin is a reverse proxy that sends each request to the next of
// its backends, and notes which backend took each JSON-RPC request.
type roundRobin struct {
	backends []*url.URL

	mu    sync.Mutex
	next  int
	taken []taken
}

// taken is one request as the proxy sent it on.
type taken struct {
	backend int
	method  string // the JSON-RPC method, or the HTTP method when there is none
	tool    string // a tools/call's tool
}

func (rr *roundRobin) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var msg struct {
		Method string `json:"method"`
		Params struct {
			Name string `json:"name"`
		} `json:"params"`
	}
	_ = json.Unmarshal(body, &msg)
	if msg.Method == "" {
		msg.Method = r.Method
	}
	rr.mu.Lock()
	i := rr.next
	rr.next = (rr.next + 1) % len(rr.backends)
	rr.taken = append(rr.taken, taken{backend: i, method: msg.Method, tool: msg.Params.Name})
	rr.mu.Unlock()
	target := rr.backends[i]
	proxy := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(target)
			pr.Out.Host = target.Host // the replica's own loopback name, for its DNS-rebinding check
		},
		FlushInterval: -1, // event streams pass at once
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	proxy.ServeHTTP(w, r)
}

// calls are the tools/calls the proxy sent on, in order.
func (rr *roundRobin) calls() []taken {
	rr.mu.Lock()
	defer rr.mu.Unlock()
	var out []taken
	for _, tk := range rr.taken {
		if tk.method == "tools/call" {
			out = append(out, tk)
		}
	}
	return out
}

// Three --stateless replicas on one shared root behind a round-robin
// proxy serve one client session: its list, reads and a write each land
// on another replica, and a write made through one is read through
// another. What needs a lasting session is refused in words that name
// --stateless.
func TestStatelessReplicasBehindARoundRobinProxy(t *testing.T) {
	t.Parallel()
	root := project(t)
	cfg := mcpConfig(t, map[string]any{
		"later": upstreamServer("ok", map[string]any{"lazy": true}),
	})
	plugins := pluginDir(t, "echo")
	rr := &roundRobin{}
	var replicas []*server
	for range 3 {
		s, base := startHTTP(t, root, "--stateless", "--write", "--token", "s3cret", "--mcp-config", cfg, "--plugins", plugins)
		replicas = append(replicas, s)
		u, err := url.Parse(base)
		if err != nil {
			t.Fatal(err)
		}
		rr.backends = append(rr.backends, u)
	}
	proxy := httptest.NewServer(rr)
	t.Cleanup(proxy.Close)
	progress := make(chan *mcp.ProgressNotificationParams, 100)
	cs := connectWith(t, &mcp.StreamableClientTransport{Endpoint: proxy.URL + "/mcp", HTTPClient: &http.Client{Transport: bearer{"s3cret"}}}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			select {
			case progress <- req.Params:
			default:
			}
		},
	})

	listed := tools(t, cs)
	for _, name := range []string{"view_file", "list_files", "create_file", "replace_text"} {
		if _, ok := listed[name]; !ok {
			t.Fatalf("%s not listed; tools: %v", name, keys(listed))
		}
	}
	if _, ok := listed["mcp_connect"]; ok {
		t.Error("mcp_connect is listed under --stateless")
	}
	for range 2 {
		res, err := call(t, cs, "view_file", map[string]any{"path": "pkg/sizes.py", "limit": 1})
		if err != nil || res.IsError || !strings.Contains(text(res), "|RESERVE = 16_384") {
			t.Fatalf("view_file = %q, %v", text(res), err)
		}
		res, err = call(t, cs, "list_files", map[string]any{"path": "pkg"})
		if err != nil || res.IsError || !strings.Contains(text(res), "sizes.py") {
			t.Fatalf("list_files = %q, %v", text(res), err)
		}
	}
	if res, err := call(t, cs, "create_file", map[string]any{"path": "notes/plan.txt", "content": "step one\n"}); err != nil || res.IsError {
		t.Fatalf("create_file = %q, %v", text(res), err)
	}
	if res, err := call(t, cs, "replace_text", map[string]any{"path": "notes/plan.txt", "old": "step one", "new": "step two"}); err != nil || res.IsError {
		t.Fatalf("replace_text = %q, %v", text(res), err)
	}
	res, err := call(t, cs, "view_file", map[string]any{"path": "notes/plan.txt"})
	if err != nil || !strings.Contains(text(res), "|step two") {
		t.Fatalf("view_file after the write = %q, %v", text(res), err)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "notes", "plan.txt")); string(b) != "step two\n" {
		t.Errorf("notes/plan.txt = %q", b)
	}

	calls := rr.calls()
	perBackend := map[int]int{}
	for i, c := range calls {
		perBackend[c.backend]++
		if i > 0 && c.backend == calls[i-1].backend {
			t.Errorf("calls %d and %d (%s, %s) reached the same replica", i-1, i, calls[i-1].tool, c.tool)
		}
	}
	if len(perBackend) != 3 {
		t.Errorf("the calls reached replicas %v, want all three", perBackend)
	}
	n := len(calls)
	if n < 3 || calls[n-1].tool != "view_file" || calls[n-2].tool != "replace_text" || calls[n-3].tool != "create_file" ||
		calls[n-1].backend == calls[n-2].backend || calls[n-2].backend == calls[n-3].backend {
		t.Errorf("the write and its read did not each reach another replica: %+v", calls)
	}

	// Progress comes on the call's own stream; a call the client drops
	// ends (a notifications/cancelled would reach another replica).
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		params := &mcp.CallToolParams{Name: "slow", Arguments: map[string]any{"seconds": 600}}
		params.SetProgressToken("tok-1")
		_, err := cs.CallTool(ctx, params)
		done <- err
	}()
	select {
	case p := <-progress:
		if p.ProgressToken != "tok-1" || p.Message != "working" {
			t.Errorf("progress = %+v", p)
		}
	case <-time.After(proctest.Patience):
		t.Error("no progress notification")
	}
	cancel()
	select {
	case <-done:
	case <-time.After(proctest.Patience):
		t.Fatal("a dropped call did not return")
	}
	if !proctest.Await(func() bool {
		for _, s := range replicas {
			if strings.Contains(s.stderr.String(), "slow: cancelled") {
				return true
			}
		}
		return false
	}) {
		t.Error("the plugin never saw the call end")
	}

	// The probes, without the token, on every replica.
	for _, b := range rr.backends {
		if code, body := fetch(t, "GET", b.String()+"/healthz", ""); code != http.StatusOK {
			t.Errorf("%s/healthz = %d %q", b, code, body)
		}
		if !proctest.Await(func() bool { code, _ := fetch(t, "GET", b.String()+"/readyz", ""); return code == http.StatusOK }) {
			t.Errorf("%s/readyz is never 200", b)
		}
	}

	// Refused, each in words that name --stateless.
	for _, name := range []string{"mcp_connect", "later__echo"} {
		res, err := call(t, cs, name, map[string]any{"id": "later", "text": "hi"})
		if err == nil || !strings.Contains(err.Error(), "--stateless") || !strings.Contains(err.Error(), `"lazy": true`) {
			t.Errorf("%s = %q, %v; want an error naming --stateless and the lazy setting", name, text(res), err)
		}
	}
	// resources/subscribe of an older protocol, as such a client sends it.
	got := postJSONRPC(t, proxy.URL+"/mcp", "s3cret", `{"jsonrpc":"2.0","id":7,"method":"resources/subscribe","params":{"uri":"ramabana://status"}}`)
	if !strings.Contains(got, `"error"`) || !strings.Contains(got, "--stateless") {
		t.Errorf("resources/subscribe = %s, want an error naming --stateless", got)
	}
	// No stream to open or resume, no SSE session.
	for _, tc := range []struct {
		method, path string
		want         int
	}{{"GET", "/mcp", http.StatusMethodNotAllowed}, {"DELETE", "/mcp", http.StatusMethodNotAllowed}, {"GET", "/sse", http.StatusNotFound}} {
		r, _ := http.NewRequest(tc.method, proxy.URL+tc.path, nil)
		r.Header.Set("Authorization", "Bearer s3cret")
		r.Header.Set("Accept", "text/event-stream")
		resp, err := http.DefaultClient.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.want || (tc.path == "/sse" && !strings.Contains(string(b), "--stateless")) {
			t.Errorf("%s %s = %d %q, want %d", tc.method, tc.path, resp.StatusCode, b, tc.want)
		}
	}
}

// postJSONRPC posts one JSON-RPC message as a client of protocol
// 2025-11-25 would, and returns the answer's body.
func postJSONRPC(t *testing.T, endpoint, token, msg string) string {
	t.Helper()
	r, err := http.NewRequestWithContext(context.Background(), "POST", endpoint, strings.NewReader(msg))
	if err != nil {
		t.Fatal(err)
	}
	r.Header.Set("Authorization", "Bearer "+token)
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Accept", "application/json, text/event-stream")
	r.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%d %s", resp.StatusCode, b)
}

func TestStatelessNeedsStreamableHTTP(t *testing.T) {
	t.Parallel()
	for _, tr := range []string{"stdio", "sse"} {
		code, _, stderr := runBinary(t, "--transport", tr, "--stateless")
		if code != 2 || !strings.Contains(stderr, "--stateless needs --transport http") {
			t.Errorf("--transport %s --stateless: exit %d, stderr %q", tr, code, stderr)
		}
	}
	code, _, stderr := runBinary(t, "--pprof")
	if code != 2 || !strings.Contains(stderr, "--pprof needs --transport http") {
		t.Errorf("--pprof over stdio: exit %d, stderr %q", code, stderr)
	}
}

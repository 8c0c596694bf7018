package transport

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ramabana/ramabana-mcp/internal/proctest"
)

// serve runs ServeHTTP with opts on an ephemeral loopback port until the
// test ends, and returns its host:port.
func serve(t *testing.T, newServer func() *mcp.Server, opts HTTPOptions) string {
	t.Helper()
	opts.Addr = "127.0.0.1:0"
	addrc := make(chan string, 1)
	opts.Ready = func(a net.Addr) { addrc <- a.String() }
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- ServeHTTP(ctx, newServer, opts) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("ServeHTTP: %v", err)
		}
	})
	select {
	case addr := <-addrc:
		return addr
	case err := <-done:
		t.Fatalf("ServeHTTP: %v", err)
	case <-time.After(proctest.Patience):
		t.Fatal("ServeHTTP did not listen")
	}
	return ""
}

// rawConn is a TCP connection to the server that the test speaks HTTP/1.1
// on by hand, to hold it idle or stall it where a client would not.
type rawConn struct {
	net.Conn
	r *bufio.Reader
}

func dial(t *testing.T, addr string) *rawConn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return &rawConn{Conn: c, r: bufio.NewReader(c)}
}

// get sends GET path and reads the whole answer, keeping the connection.
func (c *rawConn) get(t *testing.T, path string) *http.Response {
	t.Helper()
	if _, err := fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: %s\r\n\r\n", path, c.RemoteAddr()); err != nil {
		t.Fatal(err)
	}
	_ = c.SetReadDeadline(time.Now().Add(proctest.Patience))
	resp, err := http.ReadResponse(c.r, nil)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	return resp
}

// closedByServer waits for the server to close c and reports whether it
// did (false: still open after the suite's patience).
func (c *rawConn) closedByServer() bool {
	_ = c.SetReadDeadline(time.Now().Add(proctest.Patience))
	_, err := io.Copy(io.Discard, c.r)
	var ne net.Error
	return !(errors.As(err, &ne) && ne.Timeout())
}

// isClosed reports, without waiting, whether the server has closed c.
func (c *rawConn) isClosed() bool {
	_ = c.SetReadDeadline(time.Now().Add(time.Millisecond))
	_, err := c.r.Peek(1)
	var ne net.Error
	return err != nil && !(errors.As(err, &ne) && ne.Timeout())
}

// A loopback listener answers only loopback names, on every path, probes
// and profiles included, token or not: a page whose name was rebound to
// 127.0.0.1 is refused everywhere. The Origin check covers every path too.
func TestHostAndOriginOnEveryPath(t *testing.T) {
	t.Parallel()
	for _, token := range []string{"", "s3cret"} {
		addr := serve(t, echoServer, HTTPOptions{
			Token:     token,
			Pprof:     true,
			Metrics:   http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "calls_total 7\n") }),
			Readiness: func() (bool, any) { return true, map[string]bool{"ready": true} },
		})
		_, port, _ := net.SplitHostPort(addr)
		for _, path := range []string{"/mcp", "/sse", "/healthz", "/readyz", "/metrics", "/debug/pprof/", "/debug/pprof/cmdline", "/nowhere"} {
			for name, tc := range map[string]struct {
				host, origin string
				refused      bool
			}{
				"127.0.0.1":               {host: addr},
				"localhost":               {host: "localhost:" + port},
				"LocalHost":               {host: "LocalHost:" + port},
				"[::1]":                   {host: "[::1]:" + port},
				"localhost, no port":      {host: "localhost"},
				"foreign":                 {host: "evil.example:" + port, refused: true},
				"foreign, no port":        {host: "evil.example", refused: true},
				"foreign IP":              {host: "93.184.216.34:" + port, refused: true},
				"loopback-like name":      {host: "localhost.evil.example:" + port, refused: true},
				"foreign Origin":          {host: addr, origin: "http://evil.example", refused: true},
				"same Origin":             {host: addr, origin: "http://" + addr},
				"foreign Host and Origin": {host: "evil.example", origin: "http://evil.example", refused: true},
			} {
				t.Run(fmt.Sprintf("token=%v%s/%s", token != "", path, name), func(t *testing.T) {
					t.Parallel()
					method := "GET"
					if path == "/mcp" {
						method = "POST"
					}
					r, err := http.NewRequest(method, "http://"+addr+path, strings.NewReader("{}"))
					if err != nil {
						t.Fatal(err)
					}
					r.Host = tc.host
					if tc.origin != "" {
						r.Header.Set("Origin", tc.origin)
					}
					if token != "" {
						r.Header.Set("Authorization", "Bearer "+token)
					}
					ctx, cancel := context.WithTimeout(context.Background(), proctest.Patience)
					defer cancel()
					resp, err := http.DefaultClient.Do(r.WithContext(ctx))
					if err != nil {
						t.Fatal(err)
					}
					var b []byte
					if resp.StatusCode == http.StatusForbidden { // not an SSE stream, that never ends
						b, _ = io.ReadAll(resp.Body)
					}
					_ = resp.Body.Close()
					if refused := resp.StatusCode == http.StatusForbidden; refused != tc.refused {
						t.Errorf("%s %s, Host %q, Origin %q = %d %.200q, want refused=%v", method, path, tc.host, tc.origin, resp.StatusCode, b, tc.refused)
					}
				})
			}
		}
	}
}

// The Host check is made where the request arrived: on a loopback address
// only, as the SDK's; a listener on another address (a pod's, reached by
// its IP or a Service name) takes any Host.
func TestHostCheck(t *testing.T) {
	t.Parallel()
	h := hostCheck(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusTeapot) }))
	for name, tc := range map[string]struct {
		local, host string
		want        int
	}{
		"loopback, loopback Host":           {local: "127.0.0.1:8765", host: "127.0.0.1:8765", want: http.StatusTeapot},
		"loopback, another loopback IP":     {local: "127.0.0.1:8765", host: "127.0.0.2:8765", want: http.StatusTeapot},
		"loopback, localhost":               {local: "127.0.0.1:8765", host: "localhost:8765", want: http.StatusTeapot},
		"IPv6 loopback, [::1]":              {local: "[::1]:8765", host: "[::1]:8765", want: http.StatusTeapot},
		"IPv6 loopback, [::1] no port":      {local: "[::1]:8765", host: "[::1]", want: http.StatusTeapot},
		"loopback, foreign Host":            {local: "127.0.0.1:8765", host: "evil.example:8765", want: http.StatusForbidden},
		"IPv6 loopback, foreign Host":       {local: "[::1]:8765", host: "evil.example", want: http.StatusForbidden},
		"loopback, empty Host":              {local: "127.0.0.1:8765", host: "", want: http.StatusForbidden},
		"loopback, private IP Host":         {local: "127.0.0.1:8765", host: "10.0.0.5:8765", want: http.StatusForbidden},
		"pod IP, a Service name":            {local: "10.0.0.5:8765", host: "ramabana.default.svc:8765", want: http.StatusTeapot},
		"pod IP, any name":                  {local: "10.0.0.5:8765", host: "evil.example", want: http.StatusTeapot},
		"no local address (not a listener)": {host: "evil.example", want: http.StatusTeapot},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := httptest.NewRequest("GET", "/healthz", nil)
			r.Host = tc.host
			if tc.local != "" {
				local, err := net.ResolveTCPAddr("tcp", tc.local)
				if err != nil {
					t.Fatal(err)
				}
				r = r.WithContext(context.WithValue(r.Context(), http.LocalAddrContextKey, local))
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if w.Code != tc.want {
				t.Errorf("status %d, want %d (%s)", w.Code, tc.want, w.Body)
			}
			if w.Code == http.StatusForbidden && !strings.Contains(w.Body.String(), "Host") {
				t.Errorf("the refusal does not say why: %q", w.Body)
			}
		})
	}
}

// Connections that wait for nothing cannot keep a client out: at the bound,
// the one that has waited longest for a request is closed to make room.
func TestIdleConnectionsMakeRoom(t *testing.T) {
	t.Parallel()
	const limit = 4
	for name, idle := range map[string]func(t *testing.T, c *rawConn){
		"keep-alive after a request": func(t *testing.T, c *rawConn) {
			if resp := c.get(t, "/healthz"); resp.StatusCode != http.StatusOK {
				t.Fatalf("GET /healthz = %d", resp.StatusCode)
			}
		},
		"never a request": func(*testing.T, *rawConn) {},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			addr := serve(t, echoServer, HTTPOptions{MaxConns: limit, Token: "s3cret"})
			var conns []*rawConn
			for range 100 {
				c := dial(t, addr)
				idle(t, c)
				conns = append(conns, c)
			}
			// A client with the token gets through, and runs a session.
			client := &http.Client{Transport: roundTripper(func(r *http.Request) (*http.Response, error) {
				r = r.Clone(r.Context())
				r.Header.Set("Authorization", "Bearer s3cret")
				return http.DefaultTransport.RoundTrip(r)
			})}
			ctx, cancel := context.WithTimeout(context.Background(), proctest.Patience)
			defer cancel()
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "c"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: "http://" + addr + "/mcp", HTTPClient: client}, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{}}); err != nil || res.IsError {
				t.Fatalf("echo = %+v, %v", res, err)
			}
			// All but the last limit were closed; the oldest first.
			if !conns[0].closedByServer() {
				t.Error("the oldest idle connection is still open")
			}
			closed := 0
			for _, c := range conns {
				if c.isClosed() {
					closed++
				}
			}
			if want := len(conns) - limit; closed < want {
				t.Errorf("%d idle connections closed, want at least %d", closed, want)
			}
		})
	}
}

// When every connection is busy, one more is answered 503, naming the
// limit, with Retry-After, and closed; a slot frees when a request ends.
func TestBusyConnectionsRefuseOneMore(t *testing.T) {
	t.Parallel()
	const limit = 2
	entered, release := make(chan struct{}, limit), make(chan struct{})
	addr := serve(t, echoServer, HTTPOptions{MaxConns: limit, Metrics: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Has("hold") {
			entered <- struct{}{}
			<-release
		}
		io.WriteString(w, "calls_total 7\n")
	})})
	var held sync.WaitGroup
	for range limit {
		c := dial(t, addr)
		held.Go(func() {
			if resp := c.get(t, "/metrics?hold"); resp.StatusCode != http.StatusOK {
				t.Errorf("held GET /metrics = %d", resp.StatusCode)
			}
		})
		<-entered
	}
	resp := dial(t, addr).get(t, "/healthz")
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" || !resp.Close {
		t.Errorf("one more connection: %d, Retry-After %q, close %v; want 503, a Retry-After, and the connection closed", resp.StatusCode, resp.Header.Get("Retry-After"), resp.Close)
	}
	// The body names the limit.
	c := dial(t, addr)
	fmt.Fprintf(c, "GET /healthz HTTP/1.1\r\nHost: %s\r\n\r\n", addr)
	_ = c.SetReadDeadline(time.Now().Add(proctest.Patience))
	b, _ := io.ReadAll(c.r)
	if !strings.Contains(string(b), "at most 2") {
		t.Errorf("the refusal does not name the limit: %q", b)
	}
	close(release)
	held.Wait()
	if resp := dial(t, addr).get(t, "/healthz"); resp.StatusCode != http.StatusOK {
		t.Errorf("once the requests ended: GET /healthz = %d, want 200", resp.StatusCode)
	}
}

// At most MaxSessions sessions live at once, streamable and SSE together;
// one more is refused with 503, naming the limit, and a Retry-After. A
// slot frees when a session ends; a failed initialize takes none.
func TestSessionLimit(t *testing.T) {
	t.Parallel()
	const limit = 2
	h, err := HTTPHandler(echoServer, HTTPOptions{MaxSessions: limit})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	ctx, cancel := context.WithTimeout(context.Background(), proctest.Patience)
	defer cancel()
	connect := func(tr mcp.Transport) (*mcp.ClientSession, error) {
		return mcp.NewClient(&mcp.Implementation{Name: "c"}, nil).Connect(ctx, tr, nil)
	}
	streamable := func() mcp.Transport { return &mcp.StreamableClientTransport{Endpoint: ts.URL + "/mcp"} }
	sse := func() mcp.Transport { return &mcp.SSEClientTransport{Endpoint: ts.URL + "/sse"} }
	refused := func(what string) {
		t.Helper()
		for name, req := range map[string]*http.Request{
			"initialize": func() *http.Request {
				r, _ := http.NewRequest("POST", ts.URL+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"o","version":"0"}}}`))
				r.Header.Set("Content-Type", "application/json")
				r.Header.Set("Accept", "application/json, text/event-stream")
				return r
			}(),
			"GET /sse": func() *http.Request { r, _ := http.NewRequest("GET", ts.URL+"/sse", nil); return r }(),
		} {
			resp, err := http.DefaultClient.Do(req.WithContext(ctx))
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			_ = resp.Body.Close()
			if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" || !strings.Contains(string(b), "at most 2") {
				t.Errorf("%s, %s: %d %q, Retry-After %q; want 503 naming the limit, with a Retry-After", what, name, resp.StatusCode, b, resp.Header.Get("Retry-After"))
			}
		}
	}
	// Failed initializes take no slot.
	for range 5 {
		r, _ := http.NewRequestWithContext(ctx, "POST", ts.URL+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
	}
	// A failed request's slot is released when its handler returns, which
	// may be a moment after the client has its answer: the two sessions
	// are made once the slots are free, not at the first try.
	var a, b *mcp.ClientSession
	if !proctest.Await(func() bool { a, err = connect(streamable()); return err == nil }) {
		t.Fatalf("after five failed initializes, no streamable session: %v", err)
	}
	defer a.Close()
	if !proctest.Await(func() bool { b, err = connect(sse()); return err == nil }) {
		t.Fatalf("after five failed initializes, no SSE session beside the streamable one: %v", err)
	}
	defer b.Close()
	if c, err := connect(streamable()); err == nil {
		c.Close()
		t.Fatal("a third session was served")
	}
	refused("full")
	// Ending a streamable session (DELETE) frees its slot, and so does
	// closing an SSE stream.
	for name, cs := range map[string]*mcp.ClientSession{"streamable": a, "sse": b} {
		_ = cs.Close()
		var c *mcp.ClientSession
		if !proctest.Await(func() bool { c, err = connect(streamable()); return err == nil }) {
			t.Fatalf("after the %s session ended, no new one: %v", name, err)
		}
		defer c.Close()
		if res, err := c.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{}}); err != nil || res.IsError {
			t.Fatalf("echo = %+v, %v", res, err)
		}
	}
	refused("full again")
}

// The read and write timeouts bound a request's arrival and each write,
// not the response: a call that takes longer than both returns, and the
// session's event stream, silent for longer, still carries a notification.
func TestCallsAndStreamsOutliveTheTimeouts(t *testing.T) {
	t.Parallel()
	// Every request of the test must still arrive within the read
	// timeout, handler's body read included: 50 ms was missed once under
	// the race detector in a loaded full run (initialize cut off). Half a
	// second leaves room for a stalled machine; the test waits four of it
	// twice.
	const timeout = 500 * time.Millisecond
	var mu sync.Mutex
	var servers []*mcp.Server
	newServer := func() *mcp.Server {
		s := echoServer()
		mcp.AddTool(s, &mcp.Tool{Name: "slow"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			select {
			case <-time.After(4 * timeout):
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil, nil
			case <-ctx.Done():
				return nil, nil, ctx.Err()
			}
		})
		mu.Lock()
		servers = append(servers, s)
		mu.Unlock()
		return s
	}
	addr := serve(t, newServer, HTTPOptions{ReadTimeout: timeout, WriteTimeout: timeout})
	changed := make(chan struct{}, 1)
	ctx, cancel := context.WithTimeout(context.Background(), proctest.Patience)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			select {
			case changed <- struct{}{}:
			default:
			}
		},
	}).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: "http://" + addr + "/mcp", MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "slow", Arguments: map[string]any{}})
	if err != nil || res.IsError || len(res.Content) != 1 || res.Content[0].(*mcp.TextContent).Text != "done" {
		t.Fatalf("slow = %+v, %v", res, err)
	}
	time.Sleep(4 * timeout) // the event stream stays silent past both timeouts
	mu.Lock()
	for _, s := range servers {
		mcp.AddTool(s, &mcp.Tool{Name: "later"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{}, nil, nil
		})
	}
	mu.Unlock()
	select {
	case <-changed:
	case <-ctx.Done():
		t.Fatal("no tools/list_changed on the event stream")
	}
}

// A client that sends its request too slowly, or reads nothing of the
// answer, is cut off; one that waits for its next request too long is
// closed.
func TestSlowAndIdleClientsAreCutOff(t *testing.T) {
	t.Parallel()
	// "reads nothing" needs its request read within the read timeout: as
	// in TestCallsAndStreamsOutliveTheTimeouts, half a second.
	const timeout = 500 * time.Millisecond
	wrote := make(chan error, 1)
	addr := serve(t, echoServer, HTTPOptions{ReadTimeout: timeout, WriteTimeout: timeout, IdleTimeout: timeout,
		Metrics: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			chunk := make([]byte, 1<<20)
			for range 1 << 12 { // 4 GiB, far beyond any socket buffer
				if _, err := w.Write(chunk); err != nil {
					wrote <- err
					return
				}
			}
			wrote <- nil
		}),
	})
	for name, send := range map[string]string{
		"slow header": "GET /healthz HTTP/1.1\r\nHost: " + addr + "\r\n",
		"slow body":   "POST /mcp HTTP/1.1\r\nHost: " + addr + "\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 1000\r\n\r\n{",
		"idle":        "GET /healthz HTTP/1.1\r\nHost: " + addr + "\r\n\r\n",
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := dial(t, addr)
			if _, err := io.WriteString(c, send); err != nil {
				t.Fatal(err)
			}
			if !c.closedByServer() {
				t.Error("the server kept the connection")
			}
		})
	}
	t.Run("reads nothing", func(t *testing.T) {
		t.Parallel()
		c := dial(t, addr)
		fmt.Fprintf(c, "GET /metrics HTTP/1.1\r\nHost: %s\r\n\r\n", addr)
		select {
		case err := <-wrote:
			if err == nil {
				t.Error("4 GiB written to a client that reads nothing")
			}
		case <-time.After(proctest.Patience):
			t.Error("a write to a client that reads nothing never ended")
		}
	})
}

func TestMaxConnsDefault(t *testing.T) {
	t.Parallel()
	if n := maxConns(0); n < 16 || n > DefaultMaxConns {
		t.Errorf("maxConns(0) = %d, want 16 to %d", n, DefaultMaxConns)
	}
	if files := openFileLimit(); files > 0 && maxConns(0) > max(files/2, 16) {
		t.Errorf("maxConns(0) = %d with an open-file limit of %d", maxConns(0), files)
	}
	for _, n := range []int{-1, 7, 100000} {
		if got := maxConns(n); got != n {
			t.Errorf("maxConns(%d) = %d", n, got)
		}
	}
}

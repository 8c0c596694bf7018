//go:build unix

package e2e

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ramabana/ramabana-mcp/host/internal/transport"
	"github.com/ramabana/ramabana-mcp/internal/proctest"
)

// needFiles raises the test process's soft limit on open files to hold n
// more, up to the hard limit, and puts it back when the test ends; it
// skips the test when the hard limit is too low.
func needFiles(t *testing.T, n uint64) {
	t.Helper()
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		t.Fatal(err)
	}
	want := n + 256 // what the test binary and its other tests hold besides
	if uint64(lim.Cur) >= want {
		return
	}
	if uint64(lim.Max) < want {
		t.Skipf("the open-file limit is %d, and %d connections need %d", lim.Max, n, want)
	}
	old := lim
	lim.Cur = lim.Max
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Setrlimit(syscall.RLIMIT_NOFILE, &old) })
}

// idleConn is a connection the test holds open and idle.
type idleConn struct {
	net.Conn
	r *bufio.Reader
}

// closed reports, without waiting, whether the server has closed c.
func (c idleConn) closed() bool {
	_ = c.SetReadDeadline(time.Now().Add(time.Millisecond))
	_, err := c.r.Peek(1)
	var ne net.Error
	return err != nil && !(errors.As(err, &ne) && ne.Timeout())
}

// A thousand idle connections, which need no token, cannot keep out a
// client that has one: at its bound on connections the server closes
// those that have waited longest for a request, and the client connects,
// initializes and calls a tool. Half the idle connections made a request
// first (idle keep-alive); half never sent a byte.
func TestIdleConnectionsDoNotStarveAClient(t *testing.T) {
	t.Parallel()
	const idle = 1000
	needFiles(t, idle)
	_, base := startHTTP(t, project(t), "--token", "s3cret")
	addr := strings.TrimPrefix(base, "http://")

	var conns []idleConn
	t.Cleanup(func() {
		for _, c := range conns {
			_ = c.Close()
		}
	})
	dialer := &net.Dialer{Timeout: proctest.Patience}
	for i := range idle {
		c, err := dialer.Dial("tcp", addr)
		if err != nil {
			t.Fatalf("connection %d: %v", i, err)
		}
		ic := idleConn{Conn: c, r: bufio.NewReader(c)}
		conns = append(conns, ic)
		if i%2 == 1 {
			continue
		}
		// A probe needs no token, and leaves the connection kept alive.
		_ = c.SetDeadline(time.Now().Add(proctest.Patience))
		if _, err := fmt.Fprintf(c, "GET /healthz HTTP/1.1\r\nHost: %s\r\n\r\n", addr); err != nil {
			t.Fatalf("connection %d: %v", i, err)
		}
		resp, err := http.ReadResponse(ic.r, nil)
		if err != nil {
			t.Fatalf("connection %d: GET /healthz: %v", i, err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusOK || resp.Close {
			t.Fatalf("connection %d: GET /healthz = %d (close %v), want 200 kept alive", i, resp.StatusCode, resp.Close)
		}
	}

	// connect, with a deadline as a guard against a hang: the streamable
	// transport's session outlives Connect's context.
	ctx, cancel := context.WithTimeout(context.Background(), proctest.Patience)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "0"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: base + "/mcp", HTTPClient: &http.Client{Transport: bearer{"s3cret"}}}, nil)
	if err != nil {
		t.Fatalf("connect beside %d idle connections: %v", idle, err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	res, err := call(t, cs, "view_file", map[string]any{"path": "pkg/sizes.py", "limit": 1})
	if err != nil || !strings.Contains(text(res), "|RESERVE = 16_384") {
		t.Fatalf("view_file beside %d idle connections = %q, %v", idle, text(res), err)
	}

	// The server holds no more than its bound: it closed the rest.
	want := idle - transport.DefaultMaxConns
	closed := map[int]bool{}
	if !proctest.Await(func() bool {
		for i, c := range conns {
			if !closed[i] && c.closed() {
				closed[i] = true
			}
		}
		return len(closed) >= want
	}) {
		t.Errorf("the server closed %d of %d idle connections, want at least %d (it holds at most %d)", len(closed), idle, want, transport.DefaultMaxConns)
	}
}

// A server on a loopback address without a token answers only loopback
// names, on every path: a page whose name was rebound to 127.0.0.1 gets
// neither profiles nor metrics nor the probes, as it gets no /mcp or /sse.
func TestForeignHostIsRefusedOnEveryPath(t *testing.T) {
	t.Parallel()
	_, base := startHTTP(t, project(t), "--pprof", "--metrics")
	port := base[strings.LastIndex(base, ":")+1:]
	// Its own connections, closed after each answer: none is left open.
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	for name, tc := range map[string]struct {
		method, path string
		loopback     int // the status for a loopback Host; 0: not tried (an SSE stream)
	}{
		"pprof index":      {"GET", "/debug/pprof/", http.StatusOK},
		"pprof goroutines": {"GET", "/debug/pprof/goroutine?debug=1", http.StatusOK},
		"pprof cmdline":    {"GET", "/debug/pprof/cmdline", http.StatusOK},
		"metrics":          {"GET", "/metrics", http.StatusOK},
		"healthz":          {"GET", "/healthz", http.StatusOK},
		"readyz":           {"HEAD", "/readyz", 0},
		"mcp":              {"POST", "/mcp", 0},
		"sse":              {"GET", "/sse", 0},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			do := func(host string) (int, string) {
				t.Helper()
				ctx, cancel := context.WithTimeout(context.Background(), proctest.Patience)
				defer cancel()
				req, err := http.NewRequestWithContext(ctx, tc.method, base+tc.path, nil)
				if err != nil {
					t.Fatal(err)
				}
				req.Host = host
				resp, err := client.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				defer resp.Body.Close()
				b, _ := io.ReadAll(resp.Body)
				return resp.StatusCode, string(b)
			}
			for _, host := range []string{"evil.example", "evil.example:" + port, "rebound.evil.example:" + port} {
				if code, body := do(host); code != http.StatusForbidden || (tc.method != "HEAD" && !strings.Contains(body, "Host")) {
					t.Errorf("%s %s with Host %s = %d %.200q, want 403 naming the Host", tc.method, tc.path, host, code, body)
				}
			}
			if tc.loopback == 0 {
				return
			}
			for _, host := range []string{"127.0.0.1:" + port, "localhost:" + port} {
				if code, body := do(host); code != tc.loopback {
					t.Errorf("%s %s with Host %s = %d %.200q, want %d", tc.method, tc.path, host, code, body, tc.loopback)
				}
			}
		})
	}
}

package upstream

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// poolConfig has two stdio servers and one streamable HTTP server.
func poolConfig(t *testing.T) *Config {
	t.Helper()
	cfg := &Config{servers: map[string]Server{}}
	for _, s := range []Server{
		stdioServer(t, "alpha", "ok"),
		stdioServer(t, "beta", "ok"),
		{ID: "web", Type: TypeHTTP, URL: httpServer(t, TypeHTTP, "ok", "")},
	} {
		cfg.servers[s.ID] = s
	}
	return cfg
}

func newPool(t *testing.T, cfg *Config) *Pool {
	p := NewPool(cfg, ConnectOptions{})
	t.Cleanup(func() {
		if err := p.Close(); err != nil {
			t.Errorf("Pool.Close: %v", err)
		}
	})
	return p
}

func namespaced(tools []Tool) []string {
	var out []string
	for _, t := range tools {
		out = append(out, t.Namespaced)
	}
	return out
}

func TestPool(t *testing.T) {
	t.Parallel()
	cfg := poolConfig(t)
	p := newPool(t, cfg)

	var ids []string
	for _, s := range p.Available() {
		ids = append(ids, s.ID)
	}
	if diff := cmp.Diff([]string{"alpha", "beta", "web"}, ids); diff != "" {
		t.Errorf("Available (-want +got):\n%s", diff)
	}

	tools, err := p.Connect(t.Context(), "web")
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, n := range testToolNames {
		want = append(want, "web__"+n)
	}
	if diff := cmp.Diff(want, namespaced(tools)); diff != "" {
		t.Errorf("Connect(web) tools (-want +got):\n%s", diff)
	}
	if _, err := p.Connect(t.Context(), "alpha"); err != nil {
		t.Fatal(err)
	}
	for _, n := range testToolNames {
		want = append(want, "alpha__"+n)
	}
	if diff := cmp.Diff(want, namespaced(p.Tools())); diff != "" {
		t.Errorf("Tools (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"web", "alpha"}, p.Connected()); diff != "" {
		t.Errorf("Connected (-want +got):\n%s", diff)
	}

	errTests := map[string]struct {
		err      error
		sentinel error
		msg      string
	}{
		"duplicate": {
			err:      second(p.Connect(t.Context(), "alpha")),
			sentinel: ErrAlreadyConnected,
			msg:      `MCP server "alpha" is already connected`,
		},
		"unknown id": {
			err:      second(p.Connect(t.Context(), "x")),
			sentinel: ErrUnknownServer,
			msg:      `unknown MCP server "x"; available: alpha, beta, web`,
		},
		"call not connected": {
			err:      second(p.Call(t.Context(), "beta__echo", nil, nil)),
			sentinel: ErrNotConnected,
			msg:      `MCP server "beta" is not connected; connect it with mcp_connect first`,
		},
		"call unknown server": {
			err:      second(p.Call(t.Context(), "zed__echo", nil, nil)),
			sentinel: ErrUnknownServer,
			msg:      `unknown MCP server "zed"; available: alpha, beta, web`,
		},
		"call unlisted tool": {
			err:      second(p.Call(t.Context(), "alpha__nope", nil, nil)),
			sentinel: ErrUnknownTool,
			msg:      `unknown MCP tool "alpha__nope": MCP server "alpha" lists no tool "nope"`,
		},
		"call bare name": {
			err:      second(p.Call(t.Context(), "echo", nil, nil)),
			sentinel: ErrUnknownTool,
			msg:      `unknown MCP tool "echo": want <server id>__<tool name>`,
		},
	}
	for name, tt := range errTests {
		t.Run(name, func(t *testing.T) {
			if !errors.Is(tt.err, tt.sentinel) {
				t.Errorf("error %v does not match %v", tt.err, tt.sentinel)
			}
			if tt.err == nil || tt.err.Error() != tt.msg {
				t.Errorf("error = %v\nwant    %s", tt.err, tt.msg)
			}
		})
	}
	var unknown *UnknownServerError
	if err := second(p.Connect(t.Context(), "x")); !errors.As(err, &unknown) || len(unknown.Available) != 3 {
		t.Errorf("unknown id error = %#v", err)
	}

	for _, name := range []string{"alpha__echo", "web__echo"} {
		res, err := p.Call(t.Context(), name, json.RawMessage(`{"text":"via `+name+`"}`), nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := res.Content[0].Text; got != "via "+name {
			t.Errorf("Call(%s) = %q", name, got)
		}
	}
}

func second[T any](_ T, err error) error { return err }

// TestPoolCallsAShortenedName: a tool whose <id>__<tool> is over MaxName
// is listed under its shortened name, and a call by that name reaches it.
func TestPoolCallsAShortenedName(t *testing.T) {
	t.Parallel()
	cfg := &Config{servers: map[string]Server{"long": stdioServer(t, "long", "longname")}}
	p := newPool(t, cfg)
	tools, err := p.Connect(t.Context(), "long")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]string{}
	for _, tl := range tools {
		if !strings.HasPrefix(tl.Name, "very_long") {
			continue
		}
		if len(tl.Namespaced) > MaxName || tl.Namespaced == "long__"+tl.Name {
			t.Errorf("%s is listed as %q, want it shortened to at most %d", tl.Name, tl.Namespaced, MaxName)
		}
		if other, dup := seen[tl.Namespaced]; dup {
			t.Errorf("%s and %s share the name %q", other, tl.Name, tl.Namespaced)
		}
		seen[tl.Namespaced] = tl.Name
		res, err := p.Call(t.Context(), tl.Namespaced, nil, nil)
		if err != nil || res.Text() != tl.Name {
			t.Errorf("call %s = %v, %v; want the tool's own name", tl.Namespaced, res, err)
		}
	}
	if len(seen) != 2 {
		t.Errorf("long-named tools listed: %v, want 2", seen)
	}
}

func TestPoolsAreIndependent(t *testing.T) {
	t.Parallel()
	cfg := poolConfig(t)
	p1, p2 := newPool(t, cfg), newPool(t, cfg)
	if _, err := p1.Connect(t.Context(), "alpha"); err != nil {
		t.Fatal(err)
	}
	if got := p2.Tools(); len(got) != 0 {
		t.Errorf("p2 sees p1's tools: %v", namespaced(got))
	}
	if _, err := p2.Call(t.Context(), "alpha__echo", nil, nil); !errors.Is(err, ErrNotConnected) {
		t.Errorf("p2 call of p1's tool: %v", err)
	}
	// p2 connects the same id on its own, to a process of its own.
	if _, err := p2.Connect(t.Context(), "alpha"); err != nil {
		t.Fatalf("p2.Connect(alpha): %v", err)
	}
	if pid1, pid2 := p1.conns["alpha"].connection().Pid(), p2.conns["alpha"].connection().Pid(); pid1 == pid2 {
		t.Errorf("both pools use process %d", pid1)
	}
	if _, err := p2.Connect(t.Context(), "beta"); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"alpha"}, p1.Connected()); diff != "" {
		t.Errorf("p1 Connected (-want +got):\n%s", diff)
	}
}

func TestPoolClose(t *testing.T) {
	t.Parallel()
	p := NewPool(poolConfig(t), ConnectOptions{})
	var pids []int
	for _, id := range []string{"alpha", "beta"} {
		if _, err := p.Connect(t.Context(), id); err != nil {
			p.Close()
			t.Fatal(err)
		}
		pids = append(pids, p.conns[id].connection().Pid())
	}
	if err := p.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	for _, pid := range pids {
		if _, err := os.Stat("/proc/" + strconv.Itoa(pid)); err == nil {
			t.Errorf("process %d still exists after Close", pid)
		}
	}
	if _, err := p.Connect(t.Context(), "web"); !errors.Is(err, ErrPoolClosed) {
		t.Errorf("Connect after Close: %v", err)
	}
	if _, err := p.Call(t.Context(), "alpha__echo", nil, nil); !errors.Is(err, ErrPoolClosed) {
		t.Errorf("Call after Close: %v", err)
	}
	if len(p.Tools()) != 0 {
		t.Error("Tools after Close not empty")
	}
	if err := p.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

func TestPoolConnectFailureActivatesNothing(t *testing.T) {
	t.Parallel()
	cfg := &Config{servers: map[string]Server{"bad": stdioServer(t, "bad", "repeat")}}
	p := newPool(t, cfg)
	for range 2 { // a failed id can be tried again, and fails the same way
		if _, err := p.Connect(t.Context(), "bad"); !errors.Is(err, ErrRepeatedCursor) {
			t.Fatalf("Connect(bad) = %v", err)
		}
	}
	if len(p.Tools()) != 0 || len(p.Connected()) != 0 {
		t.Errorf("failed Connect activated %v", p.Connected())
	}
}

func TestPoolNilConfig(t *testing.T) {
	t.Parallel()
	p := newPool(t, nil)
	if len(p.Available()) != 0 {
		t.Error("nil config has servers")
	}
	if err := second(p.Connect(t.Context(), "x")); err == nil || err.Error() != `unknown MCP server "x"; available: none` {
		t.Errorf("Connect = %v", err)
	}
}

func TestPoolConcurrentConnect(t *testing.T) {
	t.Parallel()
	p := newPool(t, poolConfig(t))
	const n = 4
	errs := make(chan error, n)
	for range n {
		go func() { errs <- second(p.Connect(t.Context(), "alpha")) }()
	}
	ok, dup := 0, 0
	for range n {
		switch err := <-errs; {
		case err == nil:
			ok++
		case errors.Is(err, ErrAlreadyConnected):
			dup++
		default:
			t.Errorf("Connect: %v", err)
		}
	}
	if ok != 1 || dup != n-1 {
		t.Errorf("%d connected, %d already connected; want 1 and %d", ok, dup, n-1)
	}
}

func TestPoolCloseCancelsConnect(t *testing.T) {
	t.Parallel()
	started, stop := make(chan struct{}, 1), make(chan struct{})
	// A server that reads the request and never answers.
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		select {
		case started <- struct{}{}:
		default:
		}
		select {
		case <-r.Context().Done():
		case <-stop:
		}
	}))
	t.Cleanup(hang.Close)
	t.Cleanup(func() { close(stop) })
	cfg := &Config{servers: map[string]Server{"slow": {ID: "slow", Type: TypeHTTP, URL: hang.URL}}}
	p := NewPool(cfg, ConnectOptions{})
	done := make(chan error, 1)
	go func() { done <- second(p.Connect(t.Context(), "slow")) }()
	<-started
	if err := p.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if err := <-done; !errors.Is(err, ErrPoolClosed) {
		t.Errorf("Connect during Close = %v", err)
	}
}

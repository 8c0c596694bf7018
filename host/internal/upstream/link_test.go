package upstream

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ramabana/ramabana-mcp/internal/proctest"
	"github.com/ramabana/ramabana-mcp/sdk"
)

// newLink returns a Link that is closed when the test ends.
func newLink(t *testing.T, s Server, opts ConnectOptions, onChange func()) *Link {
	t.Helper()
	l := NewLink(s, opts, onChange)
	t.Cleanup(func() { _ = l.Close() })
	return l
}

// A call outlives its server's timeout: it fails with ErrTimeout, and the
// server is still there for the next call.
func TestLinkCallTimeout(t *testing.T) {
	t.Parallel()
	s := stdioServer(t, "slow", "slow")
	s.Timeout = 300 * time.Millisecond
	l := newLink(t, s, ConnectOptions{}, nil)
	_, err := l.Call(t.Context(), "slow__wait", nil, nil)
	if !errors.Is(err, ErrTimeout) || !strings.Contains(err.Error(), `MCP server "slow" did not answer wait within 300ms`) {
		t.Errorf("err = %v, want the timeout", err)
	}
	if res, err := l.Call(t.Context(), "slow__echo", json.RawMessage(`{"text":"after"}`), nil); err != nil || res.Content[0].Text != "after" {
		t.Errorf("echo after a timeout = %+v, %v", res, err)
	}
}

// Progress comes through, and cancelling the caller's context ends the
// call.
func TestLinkProgressAndCancel(t *testing.T) {
	t.Parallel()
	l := newLink(t, stdioServer(t, "slow", "slow"), ConnectOptions{}, nil)
	ctx, cancel := context.WithCancel(t.Context())
	got := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		_, err := l.Call(ctx, "slow__wait", nil, func(_, _ float64, msg string) {
			select {
			case got <- msg:
			default:
			}
		})
		done <- err
	}()
	select {
	case msg := <-got:
		if msg != "waiting" {
			t.Errorf("progress = %q", msg)
		}
	case <-time.After(proctest.Patience):
		t.Fatal("no progress")
	}
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("cancelled call = %v", err)
		}
	case <-time.After(proctest.Patience):
		t.Fatal("the cancelled call did not end")
	}
	if st := l.Status(); st.State != StateReady {
		t.Errorf("after a cancel the link is %s", st.State)
	}
}

// A server that never answers initialize fails the connect after the
// connect timeout, and its process is gone.
func TestLinkConnectTimeout(t *testing.T) {
	t.Parallel()
	l := newLink(t, stdioServer(t, "stuck", "stuck"), ConnectOptions{ConnectTimeout: 300 * time.Millisecond}, nil)
	_, err := l.Connect(t.Context())
	if err == nil || !strings.Contains(err.Error(), "no answer within 300ms") {
		t.Fatalf("Connect = %v, want the connect timeout", err)
	}
	if st := l.Status(); st.State != StateFailed || st.Error == "" {
		t.Errorf("status = %+v", st)
	}
}

// A stdio server that exits is started again on the next use.
func TestLinkReconnectsAfterTheServerExits(t *testing.T) {
	t.Parallel()
	changes := atomic.Int32{}
	l := newLink(t, stdioServer(t, "alpha", "ok"), ConnectOptions{}, func() { changes.Add(1) })
	if _, err := l.Connect(t.Context()); err != nil {
		t.Fatal(err)
	}
	pid := l.connection().Pid()
	if err := proctest.Kill(pid); err != nil {
		t.Fatal(err)
	}
	if !proctest.Await(func() bool { return l.Status().State == StateDisconnected }) {
		t.Fatalf("state = %s after the server was killed", l.Status().State)
	}
	if len(l.Tools()) == 0 {
		t.Error("a lost connection forgot the tools")
	}
	res, err := l.Call(t.Context(), "alpha__echo", json.RawMessage(`{"text":"back"}`), nil)
	if err != nil || res.Content[0].Text != "back" {
		t.Fatalf("call after the exit = %+v, %v", res, err)
	}
	if l.connection().Pid() == pid || l.Status().State != StateReady {
		t.Errorf("not reconnected: pid %d, state %s", l.connection().Pid(), l.Status().State)
	}
}

// An HTTP session the server forgot (404) fails the call in flight; the
// next call opens a new session.
func TestLinkReconnectsAfterALostHTTPSession(t *testing.T) {
	t.Parallel()
	newHandler := func() http.Handler {
		srv, err := newTestServer("ok")
		if err != nil {
			t.Fatal(err)
		}
		return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	}
	var handler atomic.Pointer[http.Handler]
	h := newHandler()
	handler.Store(&h)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { (*handler.Load()).ServeHTTP(w, r) }))
	t.Cleanup(ts.Close)
	l := newLink(t, Server{ID: "web", Type: TypeHTTP, URL: ts.URL}, ConnectOptions{}, nil)
	if _, err := l.Call(t.Context(), "web__echo", json.RawMessage(`{"text":"one"}`), nil); err != nil {
		t.Fatal(err)
	}
	// A restarted server knows no session.
	h2 := newHandler()
	handler.Store(&h2)
	var res *sdk.Result
	var err error
	for range 2 { // the first call may be the one that finds the session gone
		if res, err = l.Call(t.Context(), "web__echo", json.RawMessage(`{"text":"two"}`), nil); err == nil {
			break
		}
		t.Logf("call with the lost session: %v", err)
	}
	if err != nil || res.Content[0].Text != "two" {
		t.Errorf("call after the session was lost = %+v, %v", res, err)
	}
}

// notifications/tools/list_changed lists the tools again.
func TestLinkRelistsWhenToldTheListChanged(t *testing.T) {
	t.Parallel()
	var changes atomic.Int32
	l := newLink(t, stdioServer(t, "chg", "changing"), ConnectOptions{}, func() { changes.Add(1) })
	if _, err := l.Connect(t.Context()); err != nil {
		t.Fatal(err)
	}
	before := changes.Load()
	if _, err := l.Call(t.Context(), "chg__grow", nil, nil); err != nil {
		t.Fatal(err)
	}
	has := func() bool {
		return slices.ContainsFunc(l.Tools(), func(tl Tool) bool { return tl.Namespaced == "chg__grown_1" })
	}
	if !proctest.Await(has) {
		t.Fatalf("chg__grown_1 never listed: %v", namespaced(l.Tools()))
	}
	// onChange runs after the new list is in place, so it may come a
	// moment after the list is seen.
	if !proctest.Await(func() bool { return changes.Load() != before }) {
		t.Error("onChange was not called for the new list")
	}
	if res, err := l.Call(t.Context(), "chg__grown_1", nil, nil); err != nil || res.Content[0].Text != "grown_1" {
		t.Errorf("grown_1 = %+v, %v", res, err)
	}
}

// allow and deny decide which tools are listed and callable.
func TestLinkAllowAndDeny(t *testing.T) {
	t.Parallel()
	s := stdioServer(t, "alpha", "ok")
	s.Allow, s.Deny = []string{"e*", "cwd"}, []string{"env"}
	l := newLink(t, s, ConnectOptions{}, nil)
	tools, err := l.Connect(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if got := namespaced(tools); !slices.Equal(got, []string{"alpha__cwd", "alpha__echo"}) {
		t.Errorf("tools = %v", got)
	}
	if _, err := l.Call(t.Context(), "alpha__env", json.RawMessage(`{"name":"HOME"}`), nil); !errors.Is(err, ErrUnknownTool) {
		t.Errorf("denied tool call = %v, want ErrUnknownTool", err)
	}
}

// Close during a connect ends the connect and its process.
func TestLinkCloseDuringConnect(t *testing.T) {
	t.Parallel()
	l := NewLink(stdioServer(t, "stuck", "stuck"), ConnectOptions{}, nil)
	done := make(chan error, 1)
	go func() { _, err := l.Connect(t.Context()); done <- err }()
	if !proctest.Await(func() bool { return l.Status().State == StateConnecting }) {
		t.Fatal("never connecting")
	}
	if err := l.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	select {
	case err := <-done:
		if err == nil {
			t.Error("Connect succeeded after Close")
		}
	case <-time.After(proctest.Patience):
		t.Fatal("Connect did not end after Close")
	}
	if _, err := l.Call(t.Context(), "stuck__echo", nil, nil); !errors.Is(err, ErrClosed) {
		t.Errorf("call after Close = %v", err)
	}
}

package transport

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// echoServer is a server with one tool, echo, that answers "ok".
func echoServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "t"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "echo"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil, nil
	})
	return s
}

// get sends method to url with the token (none when empty) and returns
// the status, the body and the headers.
func get(t *testing.T, method, url, token string) (int, string, http.Header) {
	t.Helper()
	r, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		r.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b), resp.Header
}

func TestProbesMetricsAndPprof(t *testing.T) {
	t.Parallel()
	var ready atomic.Bool
	opts := HTTPOptions{
		Token: "s3cret",
		Readiness: func() (bool, any) {
			return ready.Load(), map[string]any{"ready": ready.Load(), "plugins": []string{"files"}}
		},
		Metrics: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "calls_total 7\n") }),
		Pprof:   true,
	}
	h, err := HTTPHandler(echoServer, opts)
	if err != nil {
		t.Fatal(err)
	}
	on := httptest.NewServer(h)
	t.Cleanup(on.Close)
	opts.Metrics, opts.Pprof, opts.Readiness = nil, false, nil
	if h, err = HTTPHandler(echoServer, opts); err != nil {
		t.Fatal(err)
	}
	off := httptest.NewServer(h)
	t.Cleanup(off.Close)

	type probe struct {
		method, url, token string
		want               int
		body               string // a part of the body, when set
	}
	check := func(name string, tc probe) {
		t.Helper()
		code, body, hdr := get(t, tc.method, tc.url, tc.token)
		if code != tc.want || !strings.Contains(body, tc.body) {
			t.Errorf("%s: %s %s = %d %q, want %d with %q", name, tc.method, tc.url, code, body, tc.want, tc.body)
		}
		if code == http.StatusMethodNotAllowed && hdr.Get("Allow") != "GET, HEAD" {
			t.Errorf("%s: Allow = %q", name, hdr.Get("Allow"))
		}
	}
	for name, tc := range map[string]probe{
		"healthz without a token":       {method: "GET", url: on.URL + "/healthz", want: 200, body: `{"status":"ok"}`},
		"healthz HEAD":                  {method: "HEAD", url: on.URL + "/healthz", want: 200},
		"healthz POST":                  {method: "POST", url: on.URL + "/healthz", want: 405, body: "use GET or HEAD"},
		"healthz DELETE with the token": {method: "DELETE", url: on.URL + "/healthz", token: "s3cret", want: 405},
		"readyz not ready":              {method: "GET", url: on.URL + "/readyz", want: 503, body: `"ready":false`},
		"readyz PUT":                    {method: "PUT", url: on.URL + "/readyz", want: 405},
		"mcp still needs the token":     {method: "POST", url: on.URL + "/mcp", want: 401},
		"metrics without a token":       {method: "GET", url: on.URL + "/metrics", want: 401},
		"metrics with a wrong token":    {method: "GET", url: on.URL + "/metrics", token: "nope", want: 401},
		"metrics":                       {method: "GET", url: on.URL + "/metrics", token: "s3cret", want: 200, body: "calls_total 7"},
		"pprof without a token":         {method: "GET", url: on.URL + "/debug/pprof/", want: 401},
		"pprof":                         {method: "GET", url: on.URL + "/debug/pprof/", token: "s3cret", want: 200, body: "goroutine"},
		"pprof goroutines":              {method: "GET", url: on.URL + "/debug/pprof/goroutine?debug=1", token: "s3cret", want: 200, body: "goroutine profile"},
		"no metrics handler":            {method: "GET", url: off.URL + "/metrics", token: "s3cret", want: 404},
		"no pprof":                      {method: "GET", url: off.URL + "/debug/pprof/", token: "s3cret", want: 404},
		"no pprof goroutines":           {method: "GET", url: off.URL + "/debug/pprof/goroutine", token: "s3cret", want: 404},
		"healthz with nothing else":     {method: "GET", url: off.URL + "/healthz", want: 200, body: `{"status":"ok"}`},
	} {
		check(name, tc)
	}
	ready.Store(true)
	check("readyz ready", probe{method: "GET", url: on.URL + "/readyz", want: 200, body: `"ready":true`})
	_, body, hdr := get(t, "GET", on.URL+"/readyz", "")
	var v map[string]any
	if err := json.Unmarshal([]byte(body), &v); err != nil || hdr.Get("Content-Type") != "application/json" {
		t.Errorf("readyz body %q (%s), err %v: want JSON", body, hdr.Get("Content-Type"), err)
	}
}

// Stateless: one server answers every request, no request gets a session,
// GET and DELETE are refused, and /sse says why it is not served.
func TestStateless(t *testing.T) {
	t.Parallel()
	var made atomic.Int32
	h, err := HTTPHandler(func() *mcp.Server { made.Add(1); return echoServer() }, HTTPOptions{Stateless: true})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	var sessionIDs atomic.Int32
	client := &http.Client{Transport: roundTripper(func(r *http.Request) (*http.Response, error) {
		resp, err := http.DefaultTransport.RoundTrip(r)
		if err == nil && resp.Header.Get("Mcp-Session-Id") != "" {
			sessionIDs.Add(1)
		}
		return resp, err
	})}
	for range 2 {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "c"}, nil).Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: ts.URL + "/mcp", HTTPClient: client}, nil)
		if err != nil {
			t.Fatal(err)
		}
		for range 5 {
			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{}})
			if err != nil || res.IsError {
				t.Fatalf("echo = %+v, %v", res, err)
			}
		}
		_ = cs.Close()
	}
	if n := made.Load(); n != 1 {
		t.Errorf("%d servers made, want 1", n)
	}
	if n := sessionIDs.Load(); n != 0 {
		t.Errorf("%d answers carried a session id", n)
	}
	for _, method := range []string{"GET", "DELETE"} {
		if code, body, _ := get(t, method, ts.URL+"/mcp", ""); code != http.StatusMethodNotAllowed {
			t.Errorf("%s /mcp = %d %q, want 405", method, code, body)
		}
	}
	if code, body, _ := get(t, "GET", ts.URL+"/sse", ""); code != http.StatusNotFound || !strings.Contains(body, "--stateless") {
		t.Errorf("GET /sse = %d %q, want 404 naming --stateless", code, body)
	}
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

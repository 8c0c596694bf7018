package transport

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestOriginCheck(t *testing.T) {
	t.Parallel()
	ok := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusTeapot) })
	h, err := originCheck(ok, []string{"http://inspector.example:6274"})
	if err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct {
		method, host, origin, fetchSite string
		want                            int
	}{
		"no Origin (not a browser)":        {method: "POST", host: "127.0.0.1:8765", want: http.StatusTeapot},
		"no Origin, GET":                   {method: "GET", host: "127.0.0.1:8765", want: http.StatusTeapot},
		"same origin":                      {method: "POST", host: "127.0.0.1:8765", origin: "http://127.0.0.1:8765", want: http.StatusTeapot},
		"localhost for 127.0.0.1":          {method: "POST", host: "127.0.0.1:8765", origin: "http://localhost:8765", want: http.StatusTeapot},
		"::1 for localhost":                {method: "GET", host: "localhost:8765", origin: "http://[::1]:8765", want: http.StatusTeapot},
		"same-origin fetch":                {method: "POST", host: "127.0.0.1:8765", fetchSite: "same-origin", want: http.StatusTeapot},
		"allowed origin":                   {method: "POST", host: "127.0.0.1:8765", origin: "http://inspector.example:6274", want: http.StatusTeapot},
		"foreign origin":                   {method: "POST", host: "127.0.0.1:8765", origin: "http://evil.com", want: http.StatusForbidden},
		"foreign origin, GET (SSE)":        {method: "GET", host: "127.0.0.1:8765", origin: "http://evil.com", want: http.StatusForbidden},
		"foreign origin, OPTIONS":          {method: "OPTIONS", host: "127.0.0.1:8765", origin: "http://evil.com", want: http.StatusForbidden},
		"another local port":               {method: "POST", host: "127.0.0.1:8765", origin: "http://localhost:3000", want: http.StatusForbidden},
		"cross-site fetch":                 {method: "POST", host: "127.0.0.1:8765", fetchSite: "cross-site", want: http.StatusForbidden},
		"null origin":                      {method: "POST", host: "127.0.0.1:8765", origin: "null", want: http.StatusForbidden},
		"loopback name on a foreign host":  {method: "POST", host: "example.com:8765", origin: "http://localhost:8765", want: http.StatusForbidden},
		"allowed origin on the wrong port": {method: "POST", host: "127.0.0.1:8765", origin: "http://inspector.example:6275", want: http.StatusForbidden},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := httptest.NewRequest(tc.method, "http://"+tc.host+"/mcp", strings.NewReader("{}"))
			if tc.origin != "" {
				r.Header.Set("Origin", tc.origin)
			}
			if tc.fetchSite != "" {
				r.Header.Set("Sec-Fetch-Site", tc.fetchSite)
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if w.Code != tc.want {
				t.Errorf("status %d, want %d (%s)", w.Code, tc.want, w.Body)
			}
		})
	}
	if _, err := originCheck(ok, []string{"not an origin"}); err == nil {
		t.Error("a bad allowed origin was accepted")
	}
}

func TestForeignOriginIsRefusedBeforeTheToken(t *testing.T) {
	t.Parallel()
	h, err := HTTPHandler(func() *mcp.Server { return mcp.NewServer(&mcp.Implementation{Name: "t"}, nil) }, HTTPOptions{Token: "s3cret"})
	if err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct {
		origin, token string
		want          int
	}{
		"foreign origin, good token": {origin: "http://evil.com", token: "s3cret", want: http.StatusForbidden},
		"foreign origin, no token":   {origin: "http://evil.com", want: http.StatusForbidden},
		"no origin, no token":        {want: http.StatusUnauthorized},
		"same origin, wrong token":   {origin: "http://127.0.0.1:8765", token: "nope", want: http.StatusUnauthorized},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := httptest.NewRequest("POST", "http://127.0.0.1:8765/mcp", strings.NewReader("{}"))
			if tc.origin != "" {
				r.Header.Set("Origin", tc.origin)
			}
			if tc.token != "" {
				r.Header.Set("Authorization", "Bearer "+tc.token)
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if w.Code != tc.want {
				t.Errorf("status %d, want %d (%s)", w.Code, tc.want, w.Body)
			}
		})
	}
}

// A session gets one server of its own, made when it starts: the SDK asks
// for a server on every request, and the requests of a known session must
// not each make one (each would hold what a session holds).
func TestOneServerPerHTTPSession(t *testing.T) {
	t.Parallel()
	var made atomic.Int32
	h, err := HTTPHandler(func() *mcp.Server {
		made.Add(1)
		s := mcp.NewServer(&mcp.Implementation{Name: "t"}, nil)
		mcp.AddTool(s, &mcp.Tool{Name: "echo"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil, nil
		})
		return s
	}, HTTPOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	// session runs one session of calls calls and returns how many servers
	// it took.
	session := func(calls int) int32 {
		before := made.Load()
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "c"}, nil).Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: ts.URL + "/mcp"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		for range calls {
			if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{}}); err != nil {
				t.Fatal(err)
			}
		}
		_ = cs.Close()
		return made.Load() - before
	}
	session(1) // the shared server for known sessions' version checks
	if one, many := session(1), session(40); many != one {
		t.Errorf("a session of 1 call took %d servers, one of 40 calls %d", one, many)
	}
}

package openaiapi

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestBaseURL(t *testing.T) {
	t.Parallel()
	tests := map[string]struct{ in, want string }{
		"bare host gets v1":      {"http://127.0.0.1:11434", "http://127.0.0.1:11434/v1"},
		"slash gets v1":          {"http://127.0.0.1:11434/", "http://127.0.0.1:11434/v1"},
		"path kept, slash goes":  {"http://h:8000/openai/v1/", "http://h:8000/openai/v1"},
		"https":                  {"https://api.openai.com/v1", "https://api.openai.com/v1"},
		"query kept":             {"https://h/deployments/d?api-version=2024", "https://h/deployments/d?api-version=2024"},
		"query, no path":         {"http://h?k=v", "http://h/v1?k=v"},
		"fragment goes":          {"http://h/v1#frag", "http://h/v1"},
		"escaped path kept":      {"http://h/a%2Fb/v1/", "http://h/a%2Fb/v1"},
		"user info kept":         {"http://u:p@h:1/v1", "http://u:p@h:1/v1"},
		"endpoint itself stays":  {"http://h/v1/embeddings", "http://h/v1/embeddings"},
		"two slashes, one stays": {"http://h//", "http://h/"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			u, err := BaseURL(tc.in)
			if err != nil || u.String() != tc.want {
				t.Errorf("BaseURL(%q) = %v, %v; want %q", tc.in, u, err, tc.want)
			}
		})
	}
	for _, bad := range []string{"", "localhost:11434", "ftp://h/v1", "http://", "/v1", "http://h:bad port/"} {
		if u, err := BaseURL(bad); !errors.Is(err, ErrNotHTTP) {
			t.Errorf("BaseURL(%q) = %v, %v; want ErrNotHTTP", bad, u, err)
		}
	}
}

// server answers every request with handler and records the last one.
type server struct {
	*httptest.Server
	mu   sync.Mutex
	req  *http.Request
	body string
}

// last is the last request and its body.
func (s *server) last() (*http.Request, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.req, s.body
}

func newServer(t *testing.T, handler func(w http.ResponseWriter)) *server {
	t.Helper()
	s := &server{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.req, s.body = r, string(b)
		s.mu.Unlock()
		handler(w)
	}))
	t.Cleanup(s.Close)
	return s
}

func TestPost(t *testing.T) {
	t.Parallel()
	s := newServer(t, func(w http.ResponseWriter) {
		w.Header().Set("X-Test", "yes")
		w.WriteHeader(http.StatusCreated)
		_, _ = io.WriteString(w, `{"ok":true}`)
	})
	c := &Client{HTTP: s.Client(), Key: "sk-test"}
	a, err := c.Post(context.Background(), s.URL+"/v1/x", []byte(`{"model":"m"}`))
	if err != nil {
		t.Fatal(err)
	}
	if a.Status != http.StatusCreated || string(a.Body) != `{"ok":true}` || a.Cut || a.Header.Get("X-Test") != "yes" {
		t.Errorf("answer = %+v", a)
	}
	req, body := s.last()
	if req.Method != http.MethodPost || req.URL.Path != "/v1/x" || body != `{"model":"m"}` {
		t.Errorf("sent %s %s %q", req.Method, req.URL.Path, body)
	}
	for k, want := range map[string]string{"Authorization": "Bearer sk-test", "Content-Type": "application/json", "Accept": "application/json"} {
		if got := req.Header.Get(k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}

	// No key, no Authorization; a nil HTTP client is http.DefaultClient.
	if _, err := (&Client{}).Post(context.Background(), s.URL, nil); err != nil {
		t.Fatal(err)
	}
	if req, _ := s.last(); req.Header.Get("Authorization") != "" {
		v := req.Header.Get("Authorization")
		t.Errorf("no key, but Authorization = %q", v)
	}
}

func TestPostCutsALongAnswer(t *testing.T) {
	t.Parallel()
	s := newServer(t, func(w http.ResponseWriter) { _, _ = io.WriteString(w, "0123456789") })
	for limit, want := range map[int64]struct {
		body string
		cut  bool
	}{9: {"012345678", true}, 10: {"0123456789", false}, 11: {"0123456789", false}} {
		a, err := (&Client{HTTP: s.Client(), MaxBody: limit}).Post(context.Background(), s.URL, nil)
		if err != nil || string(a.Body) != want.body || a.Cut != want.cut {
			t.Errorf("MaxBody %d: %+v, %v; want %q, cut %v", limit, a, err, want.body, want.cut)
		}
	}
}

func TestPostStatusError(t *testing.T) {
	t.Parallel()
	const key = "sk-SECRET0123456789"
	tests := map[string]struct {
		code   int
		body   string
		want   string
		header string
	}{
		"openai, key echoed":      {401, `{"error":{"message":"Incorrect API key provided: ` + key + `","type":"invalid_request_error","code":"invalid_api_key"}}`, "401 Unauthorized: Incorrect API key provided: [redacted]", ""},
		"ollama":                  {404, `{"error":"model \"nope\" not found, try pulling it first"}`, `404 Not Found: model "nope" not found, try pulling it first`, ""},
		"llama.cpp":               {400, `{"error":{"code":400,"message":"the request exceeds the available context size","type":"exceed_context_size_error"}}`, "400 Bad Request: the request exceeds the available context size", ""},
		"vllm":                    {400, `{"object":"error","message":"maximum context length is 8192 tokens","type":"BadRequestError","code":400}`, "400 Bad Request: maximum context length is 8192 tokens", ""},
		"text":                    {502, "<html>bad\n gateway</html>", "502 Bad Gateway: <html>bad gateway</html>", ""},
		"empty":                   {503, "", "503 Service Unavailable", ""},
		"rate limit header":       {429, `{}`, "429 Too Many Requests: {}", "7"},
		"a redirect not followed": {304, "", "304 Not Modified", ""},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := newServer(t, func(w http.ResponseWriter) {
				if tc.header != "" {
					w.Header().Set("Retry-After", tc.header)
				}
				w.WriteHeader(tc.code)
				_, _ = io.WriteString(w, tc.body)
			})
			a, err := (&Client{HTTP: s.Client(), Key: key}).Post(context.Background(), s.URL, nil)
			var se *StatusError
			if a != nil || !errors.As(err, &se) {
				t.Fatalf("Post = %+v, %v; want a *StatusError", a, err)
			}
			if se.Code != tc.code || se.Status() != tc.want || err.Error() != "HTTP "+tc.want || se.Header.Get("Retry-After") != tc.header {
				t.Errorf("error = %d %q (%q, Retry-After %q); want %d %q", se.Code, se.Status(), err, se.Header.Get("Retry-After"), tc.code, tc.want)
			}
			if strings.Contains(string(se.Body), key) {
				t.Errorf("the body shows the key: %s", se.Body)
			}
		})
	}
}

func TestPostTransportFailures(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + l.Addr().String()
	_ = l.Close()
	_, err = (&Client{}).Post(context.Background(), closed, nil)
	if !Refused(err) || NoSuchHost(err) || TimedOut(err) {
		t.Errorf("closed port: %v: Refused %v, NoSuchHost %v, TimedOut %v", err, Refused(err), NoSuchHost(err), TimedOut(err))
	}

	_, err = (&Client{}).Post(context.Background(), "http://no-such-host.invalid/v1", nil)
	if !NoSuchHost(err) || Refused(err) {
		t.Errorf("no such host: %v: NoSuchHost %v, Refused %v", err, NoSuchHost(err), Refused(err))
	}

	done := make(chan struct{})
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-done:
		}
	}))
	t.Cleanup(hang.Close)
	t.Cleanup(func() { close(done) })
	hc := &http.Client{Timeout: 50 * time.Millisecond}
	_, err = (&Client{HTTP: hc}).Post(context.Background(), hang.URL, nil)
	if !TimedOut(err) || Refused(err) {
		t.Errorf("hung server, client timeout: %v: TimedOut %v", err, TimedOut(err))
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err = (&Client{}).Post(ctx, hang.URL, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v, want context.Canceled", err)
	}
	if _, err = (&Client{}).Post(context.Background(), "http://h/\x7f", nil); err == nil {
		t.Error("a bad URL: no error")
	}
}

func TestNewHTTPClient(t *testing.T) {
	t.Parallel()
	hc := NewHTTPClient(time.Minute)
	tr, ok := hc.Transport.(*http.Transport)
	if !ok || tr == http.DefaultTransport || tr.ResponseHeaderTimeout != time.Minute || tr.Proxy == nil {
		t.Errorf("transport = %#v, want a clone of http.DefaultTransport with a 1m response-header timeout", hc.Transport)
	}
}

package embedding_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ramabana/ramabana-mcp/host/internal/embedding"
	"github.com/ramabana/ramabana-mcp/host/internal/embedding/embedtest"
)

func newClient(t *testing.T, cfg embedding.Config) *embedding.Client {
	t.Helper()
	if cfg.Model == "" {
		cfg.Model = "fake-embed"
	}
	c, err := embedding.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestEndpoint(t *testing.T) {
	t.Parallel()
	tests := map[string]struct{ url, want, err string }{
		"host only gets /v1, as --model-url": {url: "http://127.0.0.1:11434", want: "http://127.0.0.1:11434/v1/embeddings"},
		"host and slash":                     {url: "http://127.0.0.1:11434/", want: "http://127.0.0.1:11434/v1/embeddings"},
		"base URL":                           {url: "https://api.openai.com/v1", want: "https://api.openai.com/v1/embeddings"},
		"base URL and slash":                 {url: "http://h:8080/v1/", want: "http://h:8080/v1/embeddings"},
		"other base path":                    {url: "http://h/api/openai", want: "http://h/api/openai/embeddings"},
		"the endpoint itself":                {url: "http://h/v1/embeddings", want: "http://h/v1/embeddings"},
		"the endpoint, a query kept":         {url: "https://h/openai/deployments/d/embeddings/?api-version=2024", want: "https://h/openai/deployments/d/embeddings?api-version=2024"},
		"no scheme":                          {url: "127.0.0.1:11434", err: "not an http(s) URL"},
		"other scheme":                       {url: "ftp://h/v1", err: "not an http(s) URL"},
		"empty":                              {url: "", err: "not an http(s) URL"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, err := embedding.Endpoint(tc.url)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("Endpoint(%q) = %q, %v; want an error with %q", tc.url, got, err, tc.err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("Endpoint(%q) = %q, %v; want %q", tc.url, got, err, tc.want)
			}
		})
	}
	if _, err := embedding.New(embedding.Config{URL: "http://h/v1"}); err == nil {
		t.Error("New without a model: no error")
	}
}

func TestEmbedBatches(t *testing.T) {
	t.Parallel()
	fake := embedtest.New(t)
	c := newClient(t, embedding.Config{URL: fake.URL})
	texts := make([]string, 150)
	for i := range texts {
		texts[i] = fmt.Sprintf("tool number %d reads file %d", i, i%7)
	}
	vecs, err := c.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	if len(vecs) != len(texts) {
		t.Fatalf("%d vectors for %d texts", len(vecs), len(texts))
	}
	for i, v := range vecs {
		if diff := cmp.Diff(embedtest.Vector(texts[i]), v); diff != "" {
			t.Fatalf("vector %d is not its text's (-want +got):\n%s", i, diff)
		}
	}
	if got := fake.Requests(); got != 3 {
		t.Errorf("%d requests for 150 texts, want 3 (64 a request)", got)
	}
	if diff := cmp.Diff(texts, fake.Inputs()); diff != "" {
		t.Errorf("inputs sent (-want +got):\n%s", diff)
	}
	if got := fake.Models(); got[0] != "fake-embed" {
		t.Errorf("model sent = %q", got[0])
	}

	vecs, err = c.Embed(context.Background(), nil)
	if err != nil || len(vecs) != 0 || fake.Requests() != 3 {
		t.Errorf("no text: %v, %v, %d requests", vecs, err, fake.Requests())
	}
}

func TestEmbedKey(t *testing.T) {
	t.Parallel()
	fake := embedtest.New(t)
	fake.RequireKey("sk-right")
	if _, err := newClient(t, embedding.Config{URL: fake.URL, APIKey: "sk-right"}).Embed(context.Background(), []string{"a"}); err != nil {
		t.Fatal(err)
	}

	_, err := newClient(t, embedding.Config{URL: fake.URL, APIKey: "sk-wrong-secret", KeyEnv: "EMBED_KEY"}).Embed(context.Background(), []string{"a"})
	if !errors.Is(err, embedding.ErrAuth) {
		t.Fatalf("wrong key: %v, want ErrAuth", err)
	}
	// The fake echoes the key it was sent, as real servers do.
	for _, want := range []string{"401 Unauthorized", "Incorrect API key provided", "[redacted]", "check the API key in $EMBED_KEY", `model "fake-embed"`, fake.URL + "/embeddings"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "sk-wrong-secret") {
		t.Errorf("error shows the key: %q", err)
	}

	// A key echoed where the server's message is cut to 500 bytes: no
	// part of it shows, in the message or in Detail.
	const key = "sk-THISISASECRETKEY0123456789"
	echo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprintf(w, `{"error":{"message":"%s%s"}}`, strings.Repeat("x", 490), key)
	}))
	t.Cleanup(echo.Close)
	_, err = newClient(t, embedding.Config{URL: echo.URL + "/v1?api-key=querysecret", APIKey: key}).Embed(context.Background(), []string{"a"})
	var e *embedding.Error
	if !errors.As(err, &e) {
		t.Fatalf("echoing server: %v", err)
	}
	for _, leak := range []string{key[:8], "querysecret"} {
		if strings.Contains(err.Error(), leak) || strings.Contains(e.Detail, leak) || strings.Contains(e.URL, leak) {
			t.Errorf("error shows %q: %q (Detail %q)", leak, err, e.Detail)
		}
	}

	_, err = newClient(t, embedding.Config{URL: fake.URL, KeyEnv: "EMBED_KEY"}).Embed(context.Background(), []string{"a"})
	if !errors.Is(err, embedding.ErrAuth) || !strings.Contains(err.Error(), "no API key was sent: set $EMBED_KEY") {
		t.Errorf("no key: %v", err)
	}
	if diff := cmp.Diff([]string{"Bearer sk-right", "Bearer sk-wrong-secret", ""}, fake.Authorizations()); diff != "" {
		t.Errorf("Authorization headers (-want +got):\n%s", diff)
	}
}

func TestEmbedServerErrors(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		status int
		kind   error
		want   string
	}{
		"server error": {status: 503, kind: embedding.ErrServer, want: "the server failed (503 Service Unavailable: the fake embeddings server is failing on purpose)"},
		"rejected":     {status: 400, kind: embedding.ErrRejected, want: "the server rejected the request (400 Bad Request: the fake embeddings server is failing on purpose)"},
		"rate limited": {status: 429, kind: embedding.ErrRejected, want: "429 Too Many Requests"},
		"forbidden":    {status: 403, kind: embedding.ErrAuth, want: "403 Forbidden"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			fake := embedtest.New(t)
			fake.Fail(tc.status)
			_, err := newClient(t, embedding.Config{URL: fake.URL}).Embed(context.Background(), []string{"a"})
			var e *embedding.Error
			if !errors.Is(err, tc.kind) || !errors.As(err, &e) || e.Status != tc.status || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error = %v, want %v with %q", err, tc.kind, tc.want)
			}
		})
	}
}

func TestEmbedBadAnswers(t *testing.T) {
	t.Parallel()
	datum := func(index int, v ...float64) map[string]any {
		return map[string]any{"object": "embedding", "index": index, "embedding": v}
	}
	list := func(data ...any) any { return map[string]any{"object": "list", "data": data} }
	tests := map[string]struct {
		answer func([]string) any
		want   string
	}{
		"too few":          {answer: func([]string) any { return list(datum(0, 1, 2)) }, want: "1 vectors for 2 texts"},
		"too many":         {answer: func([]string) any { return list(datum(0, 1), datum(1, 1), datum(2, 1)) }, want: "3 vectors for 2 texts"},
		"repeated index":   {answer: func([]string) any { return list(datum(0, 1), datum(0, 1)) }, want: "vector 1 has index 0: out of range or repeated"},
		"index too large":  {answer: func([]string) any { return list(datum(0, 1), datum(2, 1)) }, want: "vector 1 has index 2"},
		"unequal lengths":  {answer: func([]string) any { return list(datum(0, 1, 2), datum(1, 1, 2, 3)) }, want: "vector 1 has 3 dimensions, another 2"},
		"empty vector":     {answer: func([]string) any { return list(datum(0), datum(1, 1)) }, want: "vector 0 is empty"},
		"not finite":       {answer: func([]string) any { return list(datum(0, 1), datum(1, 1e39)) }, want: "not a finite number"},
		"not a list":       {answer: func([]string) any { return "hello" }, want: `not an embeddings list: "hello"`},
		"a list of nulls":  {answer: func([]string) any { return list(nil, nil) }, want: "vector 0 is empty"},
		"no data at all":   {answer: func([]string) any { return map[string]any{} }, want: "0 vectors for 2 texts"},
		"base64, unasked":  {answer: func([]string) any { return list(map[string]any{"index": 0, "embedding": "AACAPw=="}, datum(1, 1)) }, want: "not an embeddings list"},
		"wrong index type": {answer: func([]string) any { return list(map[string]any{"index": "0", "embedding": []float64{1}}, datum(1, 1)) }, want: "not an embeddings list"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			fake := embedtest.New(t)
			fake.Answer(tc.answer)
			_, err := newClient(t, embedding.Config{URL: fake.URL}).Embed(context.Background(), []string{"a", "b"})
			if !errors.Is(err, embedding.ErrBadResponse) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error = %v, want ErrBadResponse with %q", err, tc.want)
			}
		})
	}

	t.Run("indexes out of order are put in order", func(t *testing.T) {
		t.Parallel()
		fake := embedtest.New(t)
		fake.Answer(func([]string) any { return list(datum(1, 2, 2), datum(0, 1, 1)) })
		got, err := newClient(t, embedding.Config{URL: fake.URL}).Embed(context.Background(), []string{"a", "b"})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([][]float32{{1, 1}, {2, 2}}, got); diff != "" {
			t.Errorf("vectors (-want +got):\n%s", diff)
		}
	})
	t.Run("dimensions that change between batches", func(t *testing.T) {
		t.Parallel()
		fake := embedtest.New(t)
		fake.Answer(func(in []string) any {
			v := make([]float64, len(in[0]))
			return list(datum(0, v...))
		})
		_, err := newClient(t, embedding.Config{URL: fake.URL, BatchSize: 1}).Embed(context.Background(), []string{"ab", "abc"})
		if !errors.Is(err, embedding.ErrBadResponse) || !strings.Contains(err.Error(), "vectors of 2 dimensions, then of 3") {
			t.Errorf("error = %v", err)
		}
	})
}

func TestEmbedUnreachable(t *testing.T) {
	t.Parallel()
	hs := httptest.NewServer(http.NotFoundHandler())
	url := hs.URL
	hs.Close()
	_, err := newClient(t, embedding.Config{URL: url}).Embed(context.Background(), []string{"a"})
	if !errors.Is(err, embedding.ErrUnreachable) || !strings.Contains(err.Error(), "connection refused") {
		t.Errorf("closed server: %v", err)
	}
}

// A server that never answers: the request's own timeout ends it, and the
// caller's context, if it ends first, is the error.
func TestEmbedTimeouts(t *testing.T) {
	t.Parallel()
	done := make(chan struct{})
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body) // then the server notices the client going
		select {
		case <-r.Context().Done():
		case <-done:
		}
	}))
	t.Cleanup(hang.Close)
	t.Cleanup(func() { close(done) }) // runs first

	_, err := newClient(t, embedding.Config{URL: hang.URL, Timeout: 50 * time.Millisecond}).Embed(context.Background(), []string{"a"})
	if !errors.Is(err, embedding.ErrUnreachable) || !strings.Contains(err.Error(), "no answer within 50ms") {
		t.Errorf("hung server: %v", err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := newClient(t, embedding.Config{URL: hang.URL, Timeout: time.Hour}).Embed(ctx, []string{"a"})
		errc <- err
	}()
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v, want context.Canceled", err)
	}
}

func TestEmbedCutsLongInputs(t *testing.T) {
	t.Parallel()
	fake := embedtest.New(t)
	long := strings.Repeat("é", 2000) // 4,000 bytes
	if _, err := newClient(t, embedding.Config{URL: fake.URL}).Embed(context.Background(), []string{long, "short"}); err != nil {
		t.Fatal(err)
	}
	if _, err := newClient(t, embedding.Config{URL: fake.URL, MaxInputBytes: -1}).Embed(context.Background(), []string{long}); err != nil {
		t.Fatal(err)
	}
	in := fake.Inputs()
	if len(in[0]) != embedding.DefaultMaxInputBytes || in[0] != long[:embedding.DefaultMaxInputBytes] || in[1] != "short" || in[2] != long {
		t.Errorf("sent %d, %q and %d bytes", len(in[0]), in[1], len(in[2]))
	}
}

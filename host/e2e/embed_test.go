package e2e

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/ramabana/ramabana-mcp/host/internal/embedding"
	"github.com/ramabana/ramabana-mcp/host/internal/embedding/embedtest"
	"github.com/ramabana/ramabana-mcp/internal/proctest"
)

// embeddingsStatus waits until the status's embeddings satisfy cond, and
// returns them.
func embeddingsStatus(t *testing.T, s *server, what string, cond func(map[string]any) bool) map[string]any {
	t.Helper()
	var emb map[string]any
	if !proctest.Await(func() bool {
		emb, _ = status(t, s.session)["embeddings"].(map[string]any)
		return emb != nil && cond(emb)
	}) {
		t.Fatalf("embeddings never %s: %v; stderr:\n%s", what, emb, s.stderr)
	}
	return emb
}

func embeddingsSynced(emb map[string]any) bool {
	return emb["tools"].(float64) > 0 && emb["pending"].(float64) == 0 && emb["syncing"] == false
}

// With --embed-model and --embed-url, search_capabilities finds a tool by
// what a query means, the API key goes as a bearer token, and a restart
// with the same tools embeds nothing again.
func TestHybridSearchThroughTheBinary(t *testing.T) {
	t.Parallel()
	fake := embedtest.New(t)
	fake.RequireKey("sk-e2e-key")
	cfg := t.TempDir()
	start := func() *server {
		s := startStdioEnv(t, []string{"RAMABANA_EMBED_KEY=sk-e2e-key"}, project(t),
			"--cfg", cfg, "--embed-model", "fake-embed", "--embed-url", fake.URL)
		tools(t, s.session) // the catalog has settled
		return s
	}
	s := start()
	emb := embeddingsStatus(t, s, "synced", embeddingsSynced)
	if emb["model"] != "fake-embed" || emb["url"] != fake.URL+"/embeddings" || emb["failing"] != false {
		t.Errorf("status = %v", emb)
	}
	embedded := emb["tools"].(float64)

	// "chronicle" and "revisions" are in no tool's text: only their meaning
	// (log, commit) finds git_log.
	const query = "chronicle of revisions"
	if names := searchNames(t, s.session, query); len(names) == 0 || names[0] != "git_log" {
		t.Errorf("%q found %v, want git_log first", query, names)
	}
	for _, a := range fake.Authorizations() {
		if a != "Bearer sk-e2e-key" {
			t.Errorf("Authorization %q, want the key of $RAMABANA_EMBED_KEY", a)
		}
	}
	s.stop(t)

	requests := fake.Requests()
	s = start()
	embeddingsStatus(t, s, "loaded from the cache", func(emb map[string]any) bool {
		return embeddingsSynced(emb) && emb["tools"].(float64) == embedded
	})
	if got := fake.Requests() - requests; got != 0 {
		t.Errorf("a restart with the same tools sent %d requests", got)
	}
	if _, err := os.Stat(embedding.CachePath(cfg, "fake-embed")); err != nil {
		t.Errorf("no cache file: %v", err)
	}
	if names := searchNames(t, s.session, query); len(names) == 0 || names[0] != "git_log" {
		t.Errorf("after the restart %q found %v", query, names)
	}
}

// A failing embeddings server: search_capabilities answers with BM25's
// ranking, and one log line says why.
func TestHybridSearchServerDown(t *testing.T) {
	t.Parallel()
	fake := embedtest.New(t)
	fake.Fail(503)
	s := startStdio(t, project(t), "--embed-model", "fake-embed", "--embed-url", fake.URL)
	embeddingsStatus(t, s, "failing", func(emb map[string]any) bool { return emb["failing"] == true })
	got, res := searchFor(t, s.session, map[string]any{"query": "show the commit history"})
	if res.IsError || !slices.Contains(got.names(), "git_log") {
		t.Errorf("with the embeddings server down: %v %v", got.names(), text(res))
	}
	// What TestHybridSearchThroughTheBinary finds by meaning, BM25 alone
	// does not.
	if names := searchNames(t, s.session, "chronicle of revisions"); len(names) > 0 && names[0] == "git_log" {
		t.Errorf("BM25 alone finds git_log for a query that shares no word with it (%v): the hybrid test needs another query", names)
	}
	if !s.logged("embeddings server failing") {
		t.Fatalf("no log line for the failing server:\n%s", s.stderr)
	}
	if n := strings.Count(s.stderr.String(), "embeddings server failing"); n != 1 {
		t.Errorf("%d log lines for the failing server, want 1:\n%s", n, s.stderr)
	}
}

func TestEmbedFlags(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		args []string
		want string
	}{
		"model without URL": {args: []string{"--embed-model", "m"}, want: "--embed-model needs --embed-url"},
		"URL without model": {args: []string{"--embed-url", "http://127.0.0.1:1/v1"}, want: "--embed-url needs --embed-model"},
		"not http":          {args: []string{"--embed-model", "m", "--embed-url", "ftp://127.0.0.1/v1"}, want: `--embed-url: embeddings URL "ftp://127.0.0.1/v1" is not an http(s) URL`},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			cmd := exec.Command(binary, append([]string{"--root", t.TempDir(), "--cfg", t.TempDir()}, tc.args...)...)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			err := cmd.Run()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != 2 || !strings.Contains(stderr.String(), tc.want) {
				t.Errorf("exit %v, stderr %q; want status 2 (a usage error) and %q", err, stderr.String(), tc.want)
			}
		})
	}
}

package hub

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ramabana/ramabana-mcp/host/internal/embedding"
	"github.com/ramabana/ramabana-mcp/host/internal/embedding/embedtest"
	"github.com/ramabana/ramabana-mcp/internal/proctest"
	"github.com/ramabana/ramabana-mcp/sdk"
)

// probeTools are a small catalog in which the fake embeddings server's
// synonyms matter: "what is on my monitor" shares no word with
// take_screenshot, but means it.
var probeTools = map[string]string{
	"take_screenshot": "Capture the screen as an image.",
	"view_file":       "Show the lines of a file.",
	"list_directory":  "List the entries of a folder.",
	"git_log":         "Show the commit history.",
}

// probeBox is a group of tools named and described by tools.
func probeBox(group string, tools map[string]string) *sdk.Toolbox {
	box := sdk.NewToolbox(group, sdk.WithVersion("1"), sdk.WithDescription(group))
	var ts []sdk.Tool
	for _, name := range slices.Sorted(maps.Keys(tools)) {
		ts = append(ts, sdk.Tool{
			Spec: sdk.ToolSpec{Name: name, Description: tools[name], Kind: sdk.KindRead, InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)},
			Handler: func(context.Context, *sdk.Request) (*sdk.Result, error) {
				return sdk.TextResult("ok"), nil
			},
		})
	}
	box.AddGroup(sdk.GroupSpec{Name: group}, ts...)
	return box
}

// embedHost starts a host serving probeTools with embeddings from fake
// (nil: BM25 alone), its cache in cfg ("": none); tune may set the
// searcher's test knobs before anything is indexed.
func embedHost(t *testing.T, fake *embedtest.Server, cfg string, tools map[string]string, tune func(*Host)) (*Host, *proctest.Output) {
	t.Helper()
	logs := &proctest.Output{}
	c := Config{
		Roots: []string{t.TempDir()}, ConfigDir: cfg, Web: true, StartTimeout: time.Minute,
		Logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
	}
	if fake != nil {
		client, err := embedding.New(embedding.Config{URL: fake.URL, Model: "fake-embed"})
		if err != nil {
			t.Fatal(err)
		}
		c.Embed = client
	}
	h, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.Close() })
	if tune != nil {
		tune(h)
	}
	if err := h.AddGroup("probe", probeBox("probe", tools)); err != nil {
		t.Fatal(err)
	}
	if err := h.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	return h, logs
}

// awaitEmbeddings waits until cond holds of the embeddings' status.
func awaitEmbeddings(t *testing.T, h *Host, logs *proctest.Output, what string, cond func(*EmbeddingStatus) bool) *EmbeddingStatus {
	t.Helper()
	var st *EmbeddingStatus
	if !proctest.Await(func() bool { st = h.EmbeddingStatus(); return cond(st) }) {
		t.Fatalf("embeddings never %s: %+v; logs:\n%s", what, st, logs)
	}
	return st
}

// synced: every tool has its vector, saved.
func synced(st *EmbeddingStatus) bool { return st.Tools > 0 && st.Pending == 0 && !st.Syncing }

func searchNames(t *testing.T, h *Host, query string) []string {
	t.Helper()
	res, err := h.Search(context.Background(), query, 8, "")
	if err != nil {
		t.Fatalf("Search(%q): %v", query, err)
	}
	out := []string{}
	for _, s := range res.Servers {
		for _, tl := range s.Tools {
			out = append(out, tl.Name)
		}
	}
	return out
}

func TestHybridSearchFindsWhatNoWordMatches(t *testing.T) {
	t.Parallel()
	bm25, _ := embedHost(t, nil, "", probeTools, nil)
	fake := embedtest.New(t)
	hybrid, logs := embedHost(t, fake, "", probeTools, nil)
	awaitEmbeddings(t, hybrid, logs, "synced", synced)

	if got := searchNames(t, bm25, "what is on my monitor"); len(got) != 0 {
		t.Fatalf("BM25 alone finds %v for a query that shares no word with a tool: the test needs another query", got)
	}
	if got := searchNames(t, hybrid, "what is on my monitor"); len(got) == 0 || got[0] != "take_screenshot" {
		t.Errorf("hybrid: %v, want take_screenshot first", got)
	}
	// Both rankings contribute: the words' matches come first (each has
	// two RRF terms), in an order the meaning may change, and the tool
	// only the meaning matches comes next.
	lexical := searchNames(t, bm25, "show what is on my monitor")
	fused := searchNames(t, hybrid, "show what is on my monitor")
	n := len(lexical)
	if n == 0 || slices.Contains(lexical, "take_screenshot") || len(fused) <= n ||
		!cmp.Equal(slices.Sorted(slices.Values(fused[:n])), slices.Sorted(slices.Values(lexical))) || fused[n] != "take_screenshot" {
		t.Errorf("BM25 %v, hybrid %v: want BM25's tools, then take_screenshot", lexical, fused)
	}
	// The keep filter applies to the dense ranking too.
	res, err := hybrid.Search(context.Background(), "what is on my monitor", 8, "session")
	if err != nil || slices.ContainsFunc(res.Servers, func(s ServerInfo) bool { return s.Name != "session" }) {
		t.Errorf("server=session gave %+v, %v", res, err)
	}

	st := hybrid.Status().Embeddings
	if st == nil || st.Model != "fake-embed" || st.URL != fake.URL+"/embeddings" || st.Tools < len(probeTools) || st.Failing {
		t.Errorf("status = %+v", st)
	}
	if bm25.Status().Embeddings != nil {
		t.Error("a host without embeddings reports their status")
	}
}

// Only what changed is embedded: a new group's tools, a changed
// description; a restart with the catalog unchanged sends nothing.
func TestEmbeddingsIncrementalAndCached(t *testing.T) {
	t.Parallel()
	cfg := t.TempDir()
	fake := embedtest.New(t)
	h1, logs := embedHost(t, fake, cfg, probeTools, nil)
	st := awaitEmbeddings(t, h1, logs, "synced", synced)
	tools := st.Tools
	if got := len(fake.Inputs()); got != tools {
		t.Errorf("%d texts sent for %d tools", got, tools)
	}
	if !slices.Contains(fake.Inputs(), "take screenshot\nCapture the screen as an image.\nParameters: path") {
		t.Errorf("the texts sent are not Doc.Text's: %q", fake.Inputs())
	}

	before := len(fake.Inputs())
	if err := h1.AddGroup("extra", probeBox("extra", map[string]string{"ring_bell": "Ring the bell."})); err != nil {
		t.Fatal(err)
	}
	awaitEmbeddings(t, h1, logs, "synced with the new group", func(st *EmbeddingStatus) bool { return synced(st) && st.Tools == tools+1 })
	if diff := cmp.Diff([]string{"ring bell\nRing the bell.\nParameters: path"}, fake.Inputs()[before:]); diff != "" {
		t.Errorf("a new group sent (-want +got):\n%s", diff)
	}
	_ = h1.Close()

	requests := fake.Requests()
	h2, logs := embedHost(t, fake, cfg, probeTools, nil)
	awaitEmbeddings(t, h2, logs, "loaded from the cache", func(st *EmbeddingStatus) bool { return synced(st) && st.Tools == tools })
	if got := fake.Requests(); got != requests {
		t.Errorf("a restart with the catalog unchanged sent %d requests; logs:\n%s", got-requests, logs)
	}
	if got := searchNames(t, h2, "what is on my monitor"); len(got) == 0 || got[0] != "take_screenshot" || fake.Requests() != requests+1 {
		t.Errorf("after the restart: %v, %d requests (want the query's alone)", got, fake.Requests()-requests)
	}
	_ = h2.Close()

	changed := maps.Clone(probeTools)
	changed["git_log"] = "Show the commit history, newest first."
	before = len(fake.Inputs())
	h3, logs := embedHost(t, fake, cfg, changed, nil)
	awaitEmbeddings(t, h3, logs, "synced", func(st *EmbeddingStatus) bool { return synced(st) && st.Tools == tools })
	if diff := cmp.Diff([]string{"git log\nShow the commit history, newest first.\nParameters: path"}, fake.Inputs()[before:]); diff != "" {
		t.Errorf("a changed description sent (-want +got):\n%s", diff)
	}

	// A save while the host starts drops nothing (tools still arrive);
	// once it has started, a save keeps only what the catalog uses: the
	// old git_log and ring_bell go.
	c := embedding.NewCache(embedding.CachePath(cfg, "fake-embed"))
	<-h3.Ready()
	if err := h3.AddGroup("extra", probeBox("extra", map[string]string{"ring_gong": "Ring the gong."})); err != nil {
		t.Fatal(err)
	}
	awaitEmbeddings(t, h3, logs, "synced with the new group", func(st *EmbeddingStatus) bool { return synced(st) && st.Tools == tools+1 })
	if err := c.Load(); err != nil || c.Len() != tools+1 {
		t.Errorf("cache file: %v, %d entries, want %d", err, c.Len(), tools+1)
	}
}

func TestEmbeddingsCorruptCache(t *testing.T) {
	t.Parallel()
	cfg := t.TempDir()
	path := embedding.CachePath(cfg, "fake-embed")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("RBEMBED1 and then nonsense"), 0o600); err != nil {
		t.Fatal(err)
	}
	fake := embedtest.New(t)
	h, logs := embedHost(t, fake, cfg, probeTools, nil)
	st := awaitEmbeddings(t, h, logs, "synced", synced)
	if !strings.Contains(logs.String(), "embeddings cache not loaded: starting empty") || !strings.Contains(logs.String(), "corrupt") {
		t.Errorf("no log line about the damaged cache:\n%s", logs)
	}
	if len(fake.Inputs()) != st.Tools {
		t.Errorf("%d texts sent for %d tools", len(fake.Inputs()), st.Tools)
	}
	c := embedding.NewCache(path)
	if err := c.Load(); err != nil || c.Len() != st.Tools {
		t.Errorf("the cache was not rewritten whole: %v, %d entries", err, c.Len())
	}
}

// handClock is a clock tests move by hand.
type handClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *handClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *handClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// A failing server: searches rank by BM25 alone, one log line says so,
// and the server is left alone for a while; when it answers again,
// searches are hybrid again, and a new failure is logged again.
func TestEmbeddingsServerFailingDegradesToBM25(t *testing.T) {
	t.Parallel()
	bm25, _ := embedHost(t, nil, "", probeTools, nil)
	fake := embedtest.New(t)
	clk := &handClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	h, logs := embedHost(t, fake, "", probeTools, func(h *Host) {
		h.search.embedRetry = time.Hour
		h.search.embedClock = clk.Now
	})
	awaitEmbeddings(t, h, logs, "synced", synced)
	failing := func() int { return strings.Count(logs.String(), "embeddings server failing") }
	const query = "show the commit history"
	want := searchNames(t, bm25, query)

	fake.Fail(http.StatusInternalServerError)
	requests := fake.Requests()
	for range 3 {
		if got := searchNames(t, h, query); !cmp.Equal(got, want) {
			t.Errorf("with the server failing: %v, want BM25's %v", got, want)
		}
	}
	if got := searchNames(t, h, "what is on my monitor"); len(got) != 0 {
		t.Errorf("with the server failing, a query no word matches found %v", got)
	}
	if n := failing(); n != 1 {
		t.Errorf("%d log lines for a failing server, want 1:\n%s", n, logs)
	}
	if got := fake.Requests() - requests; got != 1 {
		t.Errorf("%d requests while the server fails, want 1: searches leave it alone for a while", got)
	}
	st := h.EmbeddingStatus()
	if !st.Failing || !strings.Contains(st.LastError, "500 Internal Server Error") {
		t.Errorf("status = %+v", st)
	}

	clk.Advance(time.Hour + time.Second)
	searchNames(t, h, query)
	if got := fake.Requests() - requests; got != 2 || failing() != 1 {
		t.Errorf("after the wait: %d requests, %d log lines; want 2 and 1", got, failing())
	}

	fake.Fail(0)
	clk.Advance(time.Hour + time.Second)
	if got := searchNames(t, h, "what is on my monitor"); len(got) == 0 || got[0] != "take_screenshot" {
		t.Errorf("the server answers again, yet: %v", got)
	}
	if n := strings.Count(logs.String(), "embeddings server answers again"); n != 1 {
		t.Errorf("%d log lines for the recovery, want 1", n)
	}
	if st := h.EmbeddingStatus(); st.Failing || st.LastError != "" {
		t.Errorf("status after the recovery = %+v", st)
	}

	fake.Fail(http.StatusServiceUnavailable)
	searchNames(t, h, query)
	if n := failing(); n != 2 {
		t.Errorf("%d log lines after failing again, want 2:\n%s", n, logs)
	}
}

// A server down from the start: the worker tries again, quietly, and
// embeds everything once it answers.
func TestEmbeddingsServerDownAtStart(t *testing.T) {
	t.Parallel()
	bm25, _ := embedHost(t, nil, "", probeTools, nil)
	fake := embedtest.New(t)
	fake.Fail(http.StatusServiceUnavailable)
	h, logs := embedHost(t, fake, "", probeTools, func(h *Host) { h.search.embedRetry = 10 * time.Millisecond })
	awaitEmbeddings(t, h, logs, "failing", func(st *EmbeddingStatus) bool { return st.Failing && st.Pending > 0 && st.Tools == 0 })
	if !proctest.Await(func() bool { return fake.Requests() >= 3 }) {
		t.Fatal("the worker does not try again")
	}
	const query = "show the commit history"
	if got, want := searchNames(t, h, query), searchNames(t, bm25, query); !cmp.Equal(got, want) {
		t.Errorf("without vectors: %v, want BM25's %v", got, want)
	}
	if n := strings.Count(logs.String(), "embeddings server failing"); n != 1 {
		t.Errorf("%d log lines for %d failed requests, want 1", n, fake.Requests())
	}

	fake.Fail(0)
	awaitEmbeddings(t, h, logs, "synced", synced)
	if got := searchNames(t, h, "what is on my monitor"); len(got) == 0 || got[0] != "take_screenshot" {
		t.Errorf("after the server came up: %v", got)
	}
	if n := strings.Count(logs.String(), "embeddings server answers again"); n != 1 {
		t.Errorf("%d log lines for the recovery, want 1", n)
	}
}

// A catalog change never waits on the embeddings server, and Close
// cancels the worker's request.
func TestEmbeddingsOffTheCatalogPath(t *testing.T) {
	t.Parallel()
	arrived, cancelled := make(chan struct{}, 100), make(chan struct{}, 100)
	release := make(chan struct{})
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		arrived <- struct{}{}
		select {
		case <-r.Context().Done():
			cancelled <- struct{}{}
		case <-release:
		}
	}))
	t.Cleanup(hang.Close)
	t.Cleanup(func() { close(release) }) // runs first

	client, err := embedding.New(embedding.Config{URL: hang.URL, Model: "fake-embed", Timeout: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	h, err := New(Config{Roots: []string{t.TempDir()}, Embed: client, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.Close() })
	if err := h.AddGroup("probe", probeBox("probe", probeTools)); err != nil {
		t.Fatal(err)
	}
	select {
	case <-arrived:
	case <-time.After(proctest.Patience):
		t.Fatal("the worker sent nothing")
	}
	// The worker's request hangs; the catalog moves on.
	if err := h.AddGroup("extra", probeBox("extra", map[string]string{"ring_bell": "Ring the bell."})); err != nil {
		t.Fatal(err)
	}
	if got := searchNames(t, h, "ring the bell"); len(got) == 0 || got[0] != "ring_bell" {
		t.Errorf("BM25 while the embeddings hang: %v", got)
	}
	_ = h.Close()
	select {
	case <-cancelled:
	case <-time.After(proctest.Patience):
		t.Fatal("Close did not cancel the worker's request")
	}
}

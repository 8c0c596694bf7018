package hub

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/ramabana/ramabana-mcp/host/internal/embedding"
	"github.com/ramabana/ramabana-mcp/host/internal/gate"
	"github.com/ramabana/ramabana-mcp/host/internal/search"
)

// Hybrid ranking (Config.Embed): BM25 ranks the tools the caller may
// call, so does the cosine similarity of each tool's vector to the
// query's, and search.Fuse joins the two rankings by their scores
// (search.LexicalWeight). The tools are embedded by a background
// worker, never on the catalog's path: a catalog change sets what is
// wanted, takes the vectors the cache already has and wakes the worker
// for the rest. Until a tool has its vector, BM25 alone ranks it; until
// any has, and while the embeddings server fails, BM25 alone ranks them
// all (one log line when the server starts failing, one when it answers
// again).
const (
	// fuseDepth is how many tools each ranking hands to the fusion; a
	// lexical hit the dense ranking did not reach gets its cosine all the
	// same (Dense.Similarity).
	fuseDepth = 100
	// queryEmbedTimeout bounds a query's embedding: a slow server costs a
	// search this much at most, then BM25 answers alone.
	queryEmbedTimeout = 5 * time.Second
	// embedRetry is how long searches leave a failing server alone before
	// one of them tries it again, so that a server that hangs does not
	// cost every search queryEmbedTimeout; and how long the worker waits
	// before it tries again what it could not embed.
	embedRetry = 30 * time.Second
	// embedChunk is how many texts the worker embeds between making the
	// vectors it got searchable (a request carries at most the client's
	// batch size).
	embedChunk = 256
)

// embeddings keeps a vector for every indexed tool: the dense ranking, the
// persistent cache behind it and the worker that fills both.
type embeddings struct {
	client *embedding.Client
	cache  *embedding.Cache
	dense  *search.Dense
	logger *slog.Logger
	kick   chan struct{} // 1-buffered: the worker has work
	// out is the outbound gate: the texts and queries the embeddings
	// server is sent leave through it, as everything the server sends.
	out *gate.Gate

	now      func() time.Time
	cooldown time.Duration // embedRetry, unless a test says otherwise
	// indexMu is the searcher's lock, which reindex holds over a whole
	// change of the catalog: under it, wanted is a whole catalog, not one
	// half set.
	indexMu *sync.Mutex
	// settled is closed once the host's start has settled (Host.Ready):
	// before, the catalog is still growing, and a save drops nothing.
	settled <-chan struct{}

	mu      sync.Mutex
	wanted  map[string][]embedDoc // source → its documents as indexed now
	kicks   uint64                // work asked of the worker (the first: loading the cache)
	done    uint64                // kicks the worker had seen when it last finished
	failing bool                  // the server's last answer was a failure
	lastErr string
	retryAt time.Time // while failing, searches skip the server until then
}

// embedDoc is a document, the text embedded for it and that text's key.
type embedDoc struct {
	doc  search.Doc
	text string
	key  embedding.Key
}

// startEmbeddings starts the worker, which loads the cache first; it ends
// when the host closes, its request in flight cancelled.
func (h *Host) startEmbeddings() *embeddings {
	path := ""
	if h.cfg.ConfigDir != "" {
		path = embedding.CachePath(h.cfg.ConfigDir, h.cfg.Embed.Model())
	}
	e := &embeddings{
		client: h.cfg.Embed, cache: embedding.NewCache(path), dense: search.NewDense(), logger: h.logger, out: h.cfg.Gate,
		kick: make(chan struct{}, 1), wanted: map[string][]embedDoc{}, kicks: 1,
		now: time.Now, cooldown: embedRetry, indexMu: &h.search.mu, settled: h.ready,
	}
	if h.search.embedRetry > 0 {
		e.cooldown = h.search.embedRetry
	}
	if h.search.embedClock != nil {
		e.now = h.search.embedClock
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-h.closing
		cancel()
	}()
	h.search.worker.Go(func() { e.run(ctx) })
	return e
}

// set makes docs source's documents: those whose text the cache knows
// get their vectors at once, the others wake the worker.
func (e *embeddings) set(source string, docs []search.Doc) {
	eds := make([]embedDoc, len(docs))
	for i, d := range docs {
		text := e.out.Text(d.Text())
		eds[i] = embedDoc{doc: d, text: text, key: embedding.KeyOf(e.client.Model(), text)}
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.wanted[source] = eds
	if e.fillLocked(source) > 0 {
		e.kickLocked()
	}
}

func (e *embeddings) remove(source string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	delete(e.wanted, source)
	e.dense.Remove(source)
}

// fillLocked gives the dense ranking source's documents that have a
// vector in the cache, and says how many have none.
func (e *embeddings) fillLocked(source string) (missing int) {
	eds := e.wanted[source]
	es := make([]search.Embedded, 0, len(eds))
	for _, ed := range eds {
		if v, ok := e.cache.Get(ed.key); ok {
			es = append(es, search.Embedded{Doc: ed.doc, Vector: v})
		} else {
			missing++
		}
	}
	e.dense.Set(source, es)
	return missing
}

func (e *embeddings) kickLocked() {
	e.kicks++
	select {
	case e.kick <- struct{}{}:
	default: // the worker is woken already
	}
}

// run is the worker: it loads the cache, then makes a pass each time it
// is woken, and cooldown after a pass that failed.
func (e *embeddings) run(ctx context.Context) {
	if err := e.cache.Load(); err != nil {
		e.logger.Warn("embeddings cache not loaded: starting empty", "error", err)
	}
	for {
		var retry <-chan time.Time
		var timer *time.Timer
		if !e.pass(ctx) {
			timer = time.NewTimer(e.cooldown)
			retry = timer.C
		}
		select {
		case <-ctx.Done():
		case <-e.kick:
		case <-retry:
		}
		if timer != nil {
			timer.Stop()
		}
		if ctx.Err() != nil {
			return
		}
	}
}

// pass embeds every wanted text the cache lacks, a chunk at a time, each
// chunk's vectors searchable as they come, then saves the cache bounded
// to what is wanted now. A failure ends the pass, and ok is false.
func (e *embeddings) pass(ctx context.Context) (ok bool) {
	e.mu.Lock()
	gen := e.kicks
	var texts []string
	var keys []embedding.Key
	sources := map[embedding.Key][]string{} // the sources wanting each text
	for source, eds := range e.wanted {
		if e.fillLocked(source) == 0 {
			continue
		}
		for _, ed := range eds {
			if _, ok := e.cache.Get(ed.key); ok {
				continue
			}
			if _, seen := sources[ed.key]; !seen {
				texts, keys = append(texts, ed.text), append(keys, ed.key)
			}
			sources[ed.key] = append(sources[ed.key], source)
		}
	}
	e.mu.Unlock()

	embedded := 0
	var err error
	for start := 0; start < len(texts); start += embedChunk {
		end := min(start+embedChunk, len(texts))
		var vecs [][]float32
		vecs, err = e.client.Embed(ctx, texts[start:end])
		if ctx.Err() != nil {
			return true // the host is closing
		}
		if err != nil {
			break
		}
		touched := map[string]bool{}
		for i, v := range vecs {
			e.cache.Put(keys[start+i], v)
			for _, s := range sources[keys[start+i]] {
				touched[s] = true
			}
		}
		embedded += len(vecs)
		e.mu.Lock()
		for s := range touched {
			if _, ok := e.wanted[s]; ok {
				e.fillLocked(s)
			}
		}
		e.mu.Unlock()
	}
	if err != nil {
		e.failed(err)
	} else if len(texts) > 0 {
		e.answered()
	}
	if embedded > 0 {
		if err := e.cache.Save(e.inUse()); err != nil {
			e.logger.Warn("embeddings cache not saved: the next start embeds again", "error", err)
		}
	}
	e.mu.Lock()
	e.done = gen
	e.mu.Unlock()
	return err == nil
}

// inUse is what a save keeps: the vectors of the catalog now, or, while
// the host is starting and tools still arrive (an upstream server that
// connects late), every vector, lest a save drop what the next moment
// wants again.
func (e *embeddings) inUse() func(embedding.Key) bool {
	select {
	case <-e.settled:
	default:
		return nil
	}
	e.indexMu.Lock()
	e.mu.Lock()
	live := map[embedding.Key]bool{}
	for _, eds := range e.wanted {
		for _, ed := range eds {
			live[ed.key] = true
		}
	}
	e.mu.Unlock()
	e.indexMu.Unlock()
	return func(k embedding.Key) bool { return live[k] }
}

// query is the vector of a search's query, or nil when there is none to
// be had: no tool has a vector yet, the server failed lately, or it fails
// now (then logged, once until it answers again). The caller's context
// ending is no failure of the server's.
func (e *embeddings) query(ctx context.Context, q string) []float32 {
	e.mu.Lock()
	skip := e.failing && e.now().Before(e.retryAt)
	e.mu.Unlock()
	if skip {
		return nil
	}
	qctx, cancel := context.WithTimeout(ctx, queryEmbedTimeout)
	defer cancel()
	vecs, err := e.client.Embed(qctx, []string{e.out.Text(q)})
	switch {
	case ctx.Err() != nil:
		return nil
	case err != nil && qctx.Err() != nil:
		e.failed(fmt.Errorf("embed the query: no answer within %s", queryEmbedTimeout))
		return nil
	case err != nil:
		e.failed(err)
		return nil
	}
	e.answered()
	return vecs[0]
}

// failed notes a failure of the server's; only the first of a run of
// failures is logged.
func (e *embeddings) failed(err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.lastErr = err.Error()
	e.retryAt = e.now().Add(e.cooldown)
	if e.failing {
		return
	}
	e.failing = true
	e.logger.Warn("embeddings server failing: search_capabilities ranks by BM25 alone until it answers again",
		"url", e.client.URL(), "model", e.client.Model(), "error", e.lastErr)
}

// answered notes an answer; after failures it logs the recovery and wakes
// the worker for what it could not embed.
func (e *embeddings) answered() {
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.failing {
		return
	}
	e.failing, e.lastErr = false, ""
	e.logger.Info("embeddings server answers again", "url", e.client.URL(), "model", e.client.Model())
	e.kickLocked()
}

// EmbeddingStatus is the state of search_capabilities' embeddings, in
// ramabana://status.
type EmbeddingStatus struct {
	Model string `json:"model"`
	URL   string `json:"url"`
	// Cache is the file the vectors are kept in ("" for none).
	Cache string `json:"cache,omitempty"`
	// Tools is how many tools have a vector, Pending how many wait for
	// one (BM25 alone ranks those).
	Tools   int `json:"tools"`
	Pending int `json:"pending"`
	// Syncing: the worker is embedding or saving.
	Syncing bool `json:"syncing"`
	// Failing: the server's last answer was LastError; searches rank by
	// BM25 alone meanwhile.
	Failing   bool   `json:"failing"`
	LastError string `json:"last_error,omitempty"`
}

// EmbeddingStatus reports the embeddings' state now; nil without
// Config.Embed.
func (h *Host) EmbeddingStatus() *EmbeddingStatus {
	c := h.cfg.Embed
	if c == nil {
		return nil
	}
	st := &EmbeddingStatus{Model: c.Model(), URL: c.URL(), Syncing: true}
	if h.cfg.ConfigDir != "" {
		st.Cache = embedding.CachePath(h.cfg.ConfigDir, c.Model())
	}
	e := h.search.emb.Load()
	if e == nil {
		return st // not started: nothing indexed yet
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, eds := range e.wanted {
		for _, ed := range eds {
			if _, ok := e.cache.Get(ed.key); ok {
				st.Tools++
			} else {
				st.Pending++
			}
		}
	}
	st.Syncing = e.kicks != e.done
	st.Failing, st.LastError = e.failing, e.lastErr
	return st
}

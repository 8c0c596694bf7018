package host

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ramabana/ramabana-mcp/catalog"
	"github.com/ramabana/ramabana-mcp/embed"
	"github.com/ramabana/ramabana-mcp/sdk"
	"github.com/ramabana/ramabana-mcp/search"
)

// SearchGroup is the in-process group of search_capabilities.
const SearchGroup = "search"

// SearchTool is the tool that ranks the catalog for a query.
const SearchTool = "search_capabilities"

// Bounds of search_capabilities' limit.
const (
	DefaultSearchLimit = 8
	MaxSearchLimit     = 50
)

// searcher keeps a search index in step with the catalog, a source (a
// plugin, an upstream server, an in-process group) at a time, and serves
// search_capabilities as an in-process group whose description names
// every server it searches.
type searcher struct {
	ix  *search.Index
	box atomic.Pointer[sdk.Toolbox] // the group as registered now
	emb atomic.Pointer[embeddings]  // with Config.Embed, from the first reindex on
	// embedRetry and embedClock replace the constant and time.Now for
	// tests, set before the host starts.
	embedRetry time.Duration
	embedClock func() time.Time

	mu      sync.Mutex
	indexed map[string][sha256.Size]byte // source → the content its documents were made from
	lazy    map[string]*lazyTools        // lazy servers' tools, by server id (indexSession)
	worker  sync.WaitGroup               // the embeddings worker: Close waits for it
	servers string                       // the server list in the tool's description now
}

// serverOf is what an entry's search results are grouped by: the upstream
// server, or the group.
func serverOf(e *catalog.Entry) string {
	if e.Upstream != nil {
		return e.Upstream.Server
	}
	return e.Group
}

// reindex brings the index in line with the catalog: sources whose tools
// changed are indexed again, sources gone are removed.
func (h *Host) reindex() {
	bySource := map[string][]*catalog.Entry{}
	var order []string
	for _, e := range h.catalog.All() {
		if e.Group == SearchGroup {
			continue
		}
		if _, ok := bySource[e.Plugin]; !ok {
			order = append(order, e.Plugin)
		}
		bySource[e.Plugin] = append(bySource[e.Plugin], e)
	}
	s := &h.search
	s.mu.Lock()
	defer s.mu.Unlock()
	emb := s.emb.Load()
	if emb == nil && h.cfg.Embed != nil {
		emb = h.startEmbeddings()
		s.emb.Store(emb)
	}
	for source := range s.indexed {
		if _, ok := bySource[source]; !ok {
			s.ix.Remove(source)
			if emb != nil {
				emb.remove(source)
			}
			delete(s.indexed, source)
		}
	}
	for _, source := range order {
		entries := bySource[source]
		sum := contentOf(entries)
		if s.indexed[source] == sum {
			continue
		}
		docs := docsOf(entries)
		s.ix.Set(source, docs)
		if emb != nil {
			emb.set(source, docs)
		}
		s.indexed[source] = sum
	}
}

// indexSession indexes the tools a conversation's mcp_connect listed for
// the lazy server id, under a source of their own that reindex leaves
// alone (the catalog does not hold them). Each conversation runs its own
// server process, whose list may differ: the source holds the union of
// what the live conversations listed, each tool counted by the
// conversations that have it, so one conversation's list never hides
// another's tools; Search shows each conversation only its own.
// releaseSession undoes it when the conversation ends.
func (h *Host) indexSession(id string, entries []*catalog.Entry) {
	s := &h.search
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lazy == nil {
		s.lazy = map[string]*lazyTools{}
	}
	lt := s.lazy[id]
	if lt == nil {
		lt = &lazyTools{docs: map[string]search.Doc{}, refs: map[string]int{}}
		s.lazy[id] = lt
	}
	for _, d := range docsOf(entries) {
		lt.docs[d.Name] = d // the latest listing describes it
		lt.refs[d.Name]++
	}
	h.setLazyLocked(id, lt)
}

// releaseSession drops a conversation's count of the tools it listed for
// the lazy server id (indexSession).
func (h *Host) releaseSession(id string, names []string) {
	s := &h.search
	s.mu.Lock()
	defer s.mu.Unlock()
	lt := s.lazy[id]
	if lt == nil {
		return
	}
	for _, n := range names {
		if lt.refs[n]--; lt.refs[n] <= 0 {
			delete(lt.refs, n)
			delete(lt.docs, n)
		}
	}
	if len(lt.docs) == 0 {
		delete(s.lazy, id)
	}
	h.setLazyLocked(id, lt)
}

// lazyTools are a lazy server's tools as its live conversations listed
// them.
type lazyTools struct {
	docs map[string]search.Doc // by name
	refs map[string]int        // how many conversations listed each
}

// setLazyLocked puts lt in the index as the lazy server id's source, or
// takes the source out when lt is empty. h.search.mu is held.
func (h *Host) setLazyLocked(id string, lt *lazyTools) {
	source := "mcp-lazy:" + id
	emb := h.search.emb.Load()
	if len(lt.docs) == 0 {
		h.search.ix.Remove(source)
		if emb != nil {
			emb.remove(source)
		}
		return
	}
	docs := make([]search.Doc, 0, len(lt.docs))
	for _, d := range lt.docs {
		docs = append(docs, d)
	}
	slices.SortFunc(docs, func(a, b search.Doc) int { return strings.Compare(a.Name, b.Name) })
	h.search.ix.Set(source, docs)
	if emb != nil {
		emb.set(source, docs)
	}
}

// docsOf is the search documents of entries.
func docsOf(entries []*catalog.Entry) []search.Doc {
	docs := make([]search.Doc, len(entries))
	for i, e := range entries {
		docs[i] = search.Doc{
			Name: e.Spec.Name, Server: serverOf(e), Title: e.Spec.Title, Description: e.Spec.Description,
			Params: search.ParamsFromSchema(e.Spec.InputSchema),
		}
	}
	return docs
}

// contentOf fingerprints what the documents of entries are made from.
func contentOf(entries []*catalog.Entry) [sha256.Size]byte {
	h := sha256.New()
	for _, e := range entries {
		for _, part := range []string{e.Spec.Name, serverOf(e), e.Spec.Title, e.Spec.Description, string(e.Spec.InputSchema)} {
			h.Write([]byte(part))
			h.Write([]byte{0})
		}
	}
	var sum [sha256.Size]byte
	h.Sum(sum[:0])
	return sum
}

// ServerInfo is one server of search results (003's UpstreamServerInfo):
// an upstream MCP server or a tool group.
type ServerInfo struct {
	Name         string      `json:"name"`
	Description  string      `json:"description,omitempty"`
	Instructions string      `json:"instructions,omitempty"`
	ToolCount    int         `json:"tool_count"`
	NeedsAuth    bool        `json:"needs_auth"`
	Tools        []SearchHit `json:"tools"`
}

// SearchHit is one tool found: what a model needs to call it at once.
type SearchHit struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Annotations any             `json:"annotations,omitempty"`
	InputSchema json.RawMessage `json:"inputSchema"`
}

// SearchResult is search_capabilities' answer: the hits grouped by
// server, servers in the order of their best hit.
type SearchResult struct {
	Query   string       `json:"query"`
	Servers []ServerInfo `json:"servers"`
}

// Search ranks the tools the caller (the client, or an ask turn: see
// WithCaller) may call for query; server, when set, keeps one server's.
// An empty or junk query is an error that says what a query should be.
// With Config.Embed the ranking is hybrid (see embeddings), and may find
// a tool that shares no word with the query.
func (h *Host) Search(ctx context.Context, query string, limit int, server string) (*SearchResult, error) {
	if limit <= 0 {
		limit = DefaultSearchLimit
	}
	limit = min(limit, MaxSearchLimit)
	agent := callerOf(ctx).IsAgent()
	sess := upstreamSessionOf(ctx)
	callable := func(e *catalog.Entry) bool { return e.Group != SearchGroup && h.callable(e, agent) }
	// entry is the tool the caller may call by that name: the catalog's,
	// or one its conversation's mcp_connect added (callable when added).
	entry := func(name string) (*catalog.Entry, bool) {
		if e, ok := h.catalog.Get(name); ok {
			return e, callable(e)
		}
		if sess != nil {
			return sess.entry(name)
		}
		return nil, false
	}
	keep := func(d *search.Doc) bool {
		_, ok := entry(d.Name)
		return ok && (server == "" || d.Server == server)
	}
	emb := h.search.emb.Load()
	hybrid := emb != nil && emb.dense.Len() > 0
	depth := limit
	if hybrid {
		depth = max(limit, fuseDepth)
	}
	hits, err := h.search.ix.Search(query, depth, keep)
	if err != nil {
		return nil, err
	}
	if hybrid {
		if q := emb.query(ctx, query); q != nil {
			hits = search.Fuse(hits, emb.dense.Search(q, depth, keep), emb.dense.Similarity(q), limit)
		}
	}
	hits = hits[:min(len(hits), limit)]
	res := &SearchResult{Query: query, Servers: []ServerInfo{}}
	if len(hits) == 0 {
		return res, nil
	}
	// How many tools the caller may call of each server, in one pass.
	counts := map[string]int{}
	for _, e := range h.catalog.All() {
		if callable(e) {
			counts[serverOf(e)]++
		}
	}
	if sess != nil {
		for _, e := range sess.Entries() {
			counts[serverOf(e)]++
		}
	}
	at := map[string]int{}
	for _, hit := range hits {
		e, ok := entry(hit.Doc.Name)
		if !ok {
			continue // gone since the search
		}
		name := serverOf(e)
		i, seen := at[name]
		if !seen {
			i = len(res.Servers)
			at[name] = i
			info := h.serverInfo(name, e, sess)
			info.ToolCount = counts[name]
			res.Servers = append(res.Servers, info)
		}
		res.Servers[i].Tools = append(res.Servers[i].Tools, SearchHit{
			Name: e.Spec.Name, Description: oneLine(e.Spec.Description), Annotations: annotationsOf(e),
			InputSchema: json.RawMessage(e.Spec.InputSchema),
		})
	}
	return res, nil
}

// serverInfo describes the server of e: an upstream server's config
// description, instructions and whether it now refuses for want of
// credentials, or a group's description. sess, when not nil, is the
// conversation whose mcp_connect may have connected it.
func (h *Host) serverInfo(name string, e *catalog.Entry, sess *UpstreamSession) ServerInfo {
	info := ServerInfo{Name: name, Description: e.GroupDescription}
	if e.Upstream == nil {
		return info
	}
	if l := h.up.links[name]; l != nil {
		st := l.Status()
		info.Instructions, info.NeedsAuth = st.Instructions, st.NeedsAuth
	} else if sess != nil {
		info.Instructions = sess.pool.Instructions(name)
	}
	return info
}

// annotationsOf is the annotations a client would see for e.
func annotationsOf(e *catalog.Entry) any {
	if e.Upstream != nil {
		if e.Upstream.Annotations == nil {
			return nil // absent stays absent
		}
		return e.Upstream.Annotations
	}
	hints := e.Hints()
	return map[string]bool{
		"readOnlyHint": hints.ReadOnly, "destructiveHint": hints.Destructive,
		"idempotentHint": hints.Idempotent, "openWorldHint": hints.OpenWorld,
	}
}

// oneLine is the first line of s.
func oneLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = strings.TrimSpace(s[:i])
	}
	return s
}

type searchArgs struct {
	Query  string `json:"query" jsonschema:"what the tool should do, in a few plain words: 'create a github issue', 'read a file', 'take a screenshot'"`
	Limit  int    `json:"limit,omitempty" jsonschema:"how many tools at most (default 8, at most 50)"`
	Server string `json:"server,omitempty" jsonschema:"only this server's (or group's) tools"`
}

// searchDescription is search_capabilities' description, naming servers.
func searchDescription(servers string) string {
	return "Find the tools for a task among all this server aggregates, ranked, grouped by server with its description and instructions; each hit has its name, description, annotations and input schema, ready to call. Query in a few plain words. Servers: " + servers
}

// serverList names every server of a mounted group (names only: the
// description is in every tools/list, and the servers' descriptions come
// with the results); "" when there is none.
func (h *Host) serverList() string {
	seen := map[string]bool{}
	for _, e := range h.catalog.All() {
		if ok, _ := h.policy.GroupMounted(e.Group, e.GroupMode); ok && e.Group != SearchGroup {
			seen[serverOf(e)] = true
		}
	}
	names := make([]string, 0, len(seen))
	for n := range seen {
		names = append(names, n)
	}
	// A server that refused for want of credentials says so, tools or
	// none, so that the model can tell the user instead of searching on.
	for id, l := range h.up.links {
		if l.Status().NeedsAuth {
			if !seen[id] {
				names = append(names, id+" (needs authorization)")
				continue
			}
			i := slices.Index(names, id)
			names[i] += " (needs authorization)"
		}
	}
	if len(names) == 0 {
		return ""
	}
	slices.Sort(names)
	return strings.Join(names, ", ") + "."
}

// searchCaller runs search_capabilities.
type searchCaller struct{ h *Host }

func (c searchCaller) box(servers string) *sdk.Toolbox {
	box := sdk.NewToolbox(SearchGroup, sdk.WithVersion("1"), sdk.WithDescription("search over every tool"))
	box.AddGroup(sdk.GroupSpec{Name: SearchGroup, Description: "Search the tools of every server by what they do."},
		sdk.TypedTool(sdk.ToolSpec{
			Name: SearchTool, Title: "Search capabilities", Kind: sdk.KindRead,
			Description: searchDescription(servers),
		}, func(ctx context.Context, _ *sdk.Request, a searchArgs) (*sdk.Result, error) {
			res, err := c.h.Search(ctx, a.Query, a.Limit, a.Server)
			if errors.Is(err, search.ErrEmptyQuery) {
				return nil, sdk.Failf("%v", err)
			}
			if err != nil {
				return nil, err
			}
			if len(res.Servers) == 0 {
				return nil, sdk.Failf("no tool matches %q: try other words for what you want done, or fewer", a.Query)
			}
			// No output schema: it would cost every tools/list more than
			// the rest of capability mode's together.
			b, err := json.Marshal(res)
			if err != nil {
				return nil, err
			}
			return &sdk.Result{Structured: b}, nil
		}))
	return box
}

func (c searchCaller) Call(ctx context.Context, call *sdk.Call, events sdk.Events) (*sdk.Result, error) {
	box := c.h.search.box.Load()
	if box == nil {
		return nil, sdk.UnknownTool(call.Tool)
	}
	return box.Call(ctx, call, events)
}

// syncSearch indexes what changed and, when the servers changed, gives
// search_capabilities a description naming them.
func (h *Host) syncSearch() {
	h.reindex()
	servers := h.serverList()
	h.search.mu.Lock()
	same := servers == h.search.servers
	h.search.servers = servers
	h.search.mu.Unlock()
	if same {
		return
	}
	c := searchCaller{h}
	if servers == "" { // nothing to search
		h.catalog.RemoveCaller(c)
		return
	}
	box := c.box(servers)
	d, err := box.Describe(context.Background(), sdk.Host{})
	if err == nil {
		h.search.box.Store(box)
		err = h.catalog.Swap(SearchGroup, d, c)
	}
	if err != nil {
		h.logger.Warn("search_capabilities not updated", "error", fmt.Sprint(err))
	}
}

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
	client *embed.Client
	cache  *embed.Cache
	dense  *search.Dense
	logger *slog.Logger
	kick   chan struct{} // 1-buffered: the worker has work

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
	key  embed.Key
}

// startEmbeddings starts the worker, which loads the cache first; it ends
// when the host closes, its request in flight cancelled.
func (h *Host) startEmbeddings() *embeddings {
	path := ""
	if h.cfg.ConfigDir != "" {
		path = embed.CachePath(h.cfg.ConfigDir, h.cfg.Embed.Model())
	}
	e := &embeddings{
		client: h.cfg.Embed, cache: embed.NewCache(path), dense: search.NewDense(), logger: h.logger,
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
		text := d.Text()
		eds[i] = embedDoc{doc: d, text: text, key: embed.KeyOf(e.client.Model(), text)}
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
	var keys []embed.Key
	sources := map[embed.Key][]string{} // the sources wanting each text
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
func (e *embeddings) inUse() func(embed.Key) bool {
	select {
	case <-e.settled:
	default:
		return nil
	}
	e.indexMu.Lock()
	e.mu.Lock()
	live := map[embed.Key]bool{}
	for _, eds := range e.wanted {
		for _, ed := range eds {
			live[ed.key] = true
		}
	}
	e.mu.Unlock()
	e.indexMu.Unlock()
	return func(k embed.Key) bool { return live[k] }
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
	vecs, err := e.client.Embed(qctx, []string{q})
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
		st.Cache = embed.CachePath(h.cfg.ConfigDir, c.Model())
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

package hub

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ramabana/ramabana-mcp/host/internal/catalog"
	"github.com/ramabana/ramabana-mcp/host/internal/search"
	"github.com/ramabana/ramabana-mcp/sdk"
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

	// stale says the catalog changed since the index was brought in line
	// with it: the next query (freshIndex) reindexes first.
	stale atomic.Bool
	// fresh serialises freshIndex: a query waits for the reindex another
	// query started.
	fresh sync.Mutex

	mu      sync.Mutex
	indexed map[string][sha256.Size]byte // source → the content its documents were made from
	lazy    map[string]*lazyTools        // lazy servers' tools, by server id (indexSession)
	worker  sync.WaitGroup               // the embeddings worker: Close waits for it

	// describe serialises syncSearch from reading the server list to
	// swapping the tool: two changes at once (an upstream server
	// connecting while a plugin registers) must not let the one that
	// read the list first swap its older description in last.
	describe sync.Mutex
	servers  string // the server list in the tool's description now; describe is held
}

// serverOf is what an entry's search results are grouped by: the upstream
// server, or the group.
func serverOf(e *catalog.Entry) string {
	if e.Upstream != nil {
		return e.Upstream.Server
	}
	return e.Group
}

// freshIndex reindexes when the catalog changed since the last time: the
// index is built for the first query, not on the way to a client's first
// tools/list.
func (h *Host) freshIndex() {
	h.search.fresh.Lock()
	defer h.search.fresh.Unlock()
	if h.search.stale.Swap(false) {
		h.reindex()
	}
}

// reindex brings the index in line with the catalog: sources whose tools
// changed are indexed again, sources gone are removed. Legacy groups are
// not indexed: their tools are old names kept for clients that call them
// by name, and a search finds the tools that replaced them.
func (h *Host) reindex() {
	bySource := map[string][]*catalog.Entry{}
	var order []string
	for _, e := range h.catalog.All() {
		if e.InHostGroup(SearchGroup) || e.GroupMode == sdk.ModeLegacy {
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

// ServerInfo is one server of search results (UpstreamServerInfo,
// docs/upstream.md):
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
	h.freshIndex()
	agent := callerOf(ctx).IsAgent()
	sess := upstreamSessionOf(ctx)
	callable := func(e *catalog.Entry) bool { return !e.InHostGroup(SearchGroup) && h.callable(e, agent) }
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
	Query  string `json:"query" jsonschema:"what the tool should do, in a few plain words"`
	Limit  int    `json:"limit,omitempty" jsonschema:"most tools (default 8)"`
	Server string `json:"server,omitempty" jsonschema:"only this server's tools"`
}

// searchDescription is search_capabilities' description, naming servers.
func searchDescription(servers string) string {
	return "Find tools for a task among every server this one aggregates: ranked, grouped by server, each with its name, description, annotations and input schema. Servers: " + servers
}

// serverList names every server of a mounted group (names only: the
// description is in every tools/list, and the servers' descriptions come
// with the results); "" when there is none.
func (h *Host) serverList() string {
	seen := map[string]bool{}
	for _, e := range h.catalog.All() {
		if ok, _ := h.policy.EntryGroupMounted(e); ok && !e.InHostGroup(SearchGroup) {
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
			Name: SearchTool, Title: "Search capabilities", Kind: sdk.KindRead, InputSchema: json.RawMessage(searchSchema),
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

// syncSearch marks the index stale (the next query, or with embeddings
// this call, indexes what changed) and, when the servers changed, gives
// search_capabilities a description naming them.
func (h *Host) syncSearch() {
	h.search.stale.Store(true)
	if h.cfg.Embed != nil {
		h.freshIndex() // the tools' embeddings start as the tools come, not at the first query
	}
	h.search.describe.Lock()
	defer h.search.describe.Unlock()
	servers := h.serverList()
	if servers == h.search.servers {
		return
	}
	c := searchCaller{h}
	if servers == "" { // nothing to search
		h.catalog.RemoveCaller(c)
		h.search.servers = servers
		return
	}
	box := c.box(servers)
	d, err := box.Describe(context.Background(), sdk.Host{})
	if err == nil {
		h.search.box.Store(box)
		err = h.catalog.Swap(SearchGroup, catalog.InProcess, d, c)
	}
	if err != nil {
		// The list kept is the old one: the next change tries again.
		h.logger.Warn("search_capabilities not updated", "error", fmt.Sprint(err))
		return
	}
	h.search.servers = servers
}

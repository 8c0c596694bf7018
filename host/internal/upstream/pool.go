package upstream

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"sync"

	"github.com/ramabana/ramabana-mcp/sdk"
)

// Pool is one agent's activation set: the upstream servers it has connected
// with mcp_connect and their tools. Pools share nothing: each connects its
// own sessions (its own processes for stdio servers), so one agent's
// activations are never seen by another. A Pool is safe for concurrent use.
type Pool struct {
	cfg  *Config
	opts ConnectOptions

	// connectMu serializes Connect, so that a duplicate id waits and then
	// gets ErrAlreadyConnected.
	connectMu sync.Mutex

	mu            sync.Mutex
	closed        bool
	order         []string // ids in activation order
	conns         map[string]*Link
	cancelConnect context.CancelFunc // of the Connect in flight
	inflight      sync.WaitGroup     // a Connect past the closed check
}

// NewPool returns an empty activation set over cfg's servers. A nil cfg
// has no servers.
func NewPool(cfg *Config, opts ConnectOptions) *Pool {
	return &Pool{cfg: cfg, opts: opts, conns: map[string]*Link{}}
}

// Available returns the servers that can be connected, sorted by id,
// connected or not.
func (p *Pool) Available() []Server { return p.cfg.Servers() }

// Lookup returns the configured server with the id.
func (p *Pool) Lookup(id string) (Server, bool) { return p.cfg.Lookup(id) }

// Instructions are the initialize instructions of a connected server.
func (p *Pool) Instructions(id string) string {
	p.mu.Lock()
	l := p.conns[id]
	p.mu.Unlock()
	if l == nil {
		return ""
	}
	return l.Instructions()
}

// Connected returns the connected ids in activation order.
func (p *Pool) Connected() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.order)
}

// Connect connects the server with the id and lists its tools, which it
// returns. An id not in the config is an [*UnknownServerError] listing the
// available ids; an id already connected matches [ErrAlreadyConnected]. On
// any failure nothing is activated and the id can be tried again.
func (p *Pool) Connect(ctx context.Context, id string) ([]Tool, error) {
	s, ok := p.cfg.Lookup(id)
	if !ok {
		return nil, p.unknown(id)
	}
	p.connectMu.Lock()
	defer p.connectMu.Unlock()

	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, ErrPoolClosed
	}
	if _, ok := p.conns[id]; ok {
		p.mu.Unlock()
		return nil, alreadyConnected(id)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	p.cancelConnect = cancel
	p.inflight.Add(1)
	defer p.inflight.Done()
	p.mu.Unlock()

	link := NewLink(s, p.opts, nil)
	tools, err := link.Connect(ctx)
	if err != nil {
		_ = link.Close()
	}

	p.mu.Lock()
	defer p.mu.Unlock()
	p.cancelConnect = nil
	if p.closed {
		if err == nil {
			_ = link.Close()
		}
		return nil, ErrPoolClosed
	}
	if err != nil {
		return nil, err
	}
	p.conns[id] = link
	p.order = append(p.order, id)
	return tools, nil
}

func (p *Pool) unknown(id string) error {
	var ids []string
	for _, s := range p.cfg.Servers() {
		ids = append(ids, s.ID)
	}
	return &UnknownServerError{ID: id, Available: ids}
}

// Tools returns the tools of every connected server: servers in activation
// order, each one's tools in upstream order.
func (p *Pool) Tools() []Tool {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []Tool
	for _, id := range p.order {
		out = append(out, p.conns[id].Tools()...)
	}
	return out
}

// Call calls a connected server's tool by its namespaced name. A name that
// is not <id>__<tool> of a listed tool matches [ErrUnknownTool]; a
// configured server not yet connected matches [ErrNotConnected]; otherwise
// see [Link.Call].
func (p *Pool) Call(ctx context.Context, namespaced string, args json.RawMessage, progress ProgressFunc) (*sdk.Result, error) {
	id, _, ok := SplitName(namespaced)
	if !ok {
		return nil, unknownTool(namespaced, "want <server id>__<tool name>")
	}
	p.mu.Lock()
	closed, a := p.closed, p.conns[id]
	p.mu.Unlock()
	switch {
	case closed:
		return nil, ErrPoolClosed
	case a != nil:
	case !p.has(id):
		return nil, p.unknown(id)
	default:
		return nil, notConnected(id)
	}
	return a.Call(ctx, namespaced, args, progress)
}

func (p *Pool) has(id string) bool {
	_, ok := p.cfg.Lookup(id)
	return ok
}

// Close cancels a Connect in flight, closes every connection (ending stdio
// servers) and waits for them. The Pool cannot be used after.
func (p *Pool) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	if p.cancelConnect != nil {
		p.cancelConnect()
	}
	conns := p.conns
	p.conns, p.order = map[string]*Link{}, nil
	p.mu.Unlock()

	// A cancelled Connect closes what it opened before it returns.
	p.inflight.Wait()

	errs := make([]error, 0, len(conns))
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, a := range conns {
		wg.Go(func() {
			if err := a.Close(); err != nil {
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

package mcpserver

import (
	"bytes"
	"context"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ramabana/ramabana-mcp/host/internal/hub"
)

// coalesce is how long the resources wait, after the host tells of a
// change, before they look at what changed and tell the client: the
// changes that come meanwhile (a plugin's launch, then its tools; ten
// skill folders copied in) are told once. The first change starts the
// wait and later ones do not prolong it, so a stream of changes is told
// at most once per coalesce.
const coalesce = 100 * time.Millisecond

// attach makes the resources follow the host's changes until the returned
// function is called (the session ended).
func (r *resources) attach() (stop func()) {
	unsubscribe := r.host.OnChange(r.changed)
	stopUpdates := r.host.OnUpstreamResourceUpdated(r.upstreamUpdated)
	r.changed(hub.ChangedSkills | hub.ChangedStatus | hub.ChangedTools) // what changed since New
	return func() {
		unsubscribe()
		stopUpdates()
		r.mu.Lock()
		var upstreamSubs []string
		for uri := range r.subs {
			if isUpstreamURI(uri) {
				upstreamSubs = append(upstreamSubs, uri)
			}
		}
		r.mu.Unlock()
		for _, uri := range upstreamSubs {
			r.host.UnsubscribeUpstream(context.Background(), uri)
		}
		r.mu.Lock()
		defer r.mu.Unlock()
		r.ended = true
		if r.timer != nil {
			r.timer.Stop()
		}
	}
}

// changed notes a change the host tells of (hub.OnChange), to be looked
// at after coalesce.
func (r *resources) changed(c hub.Change) {
	c &= hub.ChangedSkills | hub.ChangedStatus | hub.ChangedTools
	if c == 0 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ended {
		return
	}
	r.pending |= c
	if r.timer == nil {
		r.timer = time.AfterFunc(coalesce, r.flush)
	}
}

// flush looks at what the pending changes changed: it lists the skills
// anew (the SDK sends resources/list_changed when that changes the list),
// and sends notifications/resources/updated for each subscribed resource
// whose text changed: the status, the skills index, a skill. A change
// that changed nothing a client reads is not told.
func (r *resources) flush() {
	r.mu.Lock()
	c := r.pending
	r.pending, r.timer = 0, nil
	if r.ended {
		r.mu.Unlock()
		return
	}
	r.mu.Unlock()

	r.flushMu.Lock()
	defer r.flushMu.Unlock()
	// The status first, then the index, then each skill: a client that
	// gets a skill's notification has had those of the same change.
	var updated []string
	if c&hub.ChangedTools != 0 {
		r.syncUpstream() // an upstream server's resources and prompts come with its tools
	}
	if c&hub.ChangedStatus != 0 && r.subscribed(StatusURI) {
		b, err := r.statusJSON()
		if err == nil && !bytes.Equal(b, r.status) {
			r.status = b
			updated = append(updated, StatusURI)
		}
	}
	if c&hub.ChangedSkills != 0 {
		changed, index := r.syncSkills()
		if index != r.index {
			r.index = index
			updated = append(updated, SkillsURI)
		}
		for _, name := range changed {
			updated = append(updated, skillPrefix+name)
		}
	}
	ctx := context.Background()
	for _, uri := range updated {
		if r.subscribed(uri) {
			if err := r.server.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: uri}); err != nil {
				r.logger.Warn("cannot tell the client that a resource changed", "uri", uri, "error", err)
			}
		}
	}
}

// subscribed says whether a session is subscribed to uri.
func (r *resources) subscribed(uri string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.subs[uri]) > 0
}

// subscribe takes a resources/subscribe (the SDK keeps the subscription
// and sends notifications only to subscribers): to the status, the skills
// index or a listed skill. Another URI is the resource-not-found error.
func (r *resources) subscribe(ctx context.Context, req *mcp.SubscribeRequest) error {
	uri := req.Params.URI
	r.flushMu.Lock()
	defer r.flushMu.Unlock()
	switch {
	case uri == StatusURI:
		if !r.subscribed(StatusURI) {
			// What a change is measured against.
			b, err := r.statusJSON()
			if err != nil {
				return err
			}
			r.status = b
		}
	case uri == SkillsURI:
	case strings.HasPrefix(uri, skillPrefix):
		if _, ok := r.listed[strings.TrimPrefix(uri, skillPrefix)]; !ok {
			return mcp.ResourceNotFoundError(uri)
		}
	case isUpstreamURI(uri):
		if !r.subscribed(uri) { // this session's first: the server is asked once
			if err := r.host.SubscribeUpstream(ctx, uri); err != nil {
				return err
			}
		}
	default:
		return mcp.ResourceNotFoundError(uri)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.subs[uri] == nil {
		r.subs[uri] = map[*mcp.ServerSession]bool{}
	}
	r.subs[uri][req.Session] = true
	return nil
}

// unsubscribe takes a resources/unsubscribe.
func (r *resources) unsubscribe(ctx context.Context, req *mcp.UnsubscribeRequest) error {
	uri := req.Params.URI
	r.mu.Lock()
	was := len(r.subs[uri]) > 0
	r.forget(uri, req.Session)
	last := was && len(r.subs[uri]) == 0
	r.mu.Unlock()
	if last && isUpstreamURI(uri) {
		r.host.UnsubscribeUpstream(ctx, uri)
	}
	return nil
}

// upstreamUpdated tells the subscribed clients that an upstream server's
// resource changed (the SDK sends it to its subscribers only). It runs on
// the upstream connection's message loop, so the telling is left to one
// goroutine, and a server that floods updates has each URI told once per
// round, not a goroutine per notification.
func (r *resources) upstreamUpdated(uri string) {
	if !r.subscribed(uri) {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.upUpdated == nil {
		r.upUpdated = map[string]bool{}
	}
	r.upUpdated[uri] = true
	if !r.upTelling {
		r.upTelling = true
		go r.tellUpstreamUpdates()
	}
}

// tellUpstreamUpdates sends the pending upstream updates until none is
// left.
func (r *resources) tellUpstreamUpdates() {
	for {
		r.mu.Lock()
		pending := r.upUpdated
		r.upUpdated = nil
		if len(pending) == 0 || r.ended {
			r.upTelling = false
			r.mu.Unlock()
			return
		}
		r.mu.Unlock()
		for uri := range pending {
			if err := r.server.ResourceUpdated(context.Background(), &mcp.ResourceUpdatedNotificationParams{URI: uri}); err != nil {
				r.logger.Warn("cannot tell the client that a resource changed", "uri", uri, "error", err)
			}
		}
	}
}

// forget ends the session's subscription to uri. The caller holds mu.
func (r *resources) forget(uri string, ss *mcp.ServerSession) {
	delete(r.subs[uri], ss)
	if len(r.subs[uri]) == 0 {
		delete(r.subs, uri)
	}
}

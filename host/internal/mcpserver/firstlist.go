package mcpserver

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// firstList is what a session's server knows of the client's first
// tools/list (its first page): whether it has come, whether it has been
// answered, and the version of the tools it was answered from.
//
// At a start, initialize is answered at once and the plugins' tools arrive
// behind it, while the client's first tools/list waits for them
// (waitReady); the SDK announces each change of the server's tools with a
// notifications/tools/list_changed some milliseconds later, so every
// client listed its tools twice. A notification for changes that the first
// list already held tells the client nothing, and is held back
// (skipChangesBeforeFirstList), and so is one for the session's first load
// of the tools (load, behind initialize) when nothing changed since: the
// client has seen no list yet, and the tools were the host's when it
// connected. Every other notification goes out as the SDK sends it: before
// the client has listed (it may list only when told), and for any change
// after the first list was taken, whoever listed since (a client may list
// for one purpose and refresh its tools for the model only when told).
type firstList struct {
	state firstListState
	done  chan struct{} // closed when the first list is answered or failed
	at    int64         // tools.version the first list was taken at; -1: none
}

type firstListState int

const (
	notListed firstListState = iota
	listing                  // the first tools/list came and is not answered yet
	listed                   // answered (at holds its version) or failed (at is -1)
)

// firstListKey marks the context of the client's first tools/list.
type firstListKey struct{}

// trackFirstList notes when the session's first tools/list (a request
// without a cursor) comes and when it is answered.
func (t *tools) trackFirstList(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method != "tools/list" || !firstPage(req) {
			return next(ctx, method, req)
		}
		t.mu.Lock()
		first := t.first.state == notListed
		if first {
			t.first = firstList{state: listing, done: make(chan struct{}), at: -1}
		}
		t.mu.Unlock()
		if !first {
			return next(ctx, method, req)
		}
		defer func() {
			t.mu.Lock()
			t.first.state = listed
			close(t.first.done)
			t.mu.Unlock()
		}()
		res, err := next(context.WithValue(ctx, firstListKey{}, true), method, req)
		if err != nil {
			t.mu.Lock()
			t.first.at = -1 // not answered: hold nothing back
			t.mu.Unlock()
		}
		return res, err
	}
}

// listing notes the version of the tools the SDK is about to list, when it
// is for the client's first tools/list.
func (t *tools) listing(ctx context.Context) {
	if ctx.Value(firstListKey{}) == nil {
		return
	}
	t.mu.Lock()
	t.first.at = t.version
	t.mu.Unlock()
}

// skipChangesBeforeFirstList holds back a notifications/tools/list_changed
// for changes that the client's first tools/list held (see firstList). One
// sent while that list is under way waits for its answer, then is judged.
func (t *tools) skipChangesBeforeFirstList(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method != "notifications/tools/list_changed" {
			return next(ctx, method, req)
		}
		t.mu.Lock()
		state, done := t.first.state, t.first.done
		onlyLoad := t.loaded >= 0 && t.loaded == t.version
		t.mu.Unlock()
		switch state {
		case notListed:
			if onlyLoad {
				return nil, nil
			}
			return next(ctx, method, req)
		case listing:
			select {
			case <-done:
			case <-ctx.Done():
				return next(ctx, method, req)
			}
		}
		t.mu.Lock()
		held := t.first.at >= 0 && t.first.at == t.version
		t.mu.Unlock()
		if held {
			return nil, nil
		}
		return next(ctx, method, req)
	}
}

// firstPage says a tools/list request asks for the first page.
func firstPage(req mcp.Request) bool {
	p, ok := req.GetParams().(*mcp.ListToolsParams)
	return !ok || p == nil || p.Cursor == ""
}

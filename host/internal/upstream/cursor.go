package upstream

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/ramabana/ramabana-mcp/internal/jsonmember"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Per MCP, "" is a valid cursor: only an absent nextCursor ends a
// tools/list walk (docs/upstream.md). The go-sdk's types drop an empty
// cursor (omitempty) both ways, so a server paginating with "" would lose
// every page after it. emptyCursor stands for "" inside this process: the
// connection turns a tools/list result's "nextCursor": "" into it, and it
// back into "cursor": "" in the request for the next page.
const emptyCursor = "\x00empty cursor"

// shownCursor is cursor as the server sent it, for errors.
func shownCursor(cursor string) string {
	if cursor == emptyCursor {
		return ""
	}
	return cursor
}

// cursorTransport gives its connections the empty-cursor translation,
// and notes in hints which boolean hints each listed tool's annotations
// leave out.
type cursorTransport struct {
	mcp.Transport
	hints *absentHints
}

func (t cursorTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	conn, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &cursorConn{Connection: conn, listing: map[any]bool{}, hints: t.hints}, nil
}

type cursorConn struct {
	mcp.Connection
	hints *absentHints // nil: not noted

	mu      sync.Mutex
	listing map[any]bool // ids of the tools/list requests awaiting a response
}

// boolHints are the hints the go-sdk's ToolAnnotations cannot leave out:
// it writes false for an absent one.
var boolHints = []string{"readOnlyHint", "idempotentHint"}

// absentHints are, by tool name, the boolHints a server's tools/list left
// out of the tool's annotations (or sent no annotations for): re-exported,
// they stay out (docs/upstream.md).
type absentHints struct {
	mu     sync.Mutex
	byTool map[string][]string
}

func (a *absentHints) of(tool string) []string {
	if a == nil {
		return nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.byTool[tool]
}

// note reads a tools/list result's tools.
func (a *absentHints) note(result json.RawMessage) {
	if a == nil {
		return
	}
	var page struct {
		Tools []struct {
			Name        string                     `json:"name"`
			Annotations map[string]json.RawMessage `json:"annotations"`
		} `json:"tools"`
	}
	if json.Unmarshal(result, &page) != nil {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.byTool == nil {
		a.byTool = map[string][]string{}
	}
	for _, t := range page.Tools {
		var absent []string
		for _, h := range boolHints {
			if _, ok := t.Annotations[h]; !ok { // none at all: each is absent
				absent = append(absent, h)
			}
		}
		a.byTool[t.Name] = absent
	}
}

func (c *cursorConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if req, ok := msg.(*jsonrpc.Request); ok && req.Method == "tools/list" && req.ID.IsValid() {
		c.mu.Lock()
		c.listing[req.ID.Raw()] = true
		c.mu.Unlock()
		if params, ok := jsonmember.ReplaceString(req.Params, "cursor", emptyCursor, ""); ok {
			sent := *req
			sent.Params = params
			msg = &sent
		}
	}
	return c.Connection.Write(ctx, msg)
}

func (c *cursorConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	resp, ok := msg.(*jsonrpc.Response)
	if err != nil || !ok || !resp.ID.IsValid() {
		return msg, err
	}
	c.mu.Lock()
	listing := c.listing[resp.ID.Raw()]
	delete(c.listing, resp.ID.Raw())
	c.mu.Unlock()
	if listing {
		c.hints.note(resp.Result)
		if result, ok := jsonmember.ReplaceString(resp.Result, "nextCursor", "", emptyCursor); ok {
			got := *resp
			got.Result = result
			msg = &got
		}
	}
	return msg, nil
}

package upstream

import (
	"bytes"
	"context"
	"encoding/json"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Per MCP, "" is a valid cursor: only an absent nextCursor ends a
// tools/list walk (003). The go-sdk's types drop an empty cursor
// (omitempty) both ways, so a server paginating with "" would lose every
// page after it. emptyCursor stands for "" inside this process: the
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

// cursorTransport gives its connections the empty-cursor translation.
type cursorTransport struct{ mcp.Transport }

func (t cursorTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	conn, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &cursorConn{Connection: conn, listing: map[any]bool{}}, nil
}

type cursorConn struct {
	mcp.Connection

	mu      sync.Mutex
	listing map[any]bool // ids of the tools/list requests awaiting a response
}

func (c *cursorConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if req, ok := msg.(*jsonrpc.Request); ok && req.Method == "tools/list" && req.ID.IsValid() {
		c.mu.Lock()
		c.listing[req.ID.Raw()] = true
		c.mu.Unlock()
		if params, ok := replaceString(req.Params, "cursor", emptyCursor, ""); ok {
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
		if result, ok := replaceString(resp.Result, "nextCursor", "", emptyCursor); ok {
			got := *resp
			got.Result = result
			msg = &got
		}
	}
	return msg, nil
}

// replaceString returns the JSON object obj with its member key set to to,
// when the member is the string from; ok is false, and obj unchanged,
// otherwise (no such member, another value, not an object).
func replaceString(obj json.RawMessage, key, from, to string) (json.RawMessage, bool) {
	if len(bytes.TrimSpace(obj)) == 0 {
		return obj, false
	}
	var members map[string]json.RawMessage
	if json.Unmarshal(obj, &members) != nil {
		return obj, false
	}
	var value string
	if raw, present := members[key]; !present || json.Unmarshal(raw, &value) != nil || value != from {
		return obj, false
	}
	members[key], _ = json.Marshal(to)
	out, err := json.Marshal(members)
	if err != nil {
		return obj, false
	}
	return out, true
}

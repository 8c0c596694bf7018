package upstream

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/ramabana/ramabana-mcp/sdk"
)

// Tool is one upstream tool.
type Tool struct {
	Server      string // the server id
	Name        string // the upstream name, used in tools/call
	Namespaced  string // <server>__<name>, the name it registers under
	Title       string
	Description string // may be empty: some servers leave it out
	// InputSchema is the upstream JSON Schema; {"type":"object"} when the
	// server sent none.
	InputSchema json.RawMessage
	// OutputSchema is nil when the server sent none.
	OutputSchema json.RawMessage
	Annotations  *mcp.ToolAnnotations // nil when the server sent none
	// Meta is the tool's _meta as listed; nil when there was none.
	Meta map[string]any
	// Order is the tool's place in the server's listing, 0 first, over
	// every page.
	Order int
	// AbsentHints are "readOnlyHint" and "idempotentHint" when the tool's
	// annotations left them out: Annotations says false for them, as the
	// go-sdk reads them.
	AbsentHints []string
}

// Tools returns every tool the server lists, following nextCursor across
// tools/list pages in upstream order; "" is a cursor like any other, and
// only an absent nextCursor ends the walk. A cursor seen before, more than
// [MaxToolPages] pages, or a failed page is a [*ToolsListError]. A tool name
// listed twice keeps its first definition.
func (c *Conn) Tools(ctx context.Context) ([]Tool, error) {
	tools, err := c.tools(ctx)
	return tools, c.redact(err)
}

func (c *Conn) tools(ctx context.Context) ([]Tool, error) {
	id := c.server.ID
	var tools []Tool
	names := map[string]bool{}
	registered := map[string]string{} // namespaced name → upstream name
	used := map[string]bool{}
	cursor := ""
	for page := 1; ; page++ {
		if page > MaxToolPages {
			return nil, &ToolsListError{Server: id, Code: CodePaginationExceeded, Page: page, Cursor: shownCursor(cursor)}
		}
		res, err := c.session.ListTools(ctx, &mcp.ListToolsParams{Cursor: cursor})
		if err != nil {
			return nil, &ToolsListError{Server: id, Code: CodePageFailed, Page: page, Cursor: shownCursor(cursor), Err: err}
		}
		for _, t := range res.Tools {
			if t == nil || names[t.Name] {
				if t != nil {
					c.log.Warn("upstream tool listed twice; keeping the first", "tool", t.Name)
				}
				continue
			}
			tool, err := convertTool(id, t)
			if err != nil {
				c.log.Warn("upstream tool left out", "tool", t.Name, "error", err)
				continue
			}
			if other, taken := registered[tool.Namespaced]; taken {
				c.log.Warn("upstream tool left out: its shortened name is another tool's", "tool", t.Name, "name", tool.Namespaced, "other", other)
				continue
			}
			registered[tool.Namespaced] = t.Name
			names[t.Name] = true
			tool.Order = len(tools)
			tool.AbsentHints = c.hints.of(t.Name)
			tools = append(tools, tool)
		}
		// Only an absent nextCursor ends the walk: "" arrives as emptyCursor
		// (cursor.go).
		next := res.NextCursor
		if next == "" {
			return tools, nil
		}
		if used[next] || next == cursor {
			return nil, &ToolsListError{Server: id, Code: CodeRepeatedCursor, Page: page, Cursor: shownCursor(next)}
		}
		used[next] = true
		cursor = next
	}
}

func convertTool(server string, t *mcp.Tool) (Tool, error) {
	// Namespace makes any other name one that clients accept.
	if t.Name == "" || len(t.Name) > 128 || !utf8.ValidString(t.Name) || strings.ContainsFunc(t.Name, unicode.IsControl) {
		return Tool{}, fmt.Errorf("tool name %q: want 1 to 128 bytes of UTF-8 without control characters", t.Name)
	}
	in, err := schemaJSON(t.InputSchema)
	if err != nil {
		return Tool{}, fmt.Errorf("tool %q input schema: %w", t.Name, err)
	}
	if in == nil {
		in = json.RawMessage(`{"type":"object"}`)
	}
	var root struct {
		Type any `json:"type"`
	}
	if json.Unmarshal(in, &root) != nil || root.Type != "object" {
		return Tool{}, fmt.Errorf("tool %q input schema: the root must have \"type\": \"object\"", t.Name)
	}
	out, err := schemaJSON(t.OutputSchema)
	if err != nil {
		return Tool{}, fmt.Errorf("tool %q output schema: %w", t.Name, err)
	}
	return Tool{
		Server:       server,
		Name:         t.Name,
		Namespaced:   Namespace(server, t.Name),
		Title:        toolTitle(t),
		Description:  t.Description,
		InputSchema:  in,
		OutputSchema: out,
		Annotations:  t.Annotations,
		Meta:         t.Meta,
	}, nil
}

func toolTitle(t *mcp.Tool) string {
	if t.Title != "" {
		return t.Title
	}
	if t.Annotations != nil {
		return t.Annotations.Title
	}
	return ""
}

func schemaJSON(v any) (json.RawMessage, error) {
	if v == nil {
		return nil, nil
	}
	b, err := json.Marshal(v)
	if err != nil || bytes.Equal(b, []byte("null")) {
		return nil, err
	}
	return b, nil
}

// Call calls the upstream tool by its upstream name. args must be a JSON
// object; empty or null means {}. progress, when not nil, receives the
// call's progress notifications. Cancelling ctx cancels the call upstream
// (notifications/cancelled). A tool's own failure is a Result with IsError;
// a Go error is a protocol or connection fault (unknown tool, invalid
// params, the server gone), which callers report to a model as an error
// result.
func (c *Conn) Call(ctx context.Context, tool string, args json.RawMessage, progress ProgressFunc) (*sdk.Result, error) {
	res, err := c.call(ctx, tool, args, progress)
	return res, c.redact(err)
}

func (c *Conn) call(ctx context.Context, tool string, args json.RawMessage, progress ProgressFunc) (*sdk.Result, error) {
	name := c.server.ID + Separator + tool // for errors: the upstream name in full
	obj, err := argsObject(args)
	if err != nil {
		return nil, fmt.Errorf("call %s: %w", name, err)
	}
	params := &mcp.CallToolParams{Name: tool, Arguments: obj}
	if progress != nil {
		token, done := c.watchProgress(progress)
		defer done()
		params.SetProgressToken(token)
	}
	injectTrace(ctx, params)
	res, err := c.session.CallTool(ctx, params)
	if err != nil {
		return nil, fmt.Errorf("call %s: %w", name, err)
	}
	out, err := convertResult(res)
	if err != nil {
		return nil, fmt.Errorf("call %s: %w", name, err)
	}
	return out, nil
}

func argsObject(args json.RawMessage) (json.RawMessage, error) {
	trimmed := bytes.TrimSpace(args)
	if len(trimmed) == 0 || bytes.Equal(trimmed, []byte("null")) {
		return json.RawMessage(`{}`), nil
	}
	if trimmed[0] != '{' || !json.Valid(trimmed) {
		return nil, fmt.Errorf("arguments must be a JSON object, got %.40s", trimmed)
	}
	return json.RawMessage(trimmed), nil
}

// injectTrace puts ctx's span context, when it has one (telemetry on: the
// host's span of the call), in the request's _meta as W3C traceparent and
// tracestate, where an MCP server that traces finds its parent, as
// ramabana finds its own clients'. Without a span it adds nothing.
func injectTrace(ctx context.Context, params *mcp.CallToolParams) {
	if !trace.SpanContextFromContext(ctx).IsValid() {
		return
	}
	c := propagation.MapCarrier{}
	propagation.TraceContext{}.Inject(ctx, c)
	if params.Meta == nil {
		params.Meta = mcp.Meta{}
	}
	for k, v := range c {
		params.Meta[k] = v
	}
}

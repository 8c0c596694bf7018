// Package mcpserver exports a host over MCP: one tool per mounted catalog
// entry (the plugin's own schema and description, annotations from the
// entry, and _meta.mcp_server task tags), kept in step with the host as
// plugins come and go; the skills and status resources; and progress
// notifications for the calls that ask for them. Every tool call takes the
// host's one call path.
package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"math"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ramabana/ramabana-mcp/catalog"
	"github.com/ramabana/ramabana-mcp/host"
	"github.com/ramabana/ramabana-mcp/sdk"
)

// MetaKey is the _meta key of the task tags (001_fc2aff96529d39f8.txt).
const MetaKey = "mcp_server"

// New builds the MCP server over h: one tool per mounted catalog entry. A
// tool that is not mounted is absent, and calling it is the SDK's
// unknown-tool error. The server's tools follow the host's as plugins come
// and go (h.OnToolsChanged), and the SDK tells clients with
// notifications/tools/list_changed. version is the server's version.
func New(h *host.Host, version string, logger *slog.Logger) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{
		Name:    "ramabana",
		Title:   "Ramabana",
		Version: version,
	}, &mcp.ServerOptions{
		Instructions: Instructions,
		// Tools come and go with plugins: advertise list changes even
		// when the server starts with none.
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{ListChanged: true}},
		// The SDK logs every session's start and end at info; only its
		// warnings are news to a user reading the host's log.
		Logger: slog.New(minLevel{logger.Handler(), slog.LevelWarn}),
	})
	t := &tools{server: s, host: h, logger: logger, exported: map[string]*catalog.Entry{}}
	h.OnToolsChanged(t.sync) // for the host's life, as the server's; before the first sync, so no change falls between
	t.sync()
	addResources(s, h)
	return s
}

// tools keeps an MCP server's tools in step with a host's mounted ones.
type tools struct {
	server *mcp.Server
	host   *host.Host
	logger *slog.Logger

	mu       sync.Mutex
	exported map[string]*catalog.Entry // the tools the server has, by name
}

// sync makes the MCP server's tools the mounted catalog entries: removed
// and replaced entries go, new ones come.
func (t *tools) sync() {
	t.mu.Lock()
	defer t.mu.Unlock()
	want := map[string]*catalog.Entry{}
	for _, e := range t.host.Mounted() {
		want[e.Spec.Name] = e
	}
	var gone []string
	for name, e := range t.exported {
		if want[name] != e {
			gone = append(gone, name)
			delete(t.exported, name)
		}
	}
	if len(gone) > 0 {
		t.server.RemoveTools(gone...)
	}
	for name, e := range want {
		if t.exported[name] == nil {
			t.server.AddTool(mcpTool(e), t.handler(name))
			t.exported[name] = e
		}
	}
}

// mcpTool is the MCP form of a catalog entry.
func mcpTool(e *catalog.Entry) *mcp.Tool {
	hints := e.Hints()
	t := &mcp.Tool{
		Name:        e.Spec.Name,
		Title:       e.Spec.Title,
		Description: e.Spec.Description,
		InputSchema: json.RawMessage(e.Spec.InputSchema),
		Annotations: &mcp.ToolAnnotations{
			Title:           e.Spec.Title,
			ReadOnlyHint:    hints.ReadOnly,
			DestructiveHint: &hints.Destructive,
			IdempotentHint:  hints.Idempotent,
			OpenWorldHint:   &hints.OpenWorld,
		},
		Meta: mcp.Meta{MetaKey: TaskMeta(e.Spec)},
	}
	if len(e.Spec.OutputSchema) > 0 {
		t.OutputSchema = json.RawMessage(e.Spec.OutputSchema)
	}
	if e.GroupMode == sdk.ModeLegacy {
		t.Meta["deprecated"] = map[string]any{"replaced_by": e.ReplacedBy}
	}
	return t
}

// TaskMeta is the _meta.mcp_server value of a tool: task always,
// as_user_message for context tools, mode for skill tools.
func TaskMeta(s sdk.ToolSpec) map[string]any {
	m := map[string]any{"task": string(s.EffectiveTask())}
	switch s.EffectiveTask() {
	case sdk.TaskContext:
		m["as_user_message"] = s.AsUserMessage
	case sdk.TaskSkill:
		mode := s.Mode
		if mode == "" {
			mode = sdk.SkillAuto
		}
		m["mode"] = string(mode)
	}
	return m
}

// handler calls the tool through the host's one call path and turns the
// outcome into an MCP result. A plugin failure is a tool error naming the
// group, so the client's model sees it; only protocol faults are Go errors.
func (t *tools) handler(name string) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		events := &sessionEvents{ctx: ctx, session: req.Session, token: req.Params.GetProgressToken(), tool: name, logger: t.logger}
		res, err := t.host.Call(ctx, name, req.Params.Arguments, events)
		if errors.Is(err, sdk.ErrUnknownTool) {
			return nil, err
		}
		if err != nil {
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}}, nil
		}
		return mcpResult(res), nil
	}
}

func mcpResult(r *sdk.Result) *mcp.CallToolResult {
	out := &mcp.CallToolResult{IsError: r.IsError, Content: make([]mcp.Content, 0, len(r.Content))}
	for _, c := range r.Content {
		switch {
		case c.Image != nil:
			out.Content = append(out.Content, &mcp.ImageContent{Data: c.Image.Data, MIMEType: c.Image.MIMEType})
		case c.Resource != nil:
			out.Content = append(out.Content, &mcp.EmbeddedResource{Resource: &mcp.ResourceContents{
				URI: c.Resource.URI, MIMEType: c.Resource.MIMEType, Text: c.Resource.Text, Blob: c.Resource.Blob,
			}})
		default:
			out.Content = append(out.Content, &mcp.TextContent{Text: c.Text})
		}
	}
	if len(r.Structured) > 0 {
		out.StructuredContent = json.RawMessage(r.Structured)
		if len(out.Content) == 0 {
			// Clients that read only content still get the result.
			out.Content = append(out.Content, &mcp.TextContent{Text: string(r.Structured)})
		}
	}
	return out
}

// sessionEvents forwards a call's progress to the MCP client as progress
// notifications, when the client sent a progress token. Log events go to the
// host's log: MCP's logging notifications are deprecated (SEP-2577).
type sessionEvents struct {
	ctx     context.Context
	session *mcp.ServerSession
	token   any
	tool    string
	callID  string // set by the call path before the call starts
	logger  *slog.Logger

	mu   sync.Mutex
	sent bool
	last float64
}

// SetCallID names the call in the events' log lines; the host's call path
// sets it before the call starts.
func (e *sessionEvents) SetCallID(id string) { e.callID = id }

func (e *sessionEvents) Progress(progress, total float64, message string) {
	if e.token == nil || e.session == nil {
		return
	}
	// MCP requires progress to increase: drop what would not, and what is
	// not a number.
	if math.IsNaN(progress) || math.IsInf(progress, 0) {
		return
	}
	e.mu.Lock()
	if e.sent && progress <= e.last {
		e.mu.Unlock()
		return
	}
	e.sent, e.last = true, progress
	e.mu.Unlock()
	_ = e.session.NotifyProgress(e.ctx, &mcp.ProgressNotificationParams{
		ProgressToken: e.token, Progress: progress, Total: total, Message: message,
	})
}

var slogLevels = map[sdk.LogLevel]slog.Level{
	sdk.LevelDebug: slog.LevelDebug, sdk.LevelInfo: slog.LevelInfo, sdk.LevelWarning: slog.LevelWarn, sdk.LevelError: slog.LevelError,
}

func (e *sessionEvents) Log(level sdk.LogLevel, message string) {
	e.logger.Log(e.ctx, slogLevels[level], message, "tool", e.tool, "call_id", e.callID)
}

// minLevel drops records below its level, whatever the wrapped handler
// would accept.
type minLevel struct {
	slog.Handler
	level slog.Level
}

func (m minLevel) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= m.level && m.Handler.Enabled(ctx, l)
}

func (m minLevel) WithAttrs(attrs []slog.Attr) slog.Handler {
	return minLevel{m.Handler.WithAttrs(attrs), m.level}
}

func (m minLevel) WithGroup(name string) slog.Handler {
	return minLevel{m.Handler.WithGroup(name), m.level}
}

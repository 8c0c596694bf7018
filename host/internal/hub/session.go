package hub

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/ramabana/ramabana-mcp/host/internal/activity"
	"github.com/ramabana/ramabana-mcp/host/internal/catalog"
	"github.com/ramabana/ramabana-mcp/sdk"
)

// callerKey carries who makes a call through Host.Call.
type callerKey struct{}

// WithCaller marks ctx's calls as made by caller (the ask agent marks its
// turn's calls); calls without a mark are the MCP client's.
func WithCaller(ctx context.Context, caller activity.Caller) context.Context {
	return context.WithValue(ctx, callerKey{}, caller)
}

func callerOf(ctx context.Context) activity.Caller {
	if c, ok := ctx.Value(callerKey{}).(activity.Caller); ok {
		return c
	}
	return activity.Client
}

// upstreamSessionKey carries the conversation a call is made in.
type upstreamSessionKey struct{}

// WithUpstreamSession marks ctx's calls as made in the conversation
// whose mcp_connect activations s holds: search_capabilities then finds
// the tools s connected too.
func WithUpstreamSession(ctx context.Context, s *UpstreamSession) context.Context {
	if s == nil {
		return ctx
	}
	return context.WithValue(ctx, upstreamSessionKey{}, s)
}

func upstreamSessionOf(ctx context.Context) *UpstreamSession {
	s, _ := ctx.Value(upstreamSessionKey{}).(*UpstreamSession)
	return s
}

// activityKey carries the activity log of the MCP session a call is made
// in.
type activityKey struct{}

// WithActivity records ctx's calls in log, an MCP session's own
// (activity.Log.Session of Host.Activity), which the session's activity
// and changes tools read: each HTTP session sees what it did, and the
// server's log (the status) what every session did. Calls without one are
// recorded in the server's log alone, and the session tools read that.
func WithActivity(ctx context.Context, log *activity.Log) context.Context {
	if log == nil {
		return ctx
	}
	return context.WithValue(ctx, activityKey{}, log)
}

// logOf is the activity log ctx's calls are recorded in.
func (h *Host) logOf(ctx context.Context) *activity.Log {
	if l, ok := ctx.Value(activityKey{}).(*activity.Log); ok {
		return l
	}
	return h.activity
}

// SessionGroup names the in-process group of activity and changes.
const SessionGroup = "session"

// sessionGroup is the in-process "session" group: what this session did
// and changed, from the activity log. Its calls are recorded like any
// other.
type sessionGroup struct {
	box *sdk.Toolbox
}

type activityArgs struct {
	Limit  int    `json:"limit,omitempty" jsonschema:"most calls (default 30)"`
	Tool   string `json:"tool,omitempty" jsonschema:"only calls of this tool"`
	Caller string `json:"caller,omitempty" jsonschema:"only this caller: client, agent, agent:<turn> or server"`
	Event  string `json:"event,omitempty" jsonschema:"only this kind: call, upstream_error or upstream_register"`
}

type changesArgs struct {
	Path         string `json:"path,omitempty" jsonschema:"only this file, relative to the first served folder"`
	Diff         *bool  `json:"diff,omitempty" jsonschema:"include diffs (default true)"`
	ContextLines int    `json:"context_lines,omitempty" jsonschema:"lines of context in diffs (default 3)"`
}

// The input schemas of the host's own tools, each as sdk.MustSchemaFor
// makes it of the tool's arguments (TestOwnSchemasAreTheirArgs checks):
// written out, so that a start does not reflect over the types, ~1 ms of a
// start that the client waits for (bench/README.md).
const (
	activitySchema = `{"type":"object","properties":{"limit":{"type":"integer","description":"most calls (default 30)"},"tool":{"type":"string","description":"only calls of this tool"},"caller":{"type":"string","description":"only this caller: client, agent, agent:\u003cturn\u003e or server"},"event":{"type":"string","description":"only this kind: call, upstream_error or upstream_register"}},"additionalProperties":false}`
	changesSchema  = `{"type":"object","properties":{"path":{"type":"string","description":"only this file, relative to the first served folder"},"diff":{"type":"boolean","description":"include diffs (default true)"},"context_lines":{"type":"integer","description":"lines of context in diffs (default 3)"}},"additionalProperties":false}`
	searchSchema   = `{"type":"object","properties":{"query":{"type":"string","description":"what the tool should do, in a few plain words"},"limit":{"type":"integer","description":"most tools (default 8)"},"server":{"type":"string","description":"only this server's tools"}},"required":["query"],"additionalProperties":false}`
)

// newSessionGroup serves the session group: each call reads the log of
// its caller's session (logOf); root says the first served folder, which
// relative paths are relative to.
func newSessionGroup(logOf func(context.Context) *activity.Log, root func() string) *sessionGroup {
	box := sdk.NewToolbox(SessionGroup, sdk.WithVersion("1"),
		sdk.WithDescription("what this session did and changed"))
	box.AddGroup(sdk.GroupSpec{Name: SessionGroup, Description: "What this session did (every tool call, by the client or the ask agent) and the files it changed."},
		sdk.TypedTool(sdk.ToolSpec{
			Name: "activity", Title: "Recent activity", Kind: sdk.KindRead, InputSchema: json.RawMessage(activitySchema),
			Description: `List this session's recent tool calls, newest first, with caller, outcome, duration, arguments and the files each changed; also upstream servers' registrations and failures.`,
		}, func(ctx context.Context, _ *sdk.Request, a activityArgs) (*sdk.Result, error) {
			log := logOf(ctx)
			if a.Limit <= 0 {
				a.Limit = 30
			}
			recs := log.Recent(min(a.Limit, 1000), activity.Filter{Tool: a.Tool, Caller: activity.Caller(a.Caller), Event: a.Event})
			if len(recs) == 0 {
				return sdk.TextResult("no calls recorded yet"), nil
			}
			return sdk.TextResult(activity.RenderActivity(recs)), nil
		}),
		sdk.TypedTool(sdk.ToolSpec{
			Name: "changes", Title: "Files changed this session", Kind: sdk.KindRead, InputSchema: json.RawMessage(changesSchema),
			Description: `List the files this session created, changed or deleted, each with a unified diff from before its first change to now.`,
		}, func(ctx context.Context, _ *sdk.Request, a changesArgs) (*sdk.Result, error) {
			log := logOf(ctx)
			entries := log.Changes()
			if a.Path != "" {
				path := a.Path
				if !filepath.IsAbs(path) {
					path = filepath.Join(root(), path)
				}
				path = filepath.Clean(path)
				var only []activity.FileEntry
				for _, e := range entries {
					if e.Path == path {
						only = append(only, e)
					}
				}
				if len(only) == 0 {
					return nil, sdk.Failf("no change recorded for %s this session", a.Path)
				}
				entries = only
			}
			if len(entries) == 0 {
				return sdk.TextResult("no files changed this session"), nil
			}
			diffs := map[string]string{}
			if a.Diff == nil || *a.Diff {
				ctx := a.ContextLines
				if ctx <= 0 {
					ctx = activity.DefaultContext
				}
				for _, e := range entries {
					d, err := log.Diff(e.Path, ctx)
					switch {
					case err == nil:
						diffs[e.Path] = d
					case errors.Is(err, activity.ErrOnlyHashes):
						diffs[e.Path] = err.Error()
					default:
						return nil, fmt.Errorf("diff %s: %w", e.Path, err)
					}
				}
			}
			return sdk.TextResult(activity.RenderChanges(entries, diffs)), nil
		}),
	)
	return &sessionGroup{box: box}
}

// Call runs a session tool in-process.
func (s *sessionGroup) Call(ctx context.Context, call *sdk.Call, events sdk.Events) (*sdk.Result, error) {
	return s.box.Call(ctx, call, events)
}

// register adds the session group to the catalog.
func (s *sessionGroup) register(c *catalog.Catalog) error {
	d, err := s.box.Describe(context.Background(), sdk.Host{})
	if err != nil {
		return err
	}
	return c.Add(SessionGroup, catalog.InProcess, d, s)
}

var _ catalog.Caller = (*sessionGroup)(nil)

// Package ask mounts the ask agent on a host: one `ask(task)` tool that runs
// a whole agent turn in-process over the host's own catalog, with
// mcp_connect to the upstream MCP servers of the config.
//
// Every tool call of a turn goes through the host's call path as the
// turn's caller (activity.Agent(turn)), so it lands in the activity feed
// and the changes ledger like a client's call. The agent may call write
// tools whatever --write says: --write decides only what the client may
// call directly.
//
// The agent is a task-aware client of the catalog (docs/agent-tasks.md):
// each tool reaches it with its agent task (catalog.Entry.TaskInfo, so an
// upstream server's _meta counts too), and the host's skills (skill files
// and skill tools, the text of skill://{name}) are its skill library. The
// calls of context, skill, post and evaluation tools are the turn's like
// the model's.
package ask

import (
	"context"
	"encoding/json"
	"log/slog"
	"strconv"
	"sync/atomic"

	"github.com/ramabana/ramabana-mcp/host/internal/activity"
	"github.com/ramabana/ramabana-mcp/host/internal/agent"
	"github.com/ramabana/ramabana-mcp/host/internal/catalog"
	"github.com/ramabana/ramabana-mcp/host/internal/hub"
	"github.com/ramabana/ramabana-mcp/internal/skills"
	"github.com/ramabana/ramabana-mcp/sdk"
	"github.com/ramabana/ramabana-mcp/tasks"
)

// Config mounts the agent.
type Config struct {
	Host    *hub.Host
	Backend agent.Backend
	Model   string
	// MaxSteps and ContextBudget bound a turn (0: the agent's defaults).
	MaxSteps, ContextBudget int
	// MaxRetries bounds the attempts after a failed evaluation: 0 means
	// agent.DefaultMaxRetries, agent.NoRetries none.
	MaxRetries int
	Logger     *slog.Logger
}

// Mount adds the ask tool to the host (group "agent") and the agent's
// status to ramabana://status.
func Mount(cfg Config) (*agent.Agent, error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	ag := agent.New(agent.Config{
		Backend: cfg.Backend, Model: cfg.Model, Tools: toolset{cfg.Host}, Skills: library{cfg.Host},
		MaxSteps: cfg.MaxSteps, ContextBudget: cfg.ContextBudget, MaxRetries: cfg.MaxRetries, Logger: cfg.Logger,
	})
	m := &mounted{cfg: cfg, agent: ag}
	box := sdk.NewToolbox(hub.AgentGroup, sdk.WithVersion("1"),
		sdk.WithDescription("the ask agent"))
	box.AddGroup(sdk.GroupSpec{Name: hub.AgentGroup, Description: "Delegate a whole task to ramabana's own agent."},
		sdk.TypedTool(sdk.ToolSpec{
			Name: "ask", Title: "Ask the agent",
			Description: `Hand a whole task to ramabana's own agent, which runs it to the end with this server's tools (and may change files), then returns one answer. Use it for work that takes many tool calls; describe the task fully, as to a colleague who sees only this message.`,
			Kind:        sdk.KindAct,
			// Destructive: a turn may change files. Not marked open-world: the
			// model server may be local, and --web=false must not hide ask.
			Annotations: sdk.Annotations{Destructive: ptr(true)},
		}, m.ask))
	if err := cfg.Host.AddGroup(hub.AgentGroup, box); err != nil {
		return nil, err
	}
	cfg.Host.SetAgentStatus(func() any { return ag.Status() })
	return ag, nil
}

func ptr[T any](v T) *T { return &v }

type mounted struct {
	cfg   Config
	agent *agent.Agent
	turns atomic.Int64
}

type askArgs struct {
	Task string `json:"task" jsonschema:"the task, complete and self-contained"`
}

// ask runs one turn. Its failures are results the client's model reads:
// an unreachable model, a refused key, the step limit.
func (m *mounted) ask(ctx context.Context, req *sdk.Request, a askArgs) (*sdk.Result, error) {
	if a.Task == "" {
		return nil, sdk.Failf("task is empty: say what the agent should do")
	}
	turn := strconv.FormatInt(m.turns.Add(1), 10)
	ctx = hub.WithCaller(ctx, activity.Agent(turn))
	var conn agent.Connector
	if len(m.cfg.Host.LazyUpstreams()) > 0 {
		s := m.cfg.Host.NewUpstreamSession(true)
		ctx = hub.WithUpstreamSession(ctx, s) // the turn's searches find what it connects
		conn = &connector{s}
	}
	out, err := m.agent.Run(ctx, a.Task, agent.RunOptions{
		Connector: conn,
		Progress: func(n int, message string) {
			req.Events.Progress(float64(n), 0, message)
		},
	})
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, sdk.Failf("the ask agent could not finish: %v", err)
	}
	// The answer is the agent's model's own words, with the placeholders
	// it was shown: they are turned back into values, as everything inside
	// the server is, and the gate shows them as the same placeholders to
	// the client. The summary is the evaluation tools' data, not the
	// model's: it stays as it is.
	text := m.cfg.Host.Gate().Inward(out.Answer)
	if sum := out.EvaluationSummary(); sum != "" {
		text += "\n\n" + sum
	}
	return sdk.TextResult(text), nil
}

// toolset is the host's catalog as the agent sees it.
type toolset struct{ h *hub.Host }

var (
	_ agent.Toolset   = toolset{}
	_ agent.Skills    = library{}
	_ agent.Connector = (*connector)(nil)
)

func (t toolset) Tools() []agent.Tool {
	entries := t.h.AgentTools()
	out := make([]agent.Tool, 0, len(entries))
	for _, e := range entries {
		out = append(out, agentTool(e))
	}
	return out
}

// agentTool is an entry as the agent sees it: the catalog's own words,
// and its task.
func agentTool(e *catalog.Entry) agent.Tool {
	return agent.Tool{Name: e.Spec.Name, Description: e.Spec.Description, InputSchema: e.Spec.InputSchema, Task: e.TaskInfo()}
}

func (t toolset) Call(ctx context.Context, name string, args json.RawMessage) (*sdk.Result, error) {
	return t.h.AgentCall(ctx, name, args, nil)
}

// library is the host's skills as the agent's skill library: a skill
// served by a skill tool is always-on when the tool serving that name says
// so (hub.SkillLibrary: not another tool whose name maps to the same
// skill, nor one a skill file shadows).
type library struct{ h *hub.Host }

func (l library) List() []agent.Skill {
	ix, tools := l.h.SkillLibrary()
	list := ix.List()
	out := make([]agent.Skill, len(list))
	for i, s := range list {
		e := tools[s.Name]
		alwaysOn := s.Source == skills.Plugin && e != nil && e.TaskInfo().Mode == tasks.AlwaysOn
		out[i] = agent.Skill{Name: s.Name, Description: s.Description, AlwaysOn: alwaysOn}
	}
	return out
}

// Read is the text of skill://{name}; a skill tool's call is the turn's.
func (l library) Read(ctx context.Context, name string) (string, bool, error) {
	return l.h.ReadSkill(ctx, name)
}

// connector is one turn's activation set of the host's lazy upstream
// servers; its calls take the host's call path as the turn's.
type connector struct{ s *hub.UpstreamSession }

func (c *connector) Available() []agent.Server {
	var out []agent.Server
	for _, s := range c.s.Available() {
		out = append(out, agent.Server{ID: s.ID, Description: s.Description})
	}
	return out
}

func (c *connector) Connect(ctx context.Context, id string) ([]agent.Tool, error) {
	entries, err := c.s.Connect(ctx, id)
	if err != nil {
		return nil, err
	}
	out := make([]agent.Tool, 0, len(entries))
	for _, e := range entries {
		out = append(out, agentTool(e))
	}
	return out, nil
}

func (c *connector) Call(ctx context.Context, namespaced string, args json.RawMessage) (*sdk.Result, error) {
	return c.s.Call(ctx, namespaced, args, nil)
}

func (c *connector) Close() error { return c.s.Close() }

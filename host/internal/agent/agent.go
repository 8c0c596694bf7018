package agent

import (
	"log/slog"
	"sync"
	"time"
)

// Defaults of Config.
const (
	DefaultMaxSteps      = 20
	DefaultContextBudget = 200_000 // characters, about 50k tokens
	DefaultMaxRetries    = 1
)

// NoRetries is the Config.MaxRetries of an agent that never retries after
// a failed evaluation.
const NoRetries = -1

// Config builds an Agent.
type Config struct {
	Backend Backend
	// Model is sent with every request and shown in Status; empty lets the
	// backend use its own.
	Model string
	// System is the system prompt; empty uses DefaultSystemPrompt. The
	// <available_mcps> block is appended to it in turns with a Connector.
	System string
	// Tools is the host's catalog; nil means no tools but mcp_connect.
	Tools Toolset
	// Skills is the skill library; nil means no skills and no read_skill.
	Skills Skills
	// MaxRetries bounds the further attempts a turn makes after an
	// evaluation tool judges its answer not valid, each with the feedback;
	// 0 means DefaultMaxRetries, NoRetries (or any negative) none.
	MaxRetries int
	// MaxSteps bounds the model calls of one turn; 0 means DefaultMaxSteps.
	MaxSteps int
	// ContextBudget is the conversation size, in characters (about four per
	// token), above which a turn is compacted before the next model call;
	// 0 means DefaultContextBudget. One tool result is trimmed to a quarter
	// of it. Tool schemas are not counted.
	ContextBudget int
	// Logger receives compactions and failures; nil discards.
	Logger *slog.Logger
}

// Agent runs ask turns. It holds no conversation state: each Run has its
// own, and concurrent Runs share only the Status counters.
type Agent struct {
	backend Backend
	model   string
	system  string
	tools   Toolset
	skills  Skills
	retries int
	steps   int
	budget  int
	log     *slog.Logger

	mu     sync.Mutex
	status Status
}

// Status is what the agent has done so far, for ramabana://status, in
// the status's snake_case; the last error and its time are left out
// until there is one.
type Status struct {
	Model            string     `json:"model"`
	Running          int        `json:"running"` // turns in progress
	Turns            int        `json:"turns"`   // turns finished, whatever the outcome
	ToolCalls        int        `json:"tool_calls"`
	PromptTokens     int        `json:"prompt_tokens"`
	CompletionTokens int        `json:"completion_tokens"`
	LastError        string     `json:"last_error,omitempty"`
	LastErrorAt      *time.Time `json:"last_error_at,omitempty"`
}

// New returns an agent; see Config for the defaults.
func New(cfg Config) *Agent {
	a := &Agent{
		backend: cfg.Backend,
		model:   cfg.Model,
		system:  cfg.System,
		tools:   cfg.Tools,
		skills:  cfg.Skills,
		retries: cfg.MaxRetries,
		steps:   cfg.MaxSteps,
		budget:  cfg.ContextBudget,
		log:     cfg.Logger,
	}
	if a.steps <= 0 {
		a.steps = DefaultMaxSteps
	}
	switch {
	case a.retries == 0:
		a.retries = DefaultMaxRetries
	case a.retries < 0:
		a.retries = 0
	}
	if a.budget <= 0 {
		a.budget = DefaultContextBudget
	}
	if a.system == "" {
		a.system = DefaultSystemPrompt(a.steps)
	}
	if a.log == nil {
		a.log = slog.New(slog.DiscardHandler)
	}
	a.status.Model = cfg.Model
	return a
}

// Status returns a snapshot; safe for concurrent use.
func (a *Agent) Status() Status {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.status
}

func (a *Agent) update(f func(*Status)) {
	a.mu.Lock()
	defer a.mu.Unlock()
	f(&a.status)
}

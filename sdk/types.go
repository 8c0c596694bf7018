package sdk

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// Host is the context the host sends in Describe: what is served and what is
// allowed. A plugin keeps it for the calls that follow.
type Host struct {
	// Roots are absolute, cleaned, with symlinks resolved.
	Roots       []string
	ReadOutside bool
	Web         bool
	Write       bool
	// Commands says the shell group is mounted, so the user has allowed
	// programs to run: only then may a tool run a program named by the data
	// it serves (git hooks, filters, textconv, fsmonitor).
	Commands bool
	// NoSandbox says the user turned the command sandbox off
	// (--sandbox=off): commands run without Landlock.
	NoSandbox   bool
	ConfigDir   string
	HostVersion string
}

// Description is what a plugin serves.
type Description struct {
	// Name of the plugin: lower-case letters, digits and '-'.
	Name        string
	Version     string
	Description string
	Groups      []GroupSpec
}

// GroupMode says when the host mounts a group.
type GroupMode int

const (
	ModeDefault GroupMode = iota // mounted unless opted out
	ModeOptIn                    // mounted only when named in --groups
	ModeLegacy                   // mounted only when no agent is configured
)

func (m GroupMode) String() string {
	switch m {
	case ModeOptIn:
		return "opt-in"
	case ModeLegacy:
		return "legacy"
	default:
		return "default"
	}
}

// GroupSpec is a set of tools that the user opts in or out of as one.
type GroupSpec struct {
	Name        string
	Description string
	Mode        GroupMode
	// ReplacedBy names what replaces a legacy group.
	ReplacedBy string
	Tools      []ToolSpec
	// LocalData says the group's read and write tools keep what they are
	// given on this machine (files, repositories, local stores) and send
	// none of it elsewhere: under --vault the host may then hand them the
	// values behind placeholders. It is a privilege, which the host grants
	// only to the groups its own binary serves (catalog.Bundled); from any
	// other plugin it is ignored.
	LocalData bool
}

// Kind classifies a tool for policy: read and act tools are always mounted,
// write tools only with --write. Every tool must declare one: the host
// refuses a tool of KindUnspecified rather than guess (a guess of "read"
// would mount a destructive tool on a read-only server).
type Kind int

const (
	KindUnspecified Kind = iota
	KindRead
	KindWrite
	KindAct
)

func (k Kind) String() string {
	switch k {
	case KindRead:
		return "read"
	case KindWrite:
		return "write"
	case KindAct:
		return "act"
	default:
		return "unspecified"
	}
}

// Task is the agent task of a tool, sent as _meta.mcp_server.task.
type Task string

const (
	TaskCompletion Task = "completion"
	TaskContext    Task = "context"
	TaskEvaluation Task = "evaluation"
	TaskPostTool   Task = "post_tool"
	TaskSkill      Task = "skill"
	TaskNone       Task = "none"
)

// SkillMode applies to skill tools.
type SkillMode string

const (
	SkillAlwaysOn SkillMode = "always-on"
	SkillAuto     SkillMode = "auto"
)

// Annotations override the hints derived from a tool's kind; nil keeps the
// derived value.
type Annotations struct {
	ReadOnly    *bool
	Destructive *bool
	Idempotent  *bool
	OpenWorld   *bool
}

// Hints are the resolved MCP tool annotations.
type Hints struct {
	ReadOnly, Destructive, Idempotent, OpenWorld bool
}

// Hints resolves the annotations: read tools are read-only and idempotent,
// write tools destructive, act tools neither; an override wins.
func (s ToolSpec) Hints() Hints {
	h := Hints{}
	switch s.Kind {
	case KindRead:
		h.ReadOnly, h.Idempotent = true, true
	case KindWrite:
		h.Destructive = true
	}
	set := func(dst *bool, src *bool) {
		if src != nil {
			*dst = *src
		}
	}
	set(&h.ReadOnly, s.Annotations.ReadOnly)
	set(&h.Destructive, s.Annotations.Destructive)
	set(&h.Idempotent, s.Annotations.Idempotent)
	set(&h.OpenWorld, s.Annotations.OpenWorld)
	return h
}

// ToolSpec declares one tool.
type ToolSpec struct {
	Name  string
	Title string
	// Description is the text a model reads to decide how to call the tool.
	Description string
	// InputSchema is a JSON Schema whose root has "type": "object".
	InputSchema json.RawMessage
	// OutputSchema is optional.
	OutputSchema  json.RawMessage
	Kind          Kind
	Annotations   Annotations
	Task          Task // empty means TaskCompletion
	AsUserMessage bool
	Mode          SkillMode
}

// EffectiveTask is the task, with completion for empty.
func (s ToolSpec) EffectiveTask() Task {
	if s.Task == "" {
		return TaskCompletion
	}
	return s.Task
}

// Result is what a tool call returns.
type Result struct {
	Content []Content
	// Structured is an optional JSON value matching the output schema.
	Structured json.RawMessage
	// IsError marks a failure the model can act on; Content says why.
	IsError bool
	// Changes lists the files the call created, changed or deleted.
	Changes []FileChange
}

// Content is one content block: exactly one of Text, Image or Resource.
type Content struct {
	Text     string
	Image    *Image
	Resource *Resource
}

// Image is an inline image.
type Image struct {
	Data     []byte
	MIMEType string
}

// Resource is an embedded resource: Text or Blob.
type Resource struct {
	URI      string
	MIMEType string
	Text     string
	Blob     []byte
}

// FileChange records one file a call changed. An empty BeforeSHA256 means
// the file was created; an empty AfterSHA256 means it was deleted.
type FileChange struct {
	Path         string
	BeforeSHA256 string
	AfterSHA256  string
	// Before and After are the contents, for diffs in the changes ledger;
	// set for text files up to MaxDiffContent bytes, nil otherwise.
	Before, After []byte
}

// MaxDiffContent is the largest content a FileChange carries for a diff.
const MaxDiffContent = 1 << 20

// TextResult is a successful result with one text block.
func TextResult(text string) *Result {
	return &Result{Content: []Content{{Text: text}}}
}

// Text joins the result's text blocks with newlines.
func (r *Result) Text() string {
	var parts []string
	for _, c := range r.Content {
		if c.Image == nil && c.Resource == nil {
			parts = append(parts, c.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// LogLevel is the level of a log event a call streams.
type LogLevel int

const (
	LevelDebug LogLevel = iota
	LevelInfo
	LevelWarning
	LevelError
)

// NewFileChange describes a change of the file at path from before to
// after. A nil before means the file was created, a nil after that it was
// deleted (an existing empty file is a non-nil empty slice). Contents are
// carried for the ledger's diffs when both sides are small UTF-8 text.
func NewFileChange(path string, before, after []byte) FileChange {
	ch := FileChange{Path: path}
	if before != nil {
		ch.BeforeSHA256 = sha256Hex(before)
	}
	if after != nil {
		ch.AfterSHA256 = sha256Hex(after)
	}
	if diffable(before) && diffable(after) {
		ch.Before, ch.After = before, after
	}
	return ch
}

func diffable(b []byte) bool {
	return len(b) <= MaxDiffContent && utf8.Valid(b)
}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

package hub

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ramabana/ramabana-mcp/host/internal/catalog"
	"github.com/ramabana/ramabana-mcp/host/internal/upstream"
	"github.com/ramabana/ramabana-mcp/internal/sandbox"
	"github.com/ramabana/ramabana-mcp/internal/skills"
	"github.com/ramabana/ramabana-mcp/tasks"
)

// skillRoots are the folders searched for skills, highest precedence
// first: each served root's .agents/skills, the config dir's skills, the
// user's ~/.agents/skills.
func (h *Host) skillRoots() []skills.Root {
	var roots []skills.Root
	for _, r := range h.Roots() {
		roots = append(roots, skills.Root{Dir: filepath.Join(r, ".agents", "skills"), Source: skills.Project, Within: r})
	}
	if h.cfg.ConfigDir != "" {
		roots = append(roots, skills.Root{Dir: filepath.Join(h.cfg.ConfigDir, "skills"), Source: skills.Config})
	}
	if h.cfg.HomeDir != "" {
		roots = append(roots, skills.Root{Dir: filepath.Join(h.cfg.HomeDir, ".agents", "skills"), Source: skills.User})
	}
	return roots
}

// Skills loads the skills afresh (files change while the server runs) and
// adds every mounted skill tool, named as skills are (the tool house_style
// is the skill house-style). A name belongs to the first of: a skill file
// (by the precedence of skills.Load), a plugin's skill tool, an upstream
// server's skill tool (by name, among tools of the same kind). So an
// upstream server, whose tools are named by a party the user trusts less
// than the plugins it installed, can never take a plugin's or a file's
// skill. Problems are logged, once per distinct message.
func (h *Host) Skills() *skills.Index {
	ix, _ := h.SkillLibrary()
	return ix
}

// SkillLibrary is Skills, with the skill tool behind each skill a tool
// serves (Source skills.Plugin), by skill name: the tool that Read calls
// and whose mode (always-on or auto) the skill has.
func (h *Host) SkillLibrary() (*skills.Index, map[string]*catalog.Entry) {
	ix, warnings := skills.Load(h.skillRoots())
	tools := map[string]*catalog.Entry{}
	var upstreams []*catalog.Entry
	add := func(e *catalog.Entry) {
		name := ToolSkillName(e)
		if prev, taken := ix.Get(name); taken && e.Upstream != nil {
			by := skillWhere(prev)
			if t := tools[name]; t != nil {
				by = fmt.Sprintf("the skill tool %q", t.Spec.Name)
			}
			warnings = append(warnings, skills.Warning{Message: fmt.Sprintf(
				"upstream skill tool %q left out: the skill %q is %s's; plugin and file skills win over upstream ones",
				e.Spec.Name, name, by)})
			return
		}
		if w, ok := ix.Add(skills.Skill{Name: name, Description: firstLine(e.Spec.Description)}); !ok {
			warnings = append(warnings, w)
			return
		}
		tools[name] = e
	}
	for _, e := range h.Mounted() {
		switch {
		case e.TaskInfo().Task != tasks.Skill:
		case e.Upstream != nil:
			upstreams = append(upstreams, e)
		default:
			add(e)
		}
	}
	for _, e := range upstreams {
		add(e)
	}
	h.skillsMu.Lock()
	defer h.skillsMu.Unlock()
	for _, w := range warnings {
		if !h.warned[w.String()] {
			h.warned[w.String()] = true
			h.logger.Warn("skill skipped", "warning", w.String())
		}
	}
	return ix, tools
}

// skillWhere says whose a skill is, for a warning.
func skillWhere(s skills.Skill) string {
	if s.Path != "" {
		return fmt.Sprintf("the %s skill at %s", s.Source, s.Path)
	}
	return fmt.Sprintf("the %s skill", s.Source)
}

// ToolSkillName is the name of the skill a skill tool serves
// (skills.ToolSkillName): of a plugin's tool, its name's; of an upstream
// server's, that of the tool's name on its server, without <id>__.
func ToolSkillName(e *catalog.Entry) string {
	return skills.ToolSkillName(toolOwnName(e))
}

// toolOwnName is the tool's name where it is served: an upstream tool's
// without <id>__.
func toolOwnName(e *catalog.Entry) string {
	name := e.Spec.Name
	if e.Upstream != nil {
		if _, tool, ok := upstream.SplitName(name); ok {
			name = tool
		}
	}
	return name
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

// ReadSkill is the full text of the skill called name: its SKILL.md, or
// what its skill tool returns (called through the one call path). ok is
// false when there is no such skill. A skill tool that fails (an error
// result), or answers something that is not the skill's SKILL.md
// (skills.CheckToolText, the check plugin skill tools make of their own text,
// made here of every skill tool's, upstream ones included), is an error:
// its answer is never handed on as the skill, which an agent would put in
// its system prompt.
func (h *Host) ReadSkill(ctx context.Context, name string) (text string, ok bool, err error) {
	ix, tools := h.SkillLibrary()
	sk, ok := ix.Get(name)
	if !ok {
		return "", false, nil
	}
	if sk.Source != skills.Plugin {
		// A skill file is data like any other in the served folders: it
		// leaves through the outbound gate, as a resource or in the ask
		// agent's prompt.
		return sk.Content, true, nil
	}
	e := tools[name]
	res, err := h.Call(ctx, e.Spec.Name, nil, nil)
	if err != nil {
		return "", true, fmt.Errorf("skill tool %q: %w", e.Spec.Name, err)
	}
	if res.IsError {
		return "", true, fmt.Errorf("skill tool %q failed: %s", e.Spec.Name, cutMessage(res.Text(), 300))
	}
	text = res.Text()
	if err := skills.CheckToolText(toolOwnName(e), text); err != nil {
		return "", true, fmt.Errorf("skill %q: %w", name, err)
	}
	return text, true, nil
}

// cutMessage shortens a message from elsewhere to n bytes at most.
func cutMessage(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}

// Status is the server's status document (ramabana://status).
type Status struct {
	Version   string            `json:"version"`
	Roots     []string          `json:"roots"`
	Transport string            `json:"transport,omitempty"`
	Write     bool              `json:"write"`
	Groups    []GroupStatus     `json:"groups"`
	Plugins   []PluginStatus    `json:"plugins"`
	Skipped   map[string]string `json:"skipped,omitempty"`
	Skills    []SkillStatus     `json:"skills"`
	Sandbox   SandboxStatus     `json:"sandbox"`
	Agent     any               `json:"agent,omitempty"`
	// Upstreams are the configured upstream MCP servers, connected or not.
	Upstreams []upstream.LinkStatus `json:"upstreams,omitempty"`
	// Embeddings is search_capabilities' hybrid ranking, with
	// --embed-model.
	Embeddings *EmbeddingStatus `json:"embeddings,omitempty"`
	// PII is the --pii filter, with --pii redact or refuse.
	PII *PIIStatus `json:"pii,omitempty"`
	// Activity is the whole server's, every session's calls together
	// (each session's activity and changes tools show its own).
	Activity ActivityStatus `json:"activity"`
}

// ActivityStatus counts what the server's sessions did.
type ActivityStatus struct {
	// Records is how many records the server's feed holds (calls and
	// events; the oldest roll off).
	Records int `json:"records"`
	// FilesChanged is how many files the calls changed.
	FilesChanged int `json:"files_changed"`
}

// PIIStatus is what --pii filters and where --vault keeps the originals.
type PIIStatus struct {
	Mode  string `json:"mode"`
	Names bool   `json:"names"`
	// Vault is the vault's database file, with --vault.
	Vault string `json:"vault,omitempty"`
	// Warning says what the vault cannot hold against here (the shell).
	Warning string `json:"warning,omitempty"`
}

// SandboxStatus says which protections shell commands run under on this
// machine (package sandbox), so that a missing one is never silent.
type SandboxStatus struct {
	// Landlock is "ABI N: writes only inside the roots, the command's
	// TMPDIR and the device files it needs", "unavailable: ..." or "off: --sandbox=off".
	Landlock string `json:"landlock"`
	// Reaping is how a command's processes end with it: "pid namespace",
	// "user+pid namespace", "subreaper" or "process group".
	Reaping string `json:"reaping"`
	// NoCapabilities: commands run without capabilities, so even as root
	// they cannot read a non-dumpable process's memory or environment.
	NoCapabilities bool `json:"no_capabilities"`
	// NonDumpable: the host process is non-dumpable now (plugins make
	// themselves non-dumpable as they start, on Linux).
	NonDumpable bool `json:"non_dumpable"`
}

// sandboxStatus probes this machine (the plugins run on the same kernel,
// as the same user) and applies the user's --sandbox.
func (h *Host) sandboxStatus() SandboxStatus {
	p := sandbox.Probe()
	st := SandboxStatus{Reaping: p.Reaping, NoCapabilities: p.NoCapabilities, NonDumpable: p.NonDumpable}
	switch {
	case h.cfg.NoSandbox:
		st.Landlock = "off: --sandbox=off"
	case p.Landlock > 0:
		st.Landlock = fmt.Sprintf("ABI %d: writes only inside the roots, the command's TMPDIR and the device files it needs (/dev/null, /dev/pts, ...; not /dev/shm)", p.Landlock)
		if p.Landlock >= 6 {
			st.Landlock += "; signals and abstract sockets only to its own processes"
		}
	default:
		st.Landlock = "unavailable: the kernel has no Landlock, so commands may write wherever the user may"
	}
	return st
}

// GroupStatus is one mounted group.
type GroupStatus struct {
	Name   string   `json:"name"`
	Plugin string   `json:"plugin"`
	Mode   string   `json:"mode"`
	Tools  []string `json:"tools"`
}

// PluginStatus is one plugin's health.
type PluginStatus struct {
	Name   string `json:"name"`
	Source string `json:"source"`
	// State is idle (no process: the next call starts one), starting,
	// running, exited (it died; the next call starts it again), failing
	// (crashing: relaunches back off) or stopped.
	State    string `json:"state"`
	Running  bool   `json:"running"`
	Pid      int    `json:"pid,omitempty"`
	Restarts int    `json:"restarts"`
	LastErr  string `json:"last_error,omitempty"`
}

// SkillStatus is one skill in the index.
type SkillStatus struct {
	Name   string `json:"name"`
	Source string `json:"source"`
}

// SetAgentStatus makes the status resource include the ask agent's status.
func (h *Host) SetAgentStatus(fn func() any) {
	h.skillsMu.Lock()
	defer h.skillsMu.Unlock()
	h.agentStatus = fn
}

// Status reports the server's state now.
func (h *Host) Status() Status {
	st := Status{
		Version: h.cfg.Version, Roots: h.Roots(), Transport: h.cfg.Transport, Write: h.cfg.Write,
		Groups: []GroupStatus{}, Plugins: []PluginStatus{}, Skills: []SkillStatus{},
	}
	groups := map[string]*GroupStatus{}
	for _, e := range h.Mounted() {
		g := groups[e.Group]
		if g == nil {
			g = &GroupStatus{Name: e.Group, Plugin: e.Plugin, Mode: e.GroupMode.String()}
			groups[e.Group] = g
		}
		g.Tools = append(g.Tools, e.Spec.Name)
	}
	for _, g := range groups {
		st.Groups = append(st.Groups, *g)
	}
	sort.Slice(st.Groups, func(i, j int) bool { return st.Groups[i].Name < st.Groups[j].Name })
	for name, p := range h.Plugins() {
		hl := p.Health()
		st.Plugins = append(st.Plugins, PluginStatus{
			Name: name, Source: p.Source().String(), State: hl.State, Running: hl.Running, Pid: hl.Pid, Restarts: hl.Restarts, LastErr: hl.LastErr,
		})
	}
	sort.Slice(st.Plugins, func(i, j int) bool { return st.Plugins[i].Name < st.Plugins[j].Name })
	if sk := h.Skipped(); len(sk) > 0 {
		st.Skipped = sk
	}
	for _, s := range h.Skills().List() {
		st.Skills = append(st.Skills, SkillStatus{Name: s.Name, Source: string(s.Source)})
	}
	st.Sandbox = h.sandboxStatus()
	st.Upstreams = h.UpstreamStatus()
	st.Embeddings = h.EmbeddingStatus()
	st.Activity = ActivityStatus{Records: h.activity.Len(), FilesChanged: len(h.activity.Changes())}
	if g := h.cfg.Gate; g.On() {
		st.PII = &PIIStatus{Mode: g.Mode().String(), Names: g.Names()}
		if v := g.Vault(); v != nil {
			st.PII.Vault = v.Path()
			st.PII.Warning = h.vaultWarning()
		}
	}
	h.skillsMu.Lock()
	agent := h.agentStatus
	h.skillsMu.Unlock()
	if agent != nil {
		st.Agent = agent()
	}
	return st
}

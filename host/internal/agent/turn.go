package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/ramabana/ramabana-mcp/internal/editdist"
	"github.com/ramabana/ramabana-mcp/sdk"
)

// mcpConnectName is the built-in tool that connects an upstream server.
const mcpConnectName = "mcp_connect"

type routeKind int

const (
	routeCatalog routeKind = iota
	routeConnect
	routeUpstream
	routeSkill
)

// turn is the state of one Run: nothing in it is shared with another.
type turn struct {
	a          *Agent
	task       string
	onProgress func(int, string)
	notified   int // progress notifications sent
	out        *Outcome

	conn      Connector
	servers   []Server        // what conn offers
	connected map[string]bool // the activation set: server ids
	tools     []Tool          // what the model sees, in order
	routes    map[string]routeKind

	// The tools of the other stages, and the skill library as listed.
	contexts, posts, evals []stageTool
	skills                 []Skill

	msgs []Message
	// head counts the first messages compaction keeps: the system prompt,
	// the context given as user messages, the task.
	head int
	// dropped lists the tool calls of exchanges compaction removed.
	dropped []string
}

func (a *Agent) newTurn(task string, opts RunOptions) *turn {
	t := &turn{
		a:          a,
		task:       task,
		onProgress: opts.Progress,
		out:        &Outcome{},
		connected:  map[string]bool{},
		routes:     map[string]routeKind{},
	}
	if opts.Connector != nil {
		t.conn = opts.Connector
		t.servers = opts.Connector.Available()
	}
	if len(t.servers) > 0 {
		t.add(connectTool(t.servers), routeConnect)
	}
	if a.skills != nil {
		t.skills = a.skills.List()
		if slices.ContainsFunc(t.skills, func(s Skill) bool { return !s.AlwaysOn }) {
			t.add(readSkillTool(), routeSkill)
		}
	}
	if a.tools != nil {
		for _, tool := range a.tools.Tools() {
			t.sort(tool, routeCatalog)
		}
	}
	return t
}

// add offers a tool to the model; a name already taken keeps its first
// owner (mcp_connect, then the catalog, then upstream tools).
func (t *turn) add(tool Tool, kind routeKind) bool {
	if _, dup := t.routes[tool.Name]; dup || tool.Name == "" {
		if tool.Name != "" {
			t.a.log.Warn("ask: tool name offered twice; keeping the first", "tool", tool.Name)
		}
		return false
	}
	t.routes[tool.Name] = kind
	t.tools = append(t.tools, tool)
	return true
}

func (t *turn) toolList() []Tool {
	if len(t.tools) == 0 {
		return nil
	}
	return cloneTools(t.tools)
}

// call runs one tool call and returns the text for the model. The error is
// ctx.Err() when the turn was cancelled, nil otherwise.
func (t *turn) call(ctx context.Context, step int, c ToolCall) (string, CallRecord, error) {
	rec := CallRecord{Name: c.Name, Args: c.Arguments, IsError: true}
	kind, ok := t.routes[c.Name]
	if !ok {
		t.progress(fmt.Sprintf("step %d: the model called %q, which does not exist", step, c.Name))
		return t.unknownTool(c.Name), rec, nil
	}
	args, ok := parseArgs(c.Arguments)
	if !ok {
		t.progress(fmt.Sprintf("step %d: the model's arguments for %s are not a JSON object", step, c.Name))
		return fmt.Sprintf("Error: the arguments of this %s call are not a valid JSON object, so the tool was not run. You sent: %s\nCall it again with one JSON object that matches the tool's input schema.",
			c.Name, truncate(c.Arguments, 500)), rec, nil
	}
	t.progress(fmt.Sprintf("step %d: calling %s", step, c.Name))
	start := time.Now()
	var (
		text    string
		isError bool
		err     error
	)
	switch kind {
	case routeConnect:
		text, isError, err = t.connect(ctx, args)
	case routeSkill:
		text, isError, err = t.readSkill(ctx, args)
	default:
		var res *sdk.Result
		if kind == routeUpstream {
			res, err = t.conn.Call(ctx, c.Name, args)
		} else {
			res, err = t.a.tools.Call(ctx, c.Name, args)
		}
		if err == nil {
			text, isError = resultText(res)
		}
	}
	rec.Duration = time.Since(start)
	if ctx.Err() != nil {
		return "", rec, ctx.Err()
	}
	if err != nil {
		t.a.log.Warn("ask: tool call failed", "tool", c.Name, "error", err)
		text, isError = threw(c.Name, err), true
	}
	rec.IsError = isError
	return text, rec, nil
}

// threw is what the model reads of a tool that failed to answer (a plugin
// that crashed, an upstream server's JSON-RPC or transport error or
// timeout), in the form docs/upstream.md ("Failures") gives, so the loop
// goes on:
//
//	{"error": "tool <name> threw: <error>", "isError": true}
func threw(name string, err error) string {
	b, _ := json.Marshal(struct {
		Error   string `json:"error"`
		IsError bool   `json:"isError"`
	}{"tool " + name + " threw: " + err.Error(), true})
	return string(b)
}

// resultText renders a result as the text a tool message carries; images
// and binary resources are replaced by a note.
func resultText(r *sdk.Result) (string, bool) {
	if r == nil {
		return "(the tool returned nothing)", false
	}
	var parts []string
	for _, c := range r.Content {
		switch {
		case c.Image != nil:
			parts = append(parts, fmt.Sprintf("[image (%s, %s) not shown: this conversation carries text only]", c.Image.MIMEType, size(len(c.Image.Data))))
		case c.Resource != nil && c.Resource.Text != "":
			parts = append(parts, fmt.Sprintf("[resource %s]\n%s", c.Resource.URI, c.Resource.Text))
		case c.Resource != nil:
			parts = append(parts, fmt.Sprintf("[resource %s (%s, %s) not shown: binary content]", c.Resource.URI, c.Resource.MIMEType, size(len(c.Resource.Blob))))
		default:
			parts = append(parts, c.Text)
		}
	}
	text := strings.Join(parts, "\n")
	if strings.TrimSpace(text) == "" && len(r.Structured) > 0 {
		text = string(r.Structured)
	}
	if strings.TrimSpace(text) == "" {
		text = "(no output)"
	}
	if r.IsError && !strings.HasPrefix(text, "Error") {
		text = "Error: " + text
	}
	return text, r.IsError
}

// capResult trims one tool result to a quarter of the context budget.
func (t *turn) capResult(text string) string {
	text, n := t.capText(text)
	if n == 0 {
		return text
	}
	return text + fmt.Sprintf("\n[trimmed: the result was %s, more than this conversation can hold; ask for a smaller part: a narrower range, page or query]", size(n))
}

// capStage trims the text of a context tool or an always-on skill (what
// names it) as capResult does a tool result. It matters more here:
// compaction keeps the prompt's head whole, so an uncapped text would
// leave every step over the budget.
func (t *turn) capStage(text, what string) string {
	text, n := t.capText(text)
	if n == 0 {
		return text
	}
	t.a.log.Warn("ask: text cut to fit the context budget", "source", what, "size", n)
	return text + fmt.Sprintf("\n[cut: the %s gave %s, more than this conversation can hold; the rest is left out]", what, size(n))
}

// capText trims text to a quarter of the context budget; n is the
// original size when it was cut, else 0.
func (t *turn) capText(text string) (_ string, n int) {
	limit := max(t.a.budget/4, 1000)
	if len(text) <= limit {
		return text, 0
	}
	return truncate(text, limit), len(text)
}

func size(n int) string {
	if n < 1024 {
		return fmt.Sprintf("%d B", n)
	}
	return fmt.Sprintf("%d KB", (n+512)/1024)
}

// unknownTool is the tool result for a name that is not in the toolset.
func (t *turn) unknownTool(name string) string {
	if id, _, ok := strings.Cut(name, "__"); ok && !t.connected[id] {
		if slices.ContainsFunc(t.servers, func(s Server) bool { return s.ID == id }) {
			return fmt.Sprintf("Error: there is no tool %q yet: server %q is not connected. Call mcp_connect with {\"id\": %q} first; its tools then appear as %s__<tool>.", name, id, id, id)
		}
	}
	names := make([]string, len(t.tools))
	for i, tool := range t.tools {
		names[i] = tool.Name
	}
	if near := closeNames(name, names, 5); len(near) > 0 {
		return fmt.Sprintf("Error: there is no tool named %q. Did you mean: %s? Use only the tools you were given.", name, strings.Join(near, ", "))
	}
	const show = 30
	list := names
	more := ""
	if len(list) > show {
		list, more = list[:show], fmt.Sprintf(" (and %d more)", len(names)-show)
	}
	if len(list) == 0 {
		return fmt.Sprintf("Error: there is no tool named %q, and this turn has no tools: answer without them.", name)
	}
	return fmt.Sprintf("Error: there is no tool named %q. The tools are: %s%s.", name, strings.Join(list, ", "), more)
}

// closeNames returns up to n names near name: by edit distance, or sharing
// a suffix after a namespace prefix, or containing one another.
func closeNames(name string, names []string, n int) []string {
	type cand struct {
		name string
		d    int
	}
	lname := strings.ToLower(name)
	var cs []cand
	for _, o := range names {
		lo := strings.ToLower(o)
		d := editdist.Levenshtein(lname, lo)
		switch {
		case d <= max(2, len(lname)/4):
		case strings.Contains(lo, lname) || strings.Contains(lname, lo):
			d = max(d, 3)
		default:
			continue
		}
		cs = append(cs, cand{o, d})
	}
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].d < cs[j].d })
	out := make([]string, 0, n)
	for i := 0; i < len(cs) && i < n; i++ {
		out = append(out, cs[i].name)
	}
	return out
}

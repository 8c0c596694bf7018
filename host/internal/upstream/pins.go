package upstream

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ramabana/ramabana-mcp/host/internal/cfgfile"
)

// PinMode is how a server's tools are pinned (the config's "pin").
type PinMode string

const (
	// PinStrict holds a tool whose definition changed since it was pinned,
	// and a tool the server did not list when it was first pinned.
	PinStrict PinMode = "strict"
	// PinNewTools holds a changed tool; a new tool is pinned as it is
	// first seen and served. The default.
	PinNewTools PinMode = "new-tools"
	// PinOff pins nothing and holds nothing.
	PinOff PinMode = "off"
)

// Pins keeps what each upstream server's tools said the first time they
// were seen, so that a server that was harmless when it was added cannot
// rewrite a tool's description or schemas later (tool poisoning, the "rug
// pull") without the user seeing it: a tool whose definition differs
// from its pin is held back from clients and the agent until the user
// approves it (`ramabana-mcp upstream diff ID`, `upstream approve ID`).
//
// A server's pins are one file, <Dir>/<id>.json, written to a temporary
// file renamed over the old one; a file that cannot be read is no pins
// (a server's first listing pins its tools again). The zero value (no
// Dir) pins nothing.
type Pins struct {
	// Dir holds the files; created when first written.
	Dir string
}

// ConfigPins are the pins kept in the config dir cfg: cfg/pins.
func ConfigPins(cfg string) Pins { return Pins{Dir: filepath.Join(cfg, "pins")} }

// PinnedTool is what a tool said when it was pinned: every field a model
// reads or a client decides by.
type PinnedTool struct {
	Title        string               `json:"title,omitempty"`
	Description  string               `json:"description"`
	InputSchema  json.RawMessage      `json:"inputSchema"`
	OutputSchema json.RawMessage      `json:"outputSchema,omitempty"`
	Annotations  *mcp.ToolAnnotations `json:"annotations,omitempty"`
	Pinned       time.Time            `json:"pinned"`
}

type pinsFile struct {
	Server string                `json:"server"`
	Tools  map[string]PinnedTool `json:"tools"` // by upstream name
}

// Held is a tool held back, and why.
type Held struct {
	// Tool is the upstream name; Namespaced the name it would be served
	// under.
	Tool, Namespaced string
	// New is true for a tool that has no pin (PinStrict); otherwise
	// Changed names the fields that differ from the pin.
	New     bool
	Changed []string
}

// Reason says why the tool is held, and what lets it through.
func (h Held) Reason(server string) string {
	approve := fmt.Sprintf("`ramabana-mcp upstream diff %s` shows it, `ramabana-mcp upstream approve %s %s` serves it", server, server, h.Tool)
	if h.New {
		return fmt.Sprintf("held: MCP server %q did not list it when its tools were pinned (pin: strict); %s", server, approve)
	}
	return fmt.Sprintf("held: its %s changed since MCP server %q's tools were pinned; %s", strings.Join(h.Changed, ", "), server, approve)
}

// maxPinsFile bounds a pins file that is read.
const maxPinsFile = 32 << 20

// pinOf is the pin of t as it is listed now.
func pinOf(t Tool, at time.Time) PinnedTool {
	return PinnedTool{Title: t.Title, Description: t.Description, InputSchema: t.InputSchema, OutputSchema: t.OutputSchema, Annotations: t.Annotations, Pinned: at}
}

// Check splits tools, a listing of server s, into those to serve and
// those held, and pins what s's mode pins as first seen: every tool at the
// server's first listing, and under PinNewTools each new tool. A pin
// that cannot be written is an error, with every tool to serve: the pins
// then stand for this listing only.
func (p Pins) Check(s Server, tools []Tool) (serve []Tool, held []Held, err error) {
	if p.Dir == "" || s.Pin == PinOff {
		return tools, nil, nil
	}
	f, ok := p.read(s.ID)
	first := !ok
	if first {
		f = &pinsFile{Server: s.ID, Tools: map[string]PinnedTool{}}
	}
	now := time.Now().UTC()
	pinned := false
	for _, t := range tools {
		pin, known := f.Tools[t.Name]
		switch {
		case known:
			if changed := pinDiff(pin, pinOf(t, now)); len(changed) > 0 {
				held = append(held, Held{Tool: t.Name, Namespaced: t.Namespaced, Changed: changed})
				continue
			}
		case first || s.Pin != PinStrict:
			f.Tools[t.Name] = pinOf(t, now)
			pinned = true
		default:
			held = append(held, Held{Tool: t.Name, Namespaced: t.Namespaced, New: true})
			continue
		}
		serve = append(serve, t)
	}
	if pinned {
		err = p.write(s.ID, f)
	}
	return serve, held, err
}

// Approve pins the tools named (upstream names; every tool listed when
// none is named) as tools lists them now, and returns the names pinned. A
// name tools does not hold is an error and pins nothing.
func (p Pins) Approve(id string, tools []Tool, names []string) ([]string, error) {
	if p.Dir == "" {
		return nil, errors.New("no pins directory")
	}
	byName := map[string]Tool{}
	for _, t := range tools {
		byName[t.Name] = t
	}
	if len(names) == 0 {
		for _, t := range tools {
			names = append(names, t.Name)
		}
	}
	for _, n := range names {
		if _, ok := byName[n]; !ok {
			return nil, fmt.Errorf("MCP server %q lists no tool %q", id, n)
		}
	}
	f, ok := p.read(id)
	if !ok {
		f = &pinsFile{Server: id, Tools: map[string]PinnedTool{}}
	}
	now := time.Now().UTC()
	for _, n := range names {
		f.Tools[n] = pinOf(byName[n], now)
	}
	return names, p.write(id, f)
}

// PinDiff is one tool's state against its pin, for `upstream diff`.
type PinDiff struct {
	Tool string
	// State is "pinned" (unchanged), "changed", "new" (no pin) or "gone"
	// (pinned, no longer listed).
	State string
	// Fields are the fields that differ, each with the pinned and the
	// listed value (for "changed").
	Fields []FieldDiff
}

// FieldDiff is a field's pinned and listed values, as text.
type FieldDiff struct{ Field, Pinned, Listed string }

// Diff compares tools, as server id lists them now, with their pins, in
// the listing's order, then the pins no longer listed.
func (p Pins) Diff(id string, tools []Tool) []PinDiff {
	f, ok := p.read(id)
	if !ok {
		f = &pinsFile{Tools: map[string]PinnedTool{}}
	}
	var out []PinDiff
	listed := map[string]bool{}
	for _, t := range tools {
		listed[t.Name] = true
		pin, known := f.Tools[t.Name]
		if !known {
			out = append(out, PinDiff{Tool: t.Name, State: "new"})
			continue
		}
		now := pinOf(t, pin.Pinned)
		changed := pinDiff(pin, now)
		if len(changed) == 0 {
			out = append(out, PinDiff{Tool: t.Name, State: "pinned"})
			continue
		}
		d := PinDiff{Tool: t.Name, State: "changed"}
		was, is := pinFields(pin), pinFields(now)
		for _, field := range changed {
			d.Fields = append(d.Fields, FieldDiff{Field: field, Pinned: was[field], Listed: is[field]})
		}
		out = append(out, d)
	}
	var gone []string
	for name := range f.Tools {
		if !listed[name] {
			gone = append(gone, name)
		}
	}
	slices.Sort(gone)
	for _, name := range gone {
		out = append(out, PinDiff{Tool: name, State: "gone"})
	}
	return out
}

// pinFieldNames are the compared fields, in the order they are reported.
var pinFieldNames = []string{"title", "description", "input schema", "output schema", "annotations"}

// pinFields is each compared field of a pin as canonical text: JSON with
// its object keys sorted, so that a server that only reorders keys has
// changed nothing.
func pinFields(p PinnedTool) map[string]string {
	ann := ""
	if p.Annotations != nil {
		b, _ := json.Marshal(p.Annotations) // plain fields: cannot fail
		ann = string(b)
	}
	return map[string]string{
		"title":         p.Title,
		"description":   p.Description,
		"input schema":  canonicalJSON(p.InputSchema),
		"output schema": canonicalJSON(p.OutputSchema),
		"annotations":   ann,
	}
}

// pinDiff names the fields in which b differs from a.
func pinDiff(a, b PinnedTool) []string {
	fa, fb := pinFields(a), pinFields(b)
	var changed []string
	for _, f := range pinFieldNames {
		if fa[f] != fb[f] {
			changed = append(changed, f)
		}
	}
	return changed
}

// canonicalJSON is raw re-encoded with sorted keys and no spacing; raw as
// it is when it does not decode; "" for none.
func canonicalJSON(raw json.RawMessage) string {
	if len(bytes.TrimSpace(raw)) == 0 || string(raw) == "null" {
		return ""
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return string(raw)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return string(raw)
	}
	return string(b)
}

func (p Pins) file(id string) string { return filepath.Join(p.Dir, id+".json") }

// read returns the server's pins; false when there are none it can read.
func (p Pins) read(id string) (*pinsFile, bool) {
	if !ValidID(id) {
		return nil, false
	}
	fh, err := os.Open(p.file(id))
	if err != nil {
		return nil, false
	}
	defer fh.Close()
	b, err := io.ReadAll(io.LimitReader(fh, maxPinsFile+1))
	if err != nil || len(b) > maxPinsFile {
		return nil, false
	}
	var f pinsFile
	if err := json.Unmarshal(b, &f); err != nil || f.Tools == nil {
		return nil, false
	}
	for name, t := range f.Tools {
		if string(t.OutputSchema) == "null" {
			t.OutputSchema = nil
			f.Tools[name] = t
		}
	}
	return &f, true
}

// write replaces the server's pins with f, whole or not at all.
func (p Pins) write(id string, f *pinsFile) error {
	if !ValidID(id) {
		return fmt.Errorf("pins: %q is not a server id", id)
	}
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	return cfgfile.Replace(p.Dir, id+".json", append(b, '\n'))
}

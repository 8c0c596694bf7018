package skills

import (
	"fmt"
	"sort"
	"strings"
	"sync"
)

// Index holds the skills by name. It is safe for concurrent use.
type Index struct {
	mu     sync.RWMutex
	byName map[string]Skill
}

// NewIndex returns an empty index, for a host with no skill folders.
func NewIndex() *Index { return &Index{byName: map[string]Skill{}} }

// List returns every skill, sorted by name.
func (ix *Index) List() []Skill {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	out := make([]Skill, 0, len(ix.byName))
	for _, s := range ix.byName {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Get returns the skill called name.
func (ix *Index) Get(name string) (Skill, bool) {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	s, ok := ix.byName[name]
	return s, ok
}

// Add indexes a skill served by a plugin. Its Source is set to Plugin, the
// lowest precedence: when a skill of the same name is already indexed (a
// file skill, or another plugin's), s is left out. Add reports whether s was
// added; when it was not, the Warning says why (an invalid name or
// description, or the skill that shadows it). s.Content should hold the full
// SKILL.md text; Add does not parse it, and checks only the fields.
func (ix *Index) Add(s Skill) (Warning, bool) {
	s.Source = Plugin
	if err := s.validate(); err != nil {
		return Warning{Path: s.Path, Message: "plugin skill skipped: " + err.Error()}, false
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if prev, dup := ix.byName[s.Name]; dup {
		return shadowWarning(prev, s), false
	}
	ix.byName[s.Name] = s
	return Warning{}, true
}

// Markdown is the text of the ramabana://skills resource: how to read a
// skill, then one line per skill, "- name: description (source)", sorted by
// name. A description's line breaks are folded into spaces.
func (ix *Index) Markdown() string {
	list := ix.List()
	var b strings.Builder
	b.WriteString("Skills: read one in full with the resource skill://{name} before doing the task it describes.\n")
	if len(list) == 0 {
		b.WriteString("\nNo skills are installed.\n")
		return b.String()
	}
	b.WriteByte('\n')
	for _, s := range list {
		fmt.Fprintf(&b, "- %s: %s (%s)\n", s.Name, strings.Join(strings.Fields(s.Description), " "), s.Source)
	}
	return b.String()
}

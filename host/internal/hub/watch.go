package hub

import (
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/fsnotify/fsnotify"

	"github.com/ramabana/ramabana-mcp/internal/skills"
)

// Change says what changed, for OnChange: a set of the Changed* bits.
type Change uint8

const (
	// ChangedTools: the mounted tools (a plugin registered or dropped, a
	// reload, an in-process group added, an upstream server's tools).
	ChangedTools Change = 1 << iota
	// ChangedStatus: what Status reports may differ (a plugin started,
	// stopped or crashed; an upstream server connected, failed or listed
	// other tools; a skill came or went).
	ChangedStatus
	// ChangedSkills: the skill library may differ (a skill file came, went
	// or changed; a skill tool came or went).
	ChangedSkills
)

// OnChange calls fn after each change of the host's state, with what
// changed. A change of the tools comes at once; status and skill changes
// made during a Start or a Reload are held and come once, as one call,
// when it ends, so that a reload of ten plugins is one change, not twenty.
// fn runs on the goroutine that made the change and must not block or
// call back into a change (AddGroup, Reload). The returned function
// unsubscribes.
func (h *Host) OnChange(fn func(Change)) (stop func()) {
	h.watchMu.Lock()
	defer h.watchMu.Unlock()
	if h.watchers == nil {
		h.watchers = map[int]func(Change){}
	}
	h.watchID++
	id := h.watchID
	h.watchers[id] = fn
	return func() {
		h.watchMu.Lock()
		defer h.watchMu.Unlock()
		delete(h.watchers, id)
	}
}

// OnToolsChanged calls fn after each change of the mounted tools (see
// OnChange): a plugin registered or dropped, a reload, an in-process group
// added.
func (h *Host) OnToolsChanged(fn func()) (stop func()) {
	return h.OnChange(func(c Change) {
		if c&ChangedTools != 0 {
			fn()
		}
	})
}

// toolsChanged tells the subscribers that the mounted tools changed, and
// with them the status and perhaps the skills (skill tools).
func (h *Host) toolsChanged() {
	h.syncSearch()
	h.changed(ChangedTools | ChangedStatus | ChangedSkills)
}

// changed tells the subscribers of OnChange about c, or, during a batch,
// holds all but a tools change for its end.
func (h *Host) changed(c Change) {
	h.watchMu.Lock()
	if h.batches > 0 {
		h.held |= c &^ ChangedTools
		c &= ChangedTools
	}
	fns := make([]func(Change), 0, len(h.watchers))
	for _, fn := range h.watchers {
		fns = append(fns, fn)
	}
	h.watchMu.Unlock()
	if c == 0 {
		return
	}
	for _, fn := range fns {
		fn(c)
	}
}

// batch holds status and skill changes until the returned function is
// called; then they come as one.
func (h *Host) batch() (end func()) {
	h.watchMu.Lock()
	h.batches++
	h.watchMu.Unlock()
	return func() {
		h.watchMu.Lock()
		h.batches--
		var c Change
		if h.batches == 0 {
			c, h.held = h.held, 0
		}
		h.watchMu.Unlock()
		if c != 0 {
			h.changed(c)
		}
	}
}

// skillWatch watches the skill folders (skillRoots) for skills that come,
// go or change: each folder, and each skill folder in it. A skill folder
// that does not exist yet is watched through its nearest existing parent,
// up to the folder it belongs to (a served root, the config dir, the home
// dir), so that its creation is seen.
type skillWatch struct {
	w       *fsnotify.Watcher
	dirs    []string // the folders skills are found in
	bounds  []string // for each of dirs, the highest folder watched for it
	watched map[string]bool
	logger  *slog.Logger
}

func (h *Host) newSkillWatch() (*skillWatch, error) {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	sw := &skillWatch{w: w, watched: map[string]bool{}, logger: h.logger}
	sw.watch(h.skillRoots())
	return sw, nil
}

// watch watches the skill folders of roots, and no others: at the start,
// and when the served roots change.
func (sw *skillWatch) watch(roots []skills.Root) {
	sw.dirs, sw.bounds = nil, nil
	for _, r := range roots {
		bound := r.Within // <root>/.agents/skills
		switch {
		case bound != "":
		case r.Source == skills.User: // ~/.agents/skills
			bound = filepath.Dir(filepath.Dir(r.Dir))
		default: // CFG/skills
			bound = filepath.Dir(r.Dir)
		}
		sw.dirs = append(sw.dirs, filepath.Clean(r.Dir))
		sw.bounds = append(sw.bounds, filepath.Clean(bound))
	}
	sw.arm()
}

// arm watches what is to be watched now, and stops watching the rest. A
// folder made while it adds a watch (a parent, then the skills folder in
// it) is seen by the next round.
func (sw *skillWatch) arm() {
	for range 8 {
		if !sw.armOnce() {
			return
		}
	}
}

// armOnce is one round of arm; it reports whether it added a watch.
func (sw *skillWatch) armOnce() (added bool) {
	want := map[string]bool{}
	for i, dir := range sw.dirs {
		if isDir(dir) {
			want[dir] = true
			entries, _ := os.ReadDir(dir)
			for _, e := range entries {
				if sub := filepath.Join(dir, e.Name()); isDir(sub) { // a link to a folder too
					want[sub] = true
				}
			}
			continue
		}
		for a := filepath.Dir(dir); within(sw.bounds[i], a); a = filepath.Dir(a) {
			if isDir(a) {
				want[a] = true
				break
			}
			if a == sw.bounds[i] {
				break
			}
		}
	}
	for dir := range sw.watched {
		if !want[dir] {
			_ = sw.w.Remove(dir) // gone already, when the folder was removed
			delete(sw.watched, dir)
		}
	}
	for dir := range want {
		if sw.watched[dir] {
			continue
		}
		if err := sw.w.Add(dir); err != nil {
			if !errors.Is(err, os.ErrNotExist) {
				sw.logger.Warn("cannot watch a skill folder; its changes are seen at the next read", "dir", dir, "error", err)
			}
			continue
		}
		sw.watched[dir] = true
		added = true
	}
	return added
}

// relevant says whether an event on path may change the skills: a skill
// folder, a SKILL.md in one, or a parent of a skill folder that does not
// exist yet.
func (sw *skillWatch) relevant(path string) bool {
	path = filepath.Clean(path)
	for _, dir := range sw.dirs {
		if within(path, dir) {
			return true // dir itself or a parent of it
		}
		if rel, err := filepath.Rel(dir, path); err == nil && filepath.IsLocal(rel) {
			parts := strings.Split(rel, string(filepath.Separator))
			if len(parts) == 1 || (len(parts) == 2 && parts[1] == skills.FileName) {
				return true
			}
		}
	}
	return false
}

// within says whether path is dir or inside it.
func within(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && (rel == "." || filepath.IsLocal(rel))
}

func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

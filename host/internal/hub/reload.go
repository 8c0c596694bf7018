package hub

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/ramabana/ramabana-mcp/host/internal/supervise"
	"github.com/ramabana/ramabana-mcp/sdk"
)

// Reload re-discovers the plugins and brings the running set in line:
// plugins whose binary appeared are started, those whose binary was
// replaced are restarted, those whose binary went away are stopped. The
// catalog and the MCP server's tools follow, and the SDK notifies clients
// that the tool list changed. The plugins' status changes are told to
// OnChange's subscribers once, when the reload ends.
func (h *Host) Reload(ctx context.Context) error {
	h.reloadMu.Lock()
	defer h.reloadMu.Unlock()
	if h.closed {
		return errClosed
	}
	defer h.batch()()
	sources, errs := supervise.Discover(h.cfg.Bundled.Self, h.cfg.Bundled.Names(), h.cfg.PluginDirs)
	for _, err := range errs {
		h.logger.Warn("plugin skipped", "error", err)
	}
	want := map[string]supervise.Source{}
	for _, s := range sources {
		want[s.Name] = s
	}
	running := h.Plugins()
	var start []supervise.Source
	for _, src := range sources {
		p, ok := running[src.Name]
		switch {
		case !ok:
			h.mu.Lock()
			_, failed := h.skipped[src.Name]
			failedAs := h.failedAs[src.Name]
			was, unmounted := h.unmounted[src.Name]
			h.mu.Unlock()
			if failed && (src.Bundled || failedAs == supervise.FingerprintOf(src)) {
				continue // the binary that failed would fail again
			}
			if unmounted && was.src.Path == src.Path && was.binary == supervise.FingerprintOf(src) {
				continue // the same binary: still none of its groups is mounted
			}
			start = append(start, src)
		case p.Source().Path != src.Path || p.Fingerprint() != supervise.FingerprintOf(src):
			h.logger.Info("plugin binary changed; restarting", "plugin", src.Name, "source", src.String())
			h.drop(p)
			start = append(start, src)
		}
	}
	for name, p := range running {
		if _, ok := want[name]; !ok {
			h.logger.Info("plugin binary removed; stopping", "plugin", name)
			h.drop(p)
		}
	}
	h.mu.Lock()
	for name := range h.skipped {
		if _, ok := want[name]; !ok {
			delete(h.skipped, name)
		}
	}
	h.mu.Unlock()
	err := h.startAll(ctx, start)
	h.toolsChanged()
	return err
}

// drop stops a plugin and takes its tools out of the catalog. A newer
// plugin registered under the same name (a reload) is left alone.
func (h *Host) drop(p *supervise.Plugin) {
	h.unregister(p)
	p.Stop()
}

// unregister takes a plugin's tools out of the catalog and the plugin out
// of the running set, and leaves its process to the caller to stop.
func (h *Host) unregister(p *supervise.Plugin) {
	h.mu.Lock()
	if h.plugins[p.Name()] == p {
		delete(h.plugins, p.Name())
	}
	h.mu.Unlock()
	h.catalog.RemoveCaller(p)
}

// watchPins watches the upstream servers' pins (upstream.Pins), so that
// an approval (`ramabana-mcp upstream approve`) serves the tool at once.
// Nothing is watched when no eager server is configured or pins are off.
func (h *Host) watchPins() (events chan fsnotify.Event, errs chan error, closeFn func()) {
	dir := h.cfg.UpstreamOptions.Pins.Dir
	if dir == "" || len(h.up.links) == 0 {
		return nil, nil, func() {}
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		h.logger.Warn("MCP server pins are not watched; an approval is seen at the next start", "error", err)
		return nil, nil, func() {}
	}
	w, err := fsnotify.NewWatcher()
	if err == nil {
		err = w.Add(dir)
		if err != nil {
			_ = w.Close()
		}
	}
	if err != nil {
		h.logger.Warn("MCP server pins are not watched; an approval is seen at the next start", "error", err)
		return nil, nil, func() {}
	}
	return w.Events, w.Errors, func() { _ = w.Close() }
}

// Watch reloads whenever a ramabana-plugin-* file is created, written,
// renamed or removed in a plugin dir, until ctx ends. Bursts of events (a
// copy, then a rename) are folded into one reload. Dirs that do not exist
// when Watch starts are not watched. Once watching, it reloads once, so
// that what changed between Start's discovery and the watch (a client may
// install a plugin while Start runs) is not missed.
//
// It also watches the skill folders (skillWatch) and tells OnChange's
// subscribers when a skill file came, went or changed, a burst of events
// folded into one change, and once as it starts.
func (h *Host) Watch(ctx context.Context) error {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return err
	}
	defer w.Close()
	watched := 0
	for _, dir := range h.cfg.PluginDirs {
		if err := w.Add(dir); err == nil {
			watched++
		} else if !errors.Is(err, os.ErrNotExist) {
			h.logger.Warn("cannot watch plugin dir", "dir", dir, "error", err)
		}
	}
	const settle = 150 * time.Millisecond
	reload := time.NewTimer(0) // the first reload
	pluginEvents, pluginErrors := w.Events, w.Errors
	if watched == 0 {
		reload.Stop()
		pluginEvents, pluginErrors = nil, nil
	}
	var skillEvents chan fsnotify.Event
	var skillErrors chan error
	sw, err := h.newSkillWatch()
	if err != nil {
		h.logger.Warn("skill folders are not watched; a skill added is seen at the next read", "error", err)
	} else {
		defer sw.w.Close()
		skillEvents, skillErrors = sw.w.Events, sw.w.Errors
	}
	// Told once now, as the first reload: a skill added before the
	// watch began is not missed.
	skillsChanged := time.NewTimer(0)
	pinEvents, pinErrors, closePins := h.watchPins()
	defer closePins()
	repin := time.NewTimer(0)
	repin.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-pluginEvents:
			if !ok {
				pluginEvents = nil
				continue
			}
			if strings.HasPrefix(filepath.Base(ev.Name), supervise.PluginPrefix) {
				reload.Reset(settle)
			}
		case err, ok := <-pluginErrors:
			if !ok {
				pluginErrors = nil
				continue
			}
			h.logger.Warn("plugin dir watch", "error", err)
		case <-reload.C:
			if err := h.Reload(ctx); err != nil && ctx.Err() == nil {
				h.logger.Warn("reload plugins", "error", err)
			}
		case ev, ok := <-skillEvents:
			if !ok {
				skillEvents = nil
				continue
			}
			if sw.relevant(ev.Name) {
				sw.arm() // before the change is told: a SKILL.md written since is then seen by either
				skillsChanged.Reset(settle)
			}
		case err, ok := <-skillErrors:
			if !ok {
				skillErrors = nil
				continue
			}
			h.logger.Warn("skill folder watch", "error", err)
		case <-skillsChanged.C:
			h.changed(ChangedSkills | ChangedStatus)
		case <-h.rootsMoved:
			if sw != nil {
				sw.watch(h.skillRoots()) // SetRoots told the change itself
			}
		case ev, ok := <-pinEvents:
			if !ok {
				pinEvents = nil
				continue
			}
			if strings.HasSuffix(ev.Name, ".json") {
				repin.Reset(settle)
			}
		case err, ok := <-pinErrors:
			if !ok {
				pinErrors = nil
				continue
			}
			h.logger.Warn("pins watch", "error", err)
		case <-repin.C:
			h.repinUpstreams()
		}
	}
}

// unmountedPlugin is a plugin that was described and stopped because none
// of its groups is mounted, with its binary as it was then (a reload
// starts it again only when the binary changed) and its description (a
// call of one of its tools is told which flag would mount it).
type unmountedPlugin struct {
	src    supervise.Source
	binary supervise.Fingerprint
	desc   *sdk.Description
}

package hub

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/ramabana/ramabana-mcp/host/internal/supervise"
)

// resolveRoots makes folders served roots: absolute, symlinks resolved,
// each an existing directory, in the order given, each once.
func resolveRoots(dirs []string) ([]string, error) {
	if len(dirs) == 0 {
		return nil, errors.New("no folder to serve")
	}
	roots := make([]string, 0, len(dirs))
	for _, r := range dirs {
		abs, err := filepath.Abs(r)
		if err != nil {
			return nil, fmt.Errorf("root %q: %w", r, err)
		}
		abs, err = filepath.EvalSymlinks(abs)
		if err != nil {
			return nil, fmt.Errorf("root %q: %w", r, err)
		}
		fi, err := os.Stat(abs)
		if err != nil {
			return nil, fmt.Errorf("root %q: %w", r, err)
		}
		if !fi.IsDir() {
			return nil, fmt.Errorf("root %q: not a directory", r)
		}
		if !slices.Contains(roots, abs) {
			roots = append(roots, abs)
		}
	}
	return roots, nil
}

// SetRoots serves dirs instead of the roots served now: the client's roots
// (MCP roots/list), when the server was started without --root. Every
// plugin is registered again with the new host context, as at a start: a
// bundled group, or a plugin whose description for these folders is kept
// from an earlier launch, from its description, its process started at
// its first call; any other is launched and described now. The old
// processes are stopped. The skills are read from the new folders, and
// clients are told once, at the end, that the tools, the skills and the
// status changed. A call made meanwhile waits for the new tools (for as
// long as the launches take, --start-timeout at the most); one under way
// in a plugin when its roots change fails, as when its binary is replaced.
// Nothing changes when dirs are the roots served now, or when one of them
// is not a folder (the error says which).
func (h *Host) SetRoots(ctx context.Context, dirs []string) error {
	roots, err := resolveRoots(dirs)
	if err != nil {
		return err
	}
	h.reloadMu.Lock()
	defer h.reloadMu.Unlock()
	if h.closed {
		return errClosed
	}
	if slices.Equal(roots, h.Roots()) {
		return nil
	}
	if !h.started {
		// Before Start: the plugins are registered with these roots then.
		h.roots.Store(&roots)
		h.logger.Info("serving the client's roots", "roots", roots)
		return nil
	}
	defer h.batch()()
	sources, errs := supervise.Discover(h.cfg.Bundled.Self, h.cfg.Bundled.Names(), h.cfg.PluginDirs)
	for _, err := range errs {
		h.logger.Warn("plugin skipped", "error", err)
	}
	h.logger.Info("serving the client's roots", "roots", roots)
	// A call looks its tool up after the swap, not amid it: every tool is
	// registered again (a call already running in an old plugin fails).
	h.swapping.Lock()
	h.swappingRoots = true
	h.roots.Store(&roots)
	old := h.Plugins()
	for _, p := range old {
		h.unregister(p)
	}
	h.mu.Lock()
	clear(h.skipped)
	clear(h.failedAs)
	clear(h.unmounted)
	h.mu.Unlock()
	err = h.startAll(ctx, sources)
	h.swappingRoots = false
	h.swapping.Unlock()
	// The old processes are stopped after the swap, together: a call
	// waits for the new tools, not for the old plugins to exit.
	var stopped sync.WaitGroup
	for _, p := range old {
		stopped.Go(p.Stop)
	}
	stopped.Wait()
	h.toolsChanged()
	h.changed(ChangedSkills | ChangedStatus)
	select {
	case h.rootsMoved <- struct{}{}:
	default: // Watch has one to read already
	}
	return err
}

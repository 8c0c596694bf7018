package hub

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

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
// plugin is stopped and registered again with the new host context (each
// is described afresh, and a process starts at its first call, as at a
// start), the skills are read from the new folders, and clients are told
// the tools, the skills and the status changed. A call made meanwhile waits
// for the new tools; one under way in a plugin when its roots change
// fails, as when its binary is replaced.
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
	defer h.batch()()
	// A call looks its tool up after the swap, not amid it: every tool is
	// registered again (a call already running in a dropped plugin fails).
	h.swapping.Lock()
	defer h.swapping.Unlock()
	h.roots.Store(&roots)
	for _, p := range h.Plugins() {
		h.drop(p)
	}
	h.mu.Lock()
	clear(h.skipped)
	clear(h.failedAs)
	clear(h.unmounted)
	h.mu.Unlock()
	sources, errs := supervise.Discover(h.cfg.Bundled.Self, h.cfg.Bundled.Names(), h.cfg.PluginDirs)
	for _, err := range errs {
		h.logger.Warn("plugin skipped", "error", err)
	}
	h.logger.Info("serving the client's roots", "roots", roots)
	err = h.startAll(ctx, sources)
	h.toolsChanged()
	h.changed(ChangedSkills | ChangedStatus)
	select {
	case h.rootsMoved <- struct{}{}:
	default: // Watch has one to read already
	}
	return err
}

package hub

import (
	"context"
	"errors"
	"os"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/ramabana/ramabana-mcp/host/internal/catalog"
	"github.com/ramabana/ramabana-mcp/host/internal/pii"
	"github.com/ramabana/ramabana-mcp/host/internal/supervise"
	"github.com/ramabana/ramabana-mcp/internal/launch"
	"github.com/ramabana/ramabana-mcp/sdk"
)

// launchConfig is what every plugin is launched with.
func (h *Host) launchConfig() supervise.Config {
	cfg := supervise.Config{
		Host: sdk.Host{
			Roots: h.Roots(), ReadOutside: h.cfg.ReadOutside, Web: h.cfg.Web, Write: h.cfg.Write,
			Commands: h.commandsAllowed(), NoSandbox: h.cfg.NoSandbox, ConfigDir: h.cfg.ConfigDir, HostVersion: h.cfg.Version,
		},
		Launch: launch.Options{
			Env:          launch.WithLogLevel(launch.Environ(os.Environ(), h.cfg.PluginEnv), h.logger),
			StartTimeout: h.cfg.StartTimeout,
			Logger:       h.logger,
			Verify:       h.cfg.Verify,
			Cut:          pii.Prefix, // the log's and the status's filter must see whole values
		},
		Logger:   h.logger,
		Idle:     h.cfg.PluginIdle,
		OnChange: func() { h.changed(ChangedStatus) },
	}
	cfg.Described = h.described
	cfg.LaunchFailed = func(p *supervise.Plugin, _ error) {
		if src := p.Source(); !src.Bundled {
			// A binary that no longer starts is not listed from what it
			// said before at the next start: it is launched and reported.
			_ = h.descriptions.Forget(src.Name, p.DescriptionKey())
			_ = h.descriptions.Forget(src.Name, p.InstalledDescriptionKey())
		}
	}
	return cfg
}

// startAll registers sources in name order, so that which of two plugins
// declaring the same tool wins does not depend on launch timing.
//
// A plugin whose description is known is registered from it and not
// launched: its process starts at its first call (supervise.Plugin.Call).
// A bundled group's is described in-process by the host binary
// (Bundled.Describe); a plugin binary's is the one kept in Descriptions
// from an earlier launch of the same binary with the same host context, or
// else the one `plugin install` recorded of it with the same permissions.
// The others are launched in parallel and described, their descriptions
// kept for next time, and with --plugin-idle they exit once idle.
func (h *Host) startAll(ctx context.Context, sources []supervise.Source) error {
	cfg := h.launchConfig()
	var described, wg sync.WaitGroup
	results := make([]error, len(sources))
	plugins := make([]*supervise.Plugin, len(sources))
	known := make([]bool, len(sources))
	for i, src := range sources {
		if h.policy.OptOut[src.Name] && src.Bundled {
			continue // a whole bundled plugin opted out is not started at all
		}
		plugins[i] = supervise.New(src, cfg)
	}
	// In parallel, one worker a CPU: describing a bundled group in-process
	// reflects over its tools' types, and reading a kept description
	// decodes it. Not a goroutine a plugin: each grows its stack for the
	// decoding, into fresh pages, and at a start the first touch of a page
	// is most of what costs (bench/README.md).
	var next atomic.Int64
	for range min(runtime.GOMAXPROCS(0), len(sources)) {
		described.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= len(sources) {
					return
				}
				if plugins[i] == nil {
					continue
				}
				if d := h.knownDescription(plugins[i], cfg); d != nil {
					plugins[i].Presume(d)
					known[i] = true
					continue
				}
				wg.Go(func() { results[i] = plugins[i].Start(ctx) })
			}
		})
	}
	described.Wait()
	for i, p := range plugins {
		if p != nil && known[i] {
			h.register(p, nil)
		}
	}
	// The clients get these now, not after the slowest launch; but not
	// amid a roots change, where they would see every launched plugin's
	// tools gone for a while (SetRoots tells them once, at its end).
	if !h.swappingRoots {
		h.toolsChanged()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		for i, p := range plugins {
			switch {
			case p != nil && known[i]:
				h.drop(p) // registered already: take its tools away too
			case p != nil:
				p.Stop()
			}
		}
		return err
	}
	for i, p := range plugins {
		if p != nil && !known[i] {
			h.register(p, results[i])
		}
	}
	return nil
}

// knownDescription is p's description when it is known without launching
// it: a bundled group's, or a plugin binary's kept from an earlier launch
// or recorded by `plugin install` (whose lock check, Config.Verify, still
// holds, and which the catalog would take whole: one it would refuse, or
// whose tools it would drop, is no description to list). nil: it is
// launched to learn it.
func (h *Host) knownDescription(p *supervise.Plugin, cfg supervise.Config) *sdk.Description {
	src := p.Source()
	if src.Bundled {
		return h.bundledDescription(p, cfg)
	}
	d, ok := h.descriptions.Load(src.Name, p.DescriptionKey())
	if !ok {
		// Never launched with this context: what `plugin install`
		// recorded of this binary, if anything.
		d, ok = h.descriptions.Load(src.Name, p.InstalledDescriptionKey())
	}
	if !ok || d.Validate() != nil {
		return nil
	}
	if _, refused := d.DropMisdeclared(); refused != nil {
		return nil
	}
	if h.cfg.Verify != nil && h.cfg.Verify(src.Path) != nil {
		return nil // launched, to be refused with the lock's reason
	}
	return d
}

// bundledDescription is a bundled group's description: the one kept from
// an earlier start of the same binary with the same host context, or else
// the one the host binary gives in-process (Bundled.Describe), kept for
// the next start. Building a group's tools reflects over their types to
// make their schemas, which costs more than reading a kept one; either
// way its schemas are compiled at each tool's first call (catalog: a
// bundled group's schemas are compiled by the tests).
//
// The in-process description is the running binary's: it is kept only
// under the key of the binary on disk when that is the running one, not a
// newer build installed over it since it started.
func (h *Host) bundledDescription(p *supervise.Plugin, cfg supervise.Config) *sdk.Description {
	src := p.Source()
	if h.cfg.Bundled.Groups[src.Name] == nil {
		return nil
	}
	key := p.DescriptionKey()
	if d, ok := h.descriptions.Load(src.Name, key); ok && d.ValidateUncompiled() == nil {
		if _, refused := d.DropMisdeclared(); refused == nil {
			return d
		}
	}
	d, err := h.cfg.Bundled.Describe(src.Name, cfg.Host)
	if err != nil {
		return nil
	}
	if p.Fingerprint().Running() {
		if err := h.descriptions.Store(src.Name, key, d); err != nil {
			h.logger.Debug("bundled group's description not kept; it is described in-process at the next start", "plugin", src.Name, "error", err)
		}
	}
	return d
}

// described keeps a plugin binary's own description, as each of its
// processes gives it, for the next start, and when it differs from the
// one the plugin's tools were listed from (a kept description gone stale,
// or a plugin that describes itself otherwise from one process to the
// next) lists them anew from it (supervise.Config.Described).
func (h *Host) described(p *supervise.Plugin, d *sdk.Description, changed bool) {
	src := p.Source()
	switch {
	case src.Bundled && changed:
		// Not the description kept or made in-process: the process's
		// stands, for the next start too.
		if err := h.descriptions.Store(src.Name, p.DescriptionKey(), d); err != nil {
			h.logger.Warn("plugin description not kept", "plugin", src.Name, "error", err)
		}
	case !src.Bundled:
		key := p.DescriptionKey()
		if old, ok := h.descriptions.Load(src.Name, key); !ok || !supervise.SameDescription(old, d) {
			if err := h.descriptions.Store(src.Name, key, d); err != nil {
				h.logger.Warn("plugin description not kept; the plugin is launched at the next start to describe it", "plugin", src.Name, "error", err)
			}
		}
	}
	h.mu.Lock()
	served := h.plugins[p.Name()] == p
	h.mu.Unlock()
	if !changed || !served {
		return
	}
	if err := h.catalog.Swap(p.Name(), provenance(src), d, p); err != nil {
		if errors.Is(err, catalog.ErrReplaced) {
			return // a reload put another process in p's place: its tools stand
		}
		h.drop(p)
		h.skip(src, err)
	}
	h.toolsChanged()
}

// register adds a launched plugin's tools to the catalog, or stops it:
// when it failed to start, when its tools clash, or when none of its
// groups can be mounted. It reports whether the plugin is served.
func (h *Host) register(p *supervise.Plugin, err error) bool {
	if err == nil && !h.policy.AnyGroupMounted(p.Description()) {
		p.Stop()
		h.mu.Lock()
		h.unmounted[p.Name()] = unmountedPlugin{src: p.Source(), binary: p.Fingerprint(), desc: p.Description()}
		h.mu.Unlock()
		h.logger.Debug("plugin stopped: none of its groups is mounted", "plugin", p.Name())
		return false
	}
	if err == nil {
		err = h.catalog.Add(p.Name(), provenance(p.Source()), p.Description(), p)
	}
	if err != nil {
		p.Stop()
		h.skip(p.Source(), err)
		return false
	}
	h.mu.Lock()
	h.plugins[p.Name()] = p
	delete(h.skipped, p.Name())
	h.mu.Unlock()
	if pid := p.Pid(); pid != 0 {
		h.logger.Debug("plugin served", "plugin", p.Name(), "source", p.Source().String(), "pid", pid)
	} else {
		h.logger.Debug("plugin served; its process starts at its first call", "plugin", p.Name(), "source", p.Source().String())
	}
	return true
}

func (h *Host) skip(src supervise.Source, err error) {
	h.mu.Lock()
	h.skipped[src.Name] = err.Error()
	h.failedAs[src.Name] = supervise.FingerprintOf(src)
	h.mu.Unlock()
	h.logger.Warn("plugin skipped", "plugin", src.Name, "source", src.String(), "error", err)
}

// Plugins returns the served plugins by name.
func (h *Host) Plugins() map[string]*supervise.Plugin {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make(map[string]*supervise.Plugin, len(h.plugins))
	for k, v := range h.plugins {
		out[k] = v
	}
	return out
}

// Skipped returns the plugins that are not served, with why.
func (h *Host) Skipped() map[string]string {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make(map[string]string, len(h.skipped))
	for k, v := range h.skipped {
		out[k] = v
	}
	return out
}

// provenance is where a plugin's tools run: a bundled group is the
// server's own binary; any binary from a plugin dir is a third party's,
// whatever name it gives itself (one that shadows a bundled group too).
func provenance(src supervise.Source) catalog.Provenance {
	if src.Bundled {
		return catalog.Bundled
	}
	return catalog.ThirdParty
}

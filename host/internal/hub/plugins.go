package hub

import (
	"context"
	"os"
	"sync"
	"time"

	"github.com/ramabana/ramabana-mcp/host/internal/catalog"
	"github.com/ramabana/ramabana-mcp/host/internal/pii"
	"github.com/ramabana/ramabana-mcp/host/internal/supervise"
	"github.com/ramabana/ramabana-mcp/internal/launch"
	"github.com/ramabana/ramabana-mcp/sdk"
)

// launchConfig is what every plugin is launched with.
func (h *Host) launchConfig() supervise.Config {
	return supervise.Config{
		Host: sdk.Host{
			Roots: h.roots, ReadOutside: h.cfg.ReadOutside, Web: h.cfg.Web, Write: h.cfg.Write,
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
		OnChange: func() { h.changed(ChangedStatus) },
	}
}

// startAll launches sources in parallel and registers them in name order,
// so that which of two plugins declaring the same tool wins does not
// depend on launch timing.
//
// A bundled group whose description the binary can give in-process
// (Bundled.Describe) is registered at once from it, and its process is
// launched in the background: the client gets its tools without waiting
// for seven processes to start on two cores, and a call that comes before
// the process is up waits for it. A background launch that fails takes
// the group's tools away again.
func (h *Host) startAll(ctx context.Context, sources []supervise.Source) error {
	cfg := h.launchConfig()
	var wg sync.WaitGroup
	results := make([]error, len(sources))
	plugins := make([]*supervise.Plugin, len(sources))
	early := make([]bool, len(sources))
	for i, src := range sources {
		if h.policy.OptOut[src.Name] && src.Bundled {
			continue // a whole bundled plugin opted out is not started at all
		}
		plugins[i] = supervise.New(src, cfg)
		if src.Bundled && h.cfg.Bundled.Groups[src.Name] != nil {
			if d, err := h.cfg.Bundled.Describe(src.Name, cfg.Host); err == nil {
				plugins[i].Presume(d)
				early[i] = true
				continue
			}
		}
		wg.Go(func() { results[i] = plugins[i].Start(ctx) })
	}
	for i, p := range plugins {
		if p != nil && early[i] && h.register(p, nil) {
			h.launches.Go(func() { h.launchLate(p) })
		}
	}
	// The clients get these now, not after the slowest plugin.
	h.toolsChanged()
	wg.Wait()
	if err := ctx.Err(); err != nil {
		for i, p := range plugins {
			switch {
			case p != nil && early[i]:
				h.drop(p) // registered already: take its tools away too
			case p != nil:
				p.Stop()
			}
		}
		return err
	}
	for i, p := range plugins {
		if p != nil && !early[i] {
			h.register(p, results[i])
		}
	}
	return nil
}

// warmDelay is how long background launches wait, so that the client's
// handshake and first tools/list do not compete with seven processes
// starting; a call that comes sooner launches its plugin itself.
const warmDelay = 200 * time.Millisecond

// upstreamDelay bounds how much longer background launches wait for the
// eager upstream servers to connect: a node or python server starting
// does not then share the CPU with seven plugin processes, and its tools
// reach the client's first tools/list sooner.
const upstreamDelay = 2 * time.Second

// launchLate launches a plugin registered from its in-process description,
// after warmDelay and the eager upstream servers' connects (for
// upstreamDelay at most), unless the host closes first.
func (h *Host) launchLate(p *supervise.Plugin) {
	select {
	case <-time.After(warmDelay):
	case <-h.closing:
		return
	}
	connected := make(chan struct{})
	go func() { h.up.connect.Wait(); close(connected) }()
	select {
	case <-connected:
	case <-time.After(upstreamDelay):
	case <-h.closing:
		return
	}
	if err := p.Start(context.Background()); err != nil && !p.Stopped() {
		h.drop(p)
		h.skip(p.Source(), err)
		h.toolsChanged()
	}
}

// register adds a launched plugin's tools to the catalog, or stops it:
// when it failed to start, when its tools clash, or when none of its
// groups can be mounted. It reports whether the plugin is served.
func (h *Host) register(p *supervise.Plugin, err error) bool {
	if err == nil && !h.policy.AnyGroupMounted(p.Description()) {
		p.Stop()
		h.mu.Lock()
		h.idle[p.Name()] = p.Source()
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
	h.logger.Debug("plugin started", "plugin", p.Name(), "source", p.Source().String(), "pid", p.Pid())
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

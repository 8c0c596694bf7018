package hub

import (
	"context"

	"github.com/ramabana/ramabana-mcp/host/internal/catalog"
	"github.com/ramabana/ramabana-mcp/host/internal/telemetry"
	"github.com/ramabana/ramabana-mcp/host/internal/upstream"
)

// telemetryCall names a call for its span and metrics: the plugin or
// upstream server it goes to, and its caller's kind (an agent turn's id
// would make a metric series of every turn).
func (h *Host) telemetryCall(ctx context.Context, e *catalog.Entry, id string) telemetry.Call {
	c := telemetry.Call{Tool: e.Spec.Name, Group: e.Group, ID: id, Caller: "client"}
	switch caller := callerOf(ctx); {
	case caller.IsAgent():
		c.Caller = "agent"
	default:
		c.Caller = string(caller)
	}
	if e.Upstream != nil {
		c.Upstream = e.Upstream.Server
		return c
	}
	h.mu.Lock()
	_, plugin := h.plugins[e.Plugin]
	h.mu.Unlock()
	if plugin {
		c.Plugin = e.Plugin
	}
	return c
}

// observeTelemetry has the telemetry's gauges read the plugins' and the
// eager upstream servers' states when metrics are collected; stop ends
// that. Close does not call it: the server's last export, made at exit
// while the host closes, must still hold the gauges (with the default
// 60 s interval it is a short session's only export).
func (h *Host) observeTelemetry() (stop func()) {
	return h.cfg.Telemetry.Observe(func() []telemetry.PluginState {
		var out []telemetry.PluginState
		for name, p := range h.Plugins() {
			hl := p.Health()
			out = append(out, telemetry.PluginState{Name: name, Running: hl.Running, Restarts: hl.Restarts})
		}
		return out
	}, func() []telemetry.UpstreamState {
		var out []telemetry.UpstreamState
		for _, st := range h.UpstreamStatus() {
			if !st.Lazy {
				out = append(out, telemetry.UpstreamState{ID: st.ID, Ready: st.State == upstream.StateReady})
			}
		}
		return out
	})
}

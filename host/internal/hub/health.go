package hub

import (
	"slices"
	"strings"
)

// Health is whether the server is ready for clients, for a load balancer's
// or an orchestrator's readiness probe (/readyz). It names plugins and
// upstream servers and their states, never a path nor an error's text
// (which may hold one): a probe is answered without a token.
type Health struct {
	// Status is "ready" or "starting".
	Status    string           `json:"status"`
	Ready     bool             `json:"ready"`
	Plugins   []PluginHealth   `json:"plugins"`
	Upstreams []UpstreamHealth `json:"upstreams,omitempty"`
}

// PluginHealth is one plugin's state: a supervise state (idle, starting,
// running, exited, failing, stopped), or skipped for a plugin that failed
// to start and is not served.
type PluginHealth struct {
	Name     string `json:"name"`
	State    string `json:"state"`
	Restarts int    `json:"restarts"`
}

// UpstreamHealth is one configured upstream MCP server's state (an
// upstream.State* value): Start settles an eager one ready or failed;
// lazy ones are listed as lazy and do not count.
type UpstreamHealth struct {
	ID    string `json:"id"`
	State string `json:"state"`
}

// PluginSkipped is the state of a plugin that is not served (Skipped).
const PluginSkipped = "skipped"

// Health reports whether the host is ready: Start has settled (every
// plugin is described, from what is known of it or by its process, or was
// skipped; every eager upstream server connected or failed and is retried
// in the background). A plugin's process need not run: it starts at its
// first call, and a plugin that crashes later does not make the host
// unready either: its state says so, and the next call starts it again.
func (h *Host) Health() Health {
	hl := Health{Plugins: []PluginHealth{}}
	select {
	case <-h.ready:
		hl.Ready = true
	default:
	}
	for name, p := range h.Plugins() {
		st := p.Health()
		hl.Plugins = append(hl.Plugins, PluginHealth{Name: name, State: st.State, Restarts: st.Restarts})
	}
	for name := range h.Skipped() {
		hl.Plugins = append(hl.Plugins, PluginHealth{Name: name, State: PluginSkipped})
	}
	slices.SortFunc(hl.Plugins, func(a, b PluginHealth) int { return strings.Compare(a.Name, b.Name) })
	for _, st := range h.UpstreamStatus() {
		hl.Upstreams = append(hl.Upstreams, UpstreamHealth{ID: st.ID, State: st.State})
	}
	hl.Status = "starting"
	if hl.Ready {
		hl.Status = "ready"
	}
	return hl
}

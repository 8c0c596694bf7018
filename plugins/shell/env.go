package shell

import (
	"strings"

	"github.com/ramabana/ramabana-mcp/sdk"
)

// internalPrefixes name the variables that go-plugin and the SDK set for a
// plugin process itself (its socket folder, port range, protocol versions,
// client certificate, handshake cookie): a command has no use for them.
var internalPrefixes = []string{"PLUGIN_", "RAMABANA_PLUGIN_"}

// commandEnv is environ without the plugin's internal variables. The host
// already filtered the plugin's environment down to its allow-list, so no
// secret of the host's is left in it.
func commandEnv(environ []string) []string {
	out := make([]string, 0, len(environ)+1)
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if isInternal(name) {
			continue
		}
		out = append(out, kv)
	}
	return out
}

func isInternal(name string) bool {
	if name == sdk.Handshake.MagicCookieKey {
		return true
	}
	for _, p := range internalPrefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

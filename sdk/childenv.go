package sdk

import (
	"os"
	"strings"
)

// internalPrefixes name the variables that go-plugin and the SDK set for a
// plugin process itself: its socket folder, port range, protocol versions,
// client certificate, the handshake cookie (RAMABANA_PLUGIN_MAGIC_COOKIE)
// and the call token.
var internalPrefixes = []string{"PLUGIN_", "RAMABANA_PLUGIN_"}

// ChildEnv is the environment for a program a plugin starts (a shell
// command, git, python3): the plugin's own, which the host already cut
// down to its allow-list, less the variables meant for the plugin process
// itself. The slice is fresh; the caller may append to it.
func ChildEnv() []string {
	environ := os.Environ()
	out := make([]string, 0, len(environ)+4)
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if !internal(name) {
			out = append(out, kv)
		}
	}
	return out
}

func internal(name string) bool {
	for _, p := range internalPrefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

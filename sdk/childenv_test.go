package sdk_test

import (
	"slices"
	"testing"

	"github.com/ramabana/ramabana-mcp/internal/pluginrpc"
	"github.com/ramabana/ramabana-mcp/sdk"
)

// TestChildEnv: programs a plugin starts get its environment less what
// go-plugin and the SDK set for the plugin process itself.
func TestChildEnv(t *testing.T) {
	hs := pluginrpc.Handshake()
	for _, kv := range [][2]string{
		{"PLUGIN_UNIX_SOCKET_DIR", "/tmp/x"}, {"PLUGIN_PROTOCOL_VERSIONS", "1"},
		{hs.MagicCookieKey, hs.MagicCookieValue}, {pluginrpc.TokenEnv, "secret"},
		{"RAMABANA_CHILDENV_KEEP", "yes"},
	} {
		t.Setenv(kv[0], kv[1])
	}
	env := sdk.ChildEnv()
	for _, gone := range []string{"PLUGIN_UNIX_SOCKET_DIR=/tmp/x", "PLUGIN_PROTOCOL_VERSIONS=1", hs.MagicCookieKey + "=" + hs.MagicCookieValue, pluginrpc.TokenEnv + "=secret"} {
		if slices.Contains(env, gone) {
			t.Errorf("ChildEnv holds %s", gone)
		}
	}
	if !slices.Contains(env, "RAMABANA_CHILDENV_KEEP=yes") {
		t.Error("ChildEnv lost an ordinary variable")
	}
}

package host

import (
	"strings"
	"testing"
)

func TestStdioHint(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		transport string
		terminal  bool
		want      bool
	}{
		"stdio from a terminal": {"stdio", true, true},
		"stdio from a client":   {"stdio", false, false},
		"http from a terminal":  {"http", true, false},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			hint := stdioHint(tc.transport, tc.terminal)
			if (hint != "") != tc.want {
				t.Fatalf("hint %q, want one: %v", hint, tc.want)
			}
			for _, w := range []string{"MCP server", "JSON-RPC", `"mcpServers"`, "--transport http"} {
				if tc.want && !strings.Contains(hint, w) {
					t.Errorf("hint %q lacks %q", hint, w)
				}
			}
		})
	}
}

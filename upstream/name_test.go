package upstream

import "testing"

func TestSplitName(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		in           string
		server, tool string
		ok           bool
	}{
		"simple":              {"files__read_file", "files", "read_file", true},
		"tool with __":        {"git__log__all", "git", "log__all", true},
		"tool with leading _": {"a___x", "a", "_x", true},
		"no separator":        {"read_file", "", "", false},
		"empty tool":          {"files__", "", "", false},
		"empty server":        {"__x", "", "", false},
		"invalid server":      {"Files__x", "", "", false},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			server, tool, ok := SplitName(tt.in)
			if server != tt.server || tool != tt.tool || ok != tt.ok {
				t.Errorf("SplitName(%q) = %q, %q, %v", tt.in, server, tool, ok)
			}
			if ok && Namespace(server, tool) != tt.in {
				t.Errorf("Namespace(%q, %q) = %q", server, tool, Namespace(server, tool))
			}
		})
	}
}

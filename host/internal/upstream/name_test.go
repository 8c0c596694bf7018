package upstream

import (
	"regexp"
	"strings"
	"testing"
)

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

// TestNamespace: a name over MaxName becomes a readable prefix and a hash:
// at most MaxName long, stable, keeping the whole server id, different for
// tools that differ only at the end, and never cut inside a character.
func TestNamespace(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 80)
	for name, tc := range map[string]struct {
		server, tool string
		want         string // "" means: shortened, checked below
	}{
		"short":       {"files", "read_file", "files__read_file"},
		"exactly 64":  {"s", strings.Repeat("t", MaxName-3), "s__" + strings.Repeat("t", MaxName-3)},
		"long":        {"server", long + "_one", ""},
		"long, utf8":  {"server", strings.Repeat("é", 60), ""},
		"dotted":      {"db", "sql.query", ""},
		"spaces":      {"db", "run query", ""},
		"underscores": {"w", "___x", ""},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got := Namespace(tc.server, tc.tool)
			if tc.want != "" {
				if got != tc.want {
					t.Errorf("Namespace = %q, want %q", got, tc.want)
				}
				return
			}
			if len(got) > MaxName || !regexp.MustCompile(`^[A-Za-z0-9_-]+$`).MatchString(got) || got != Namespace(tc.server, tc.tool) {
				t.Errorf("Namespace = %q (%d bytes), want at most %d stable bytes of A-Z a-z 0-9 _ -", got, len(got), MaxName)
			}
			if server, _, ok := SplitName(got); !ok || server != tc.server {
				t.Errorf("SplitName(%q) = %q, %v; want the server id kept", got, server, ok)
			}
		})
	}
	if a, b := Namespace("server", long+"_one"), Namespace("server", long+"_two"); a == b {
		t.Errorf("two tools that differ at the end share the name %q", a)
	}
	if a, b := Namespace("db", "sql.query"), Namespace("db", "sql_query"); a == b {
		t.Errorf("sql.query and sql_query share the name %q", a)
	}
}

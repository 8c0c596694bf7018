package host

import (
	"testing"

	"github.com/ramabana/ramabana-mcp/catalog"
	"github.com/ramabana/ramabana-mcp/sdk"
)

// TestToolSkillName: a skill tool serves the skill of its own name, an
// upstream server's tool that of its name on its server.
func TestToolSkillName(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		e    *catalog.Entry
		want string
	}{
		"plugin":   {e: &catalog.Entry{Spec: sdk.ToolSpec{Name: "house_style"}}, want: "house-style"},
		"upstream": {e: catalog.NewUpstreamEntry(sdk.ToolSpec{Name: "docs__House_Style"}, "docs", "mcp:docs", &catalog.Upstream{Server: "docs"}, nil), want: "house-style"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if got := ToolSkillName(tc.e); got != tc.want {
				t.Errorf("ToolSkillName = %q, want %q", got, tc.want)
			}
		})
	}
}

package e2e

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestInstructionsSayWhatIsThere: the instructions sent on initialize
// mention the skills, the status resource, the upstream servers' names
// and ask when the server has them, capability mode's two tools under
// --tools search, and not ask when it is not mounted.
func TestInstructionsSayWhatIsThere(t *testing.T) {
	t.Parallel()
	root := project(t)
	writeSkill(t, filepath.Join(root, ".agents", "skills"), "house-style", "How code is written here.", "Short functions.\n")
	mcpFile := mcpConfig(t, map[string]any{"up": upstreamServer("ok", map[string]any{"readonly": true})})
	full := startStdio(t, root, "--mcp-config", mcpFile, "--model", "m", "--model-url", "http://127.0.0.1:1/v1").session.InitializeResult().Instructions
	for _, want := range []string{"lineno|hash|content", "skill://{name}", "ramabana://status", "<id>__<tool>", "mcp://<id>/", "ask(task)", "find_references"} {
		if !strings.Contains(full, want) {
			t.Errorf("instructions lack %q:\n%s", want, full)
		}
	}
	plain := startStdio(t, project(t), "--tools", "search").session.InitializeResult().Instructions
	if strings.Contains(plain, "ask(task)") || strings.Contains(plain, "<id>__<tool>") || strings.Contains(plain, "find_references") {
		t.Errorf("instructions of a server without ask, upstream servers or code navigation listed mention them:\n%s", plain)
	}
	if !strings.Contains(plain, "invoke_tool") {
		t.Errorf("capability mode's instructions do not say how to call a tool:\n%s", plain)
	}
}

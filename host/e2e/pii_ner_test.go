package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestPIINames: with --pii-ner, --pii redacts or refuses personal names in
// a file viewed through view_file; without it, names pass as before, and
// the patterns still apply.
func TestPIINames(t *testing.T) {
	t.Parallel()
	root := project(t)
	body := "# Reviewed by Dr. Jane Smith on Tuesday.\n# Contact: ada@lovelace.dev\nclass JaneSmith:\n    pass\n"
	if err := os.WriteFile(filepath.Join(root, "review.py"), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct {
		args  []string
		check func(res *mcp.CallToolResult) string
	}{
		"redact with names": {
			args: []string{"--pii", "redact", "--pii-ner"},
			check: func(res *mcp.CallToolResult) string {
				out := text(res)
				switch {
				case res.IsError:
					return "an error"
				case strings.Contains(out, "Jane Smith") || !strings.Contains(out, "Dr. [REDACTED:name] on Tuesday"):
					return "name not redacted"
				case strings.Contains(out, "ada@") || !strings.Contains(out, "[REDACTED:email]"):
					return "address not redacted"
				case !strings.Contains(out, "class JaneSmith:"):
					return "an identifier was redacted"
				}
				return ""
			},
		},
		"redact without names": {
			args: []string{"--pii", "redact"},
			check: func(res *mcp.CallToolResult) string {
				out := text(res)
				if !strings.Contains(out, "Dr. Jane Smith on Tuesday") || strings.Contains(out, "[REDACTED:name]") {
					return "name redacted without --pii-ner"
				}
				if strings.Contains(out, "ada@") {
					return "address not redacted"
				}
				return ""
			},
		},
		"refuse with names": {
			args: []string{"--pii", "refuse", "--pii-ner"},
			check: func(res *mcp.CallToolResult) string {
				out := text(res)
				if !res.IsError || strings.Contains(out, "Jane") || !strings.Contains(out, "1 personal name") {
					return "result not refused clearly"
				}
				return ""
			},
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			// The first listing waits for the plugins, however busy the
			// machine.
			s := startStdio(t, root, append([]string{"--upstream-wait", "2m"}, tc.args...)...)
			if _, ok := tools(t, s.session)["view_file"]; !ok {
				t.Fatalf("view_file not listed; stderr:\n%s", s.stderr)
			}
			res, err := call(t, s.session, "view_file", map[string]any{"path": "review.py"})
			if err != nil {
				t.Fatal(err)
			}
			if msg := tc.check(res); msg != "" {
				t.Errorf("%s: %q", msg, text(res))
			}
		})
	}
}

package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ramabana/ramabana-mcp/host/internal/hub"
	"github.com/ramabana/ramabana-mcp/host/internal/mcpserver"
)

func writeSkill(t *testing.T, dir, name, description, body string) {
	t.Helper()
	text := "---\nname: " + name + "\ndescription: " + description + "\n---\n" + body
	if err := os.MkdirAll(filepath.Join(dir, name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name, "SKILL.md"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readResource(t *testing.T, cs *mcp.ClientSession, uri string) (string, error) {
	t.Helper()
	res, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		return "", err
	}
	return res.Contents[0].Text, nil
}

func TestSkillsAndStatusResources(t *testing.T) {
	t.Parallel()
	root, cfg, home := project(t), t.TempDir(), t.TempDir()
	writeSkill(t, filepath.Join(root, ".agents", "skills"), "deploy", "Use when deploying this project.", "# Project deploy\n")
	writeSkill(t, filepath.Join(cfg, "skills"), "deploy", "Config deploy, shadowed.", "# Config deploy\n")
	writeSkill(t, filepath.Join(cfg, "skills"), "style", "Use when writing prose.", "# Style\n")
	writeSkill(t, filepath.Join(home, ".agents", "skills"), "review", "Use when reviewing a change.", "# Review\n")
	bad := filepath.Join(root, ".agents", "skills", "broken")
	if err := os.MkdirAll(bad, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bad, "SKILL.md"), []byte("no front matter here\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := startStdioEnv(t, []string{"HOME=" + home}, root, "--cfg", cfg, "--plugins", pluginDir(t, "skill"))

	index, err := readResource(t, s.session, mcpserver.SkillsURI)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"deploy: Use when deploying this project.", "style: Use when writing prose.", "review: Use when reviewing a change.", "house-style: Use when writing user-facing text."} {
		if !strings.Contains(index, want) {
			t.Errorf("skills index lacks %q:\n%s", want, index)
		}
	}
	if strings.Contains(index, "broken") {
		t.Error("a malformed skill is in the index")
	}
	full, err := readResource(t, s.session, "skill://deploy")
	if err != nil || !strings.Contains(full, "# Project deploy") {
		t.Errorf("skill://deploy = %q, %v; want the project's skill", full, err)
	}
	if full, err := readResource(t, s.session, "skill://house-style"); err != nil || !strings.Contains(full, "Short sentences.") {
		t.Errorf("skill://house-style = %q, %v; want the plugin tool's text", full, err)
	}
	_, err = readResource(t, s.session, "skill://nope")
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc.CodeInvalidParams {
		t.Errorf("unknown skill: %v, want the resource-not-found error", err)
	}
	for _, want := range []string{"shadows", "broken"} {
		if !s.logged(want) {
			t.Errorf("no log line about %q:\n%s", want, s.stderr)
		}
	}

	// No bundled group's process runs before its first call.
	status := func() hub.Status {
		t.Helper()
		text, err := readResource(t, s.session, mcpserver.StatusURI)
		if err != nil {
			t.Fatal(err)
		}
		var st hub.Status
		if err := json.Unmarshal([]byte(text), &st); err != nil {
			t.Fatalf("status is not JSON: %v\n%s", err, text)
		}
		return st
	}
	st := status()
	for _, p := range st.Plugins {
		if p.Source != "bundled" {
			continue // launched at start to describe itself
		}
		if p.State != "idle" || p.Running || p.Pid != 0 {
			t.Errorf("plugin %s before any call = %+v, want idle with no process", p.Name, p)
		}
	}
	if _, err := call(t, s.session, "view_file", map[string]any{"path": "pkg/sizes.py"}); err != nil {
		t.Fatal(err)
	}
	st = status()
	if st.Transport != "stdio" || len(st.Roots) != 1 || len(st.Skills) != 4 {
		t.Errorf("status = %+v", st)
	}
	var files *hub.PluginStatus
	for i := range st.Plugins {
		if st.Plugins[i].Name == "files" {
			files = &st.Plugins[i]
		}
	}
	if files == nil || !files.Running || files.Pid == 0 {
		t.Errorf("status plugins = %+v, want files running with a pid", st.Plugins)
	}
	var groups []string
	for _, g := range st.Groups {
		groups = append(groups, g.Name)
	}
	if !strings.Contains(strings.Join(groups, ","), "files") {
		t.Errorf("status groups = %v", groups)
	}
}

func TestSessionGroupRecordsActivityAndChanges(t *testing.T) {
	t.Parallel()
	root := project(t)
	s := startStdio(t, root, "--write")
	if res, err := call(t, s.session, "replace_text", map[string]any{"path": "pkg/sizes.py", "old": "16_384", "new": "32_768"}); err != nil || res.IsError {
		t.Fatalf("replace_text: %v %q", err, text(res))
	}
	if _, err := call(t, s.session, "view_file", map[string]any{"path": "pkg/sizes.py"}); err != nil {
		t.Fatal(err)
	}
	res, err := call(t, s.session, "activity", map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	act := text(res)
	for _, want := range []string{"replace_text", "view_file", "client"} {
		if !strings.Contains(act, want) {
			t.Errorf("activity lacks %q:\n%s", want, act)
		}
	}
	if strings.Count(act, "replace_text") != 1 {
		t.Errorf("replace_text recorded %d times, want once:\n%s", strings.Count(act, "replace_text"), act)
	}
	res, err = call(t, s.session, "changes", map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"sizes.py", "-RESERVE = 16_384", "+RESERVE = 32_768"} {
		if !strings.Contains(text(res), want) {
			t.Errorf("changes lacks %q:\n%s", want, text(res))
		}
	}
	// One file, named as the other tools name it: relative to the served
	// folder, or absolute.
	for _, path := range []string{"pkg/sizes.py", "./pkg/../pkg/sizes.py", filepath.Join(realPath(t, root), "pkg", "sizes.py")} {
		res, err = call(t, s.session, "changes", map[string]any{"path": path})
		if err != nil || res.IsError || !strings.Contains(text(res), "+RESERVE = 32_768") {
			t.Errorf("changes for %s = %q, %v", path, text(res), err)
		}
	}
	if res, _ = call(t, s.session, "changes", map[string]any{"path": "pkg/other.py"}); !res.IsError {
		t.Errorf("changes for an unchanged file = %q, want an error", text(res))
	}
}

// realPath is path with its symlinks resolved, as the server records it.
func realPath(t *testing.T, path string) string {
	t.Helper()
	p, err := filepath.EvalSymlinks(path)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestPIIFilter(t *testing.T) {
	t.Parallel()
	root := project(t)
	body := "contact = \"ada@lovelace.dev\"\nversion = \"1.2.3\"\ncommit = \"3f786850e387550fdab836ed7e6dc881de23001b\"\n"
	if err := os.WriteFile(filepath.Join(root, "people.py"), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	for mode, check := range map[string]func(res *mcp.CallToolResult) string{
		"off": func(res *mcp.CallToolResult) string {
			if !strings.Contains(text(res), "ada@lovelace.dev") {
				return "address missing with --pii off"
			}
			return ""
		},
		"redact": func(res *mcp.CallToolResult) string {
			out := text(res)
			if strings.Contains(out, "ada@lovelace.dev") || !strings.Contains(out, "[REDACTED:email]") {
				return "address not redacted"
			}
			if !strings.Contains(out, "1.2.3") || !strings.Contains(out, "3f786850e387550fdab836ed7e6dc881de23001b") || !strings.Contains(out, "1|") {
				return "a false positive was redacted"
			}
			return ""
		},
		"refuse": func(res *mcp.CallToolResult) string {
			if !res.IsError || strings.Contains(text(res), "ada@") || !strings.Contains(text(res), "1 e-mail address") {
				return "result not refused clearly"
			}
			return ""
		},
	} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			s := startStdio(t, root, "--pii", mode)
			res, err := call(t, s.session, "view_file", map[string]any{"path": "people.py"})
			if err != nil {
				t.Fatal(err)
			}
			if msg := check(res); msg != "" {
				t.Errorf("%s: %q", msg, text(res))
			}
		})
	}
}

package legacy_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ramabana/ramabana-mcp/plugins/code"
	"github.com/ramabana/ramabana-mcp/plugins/files"
	"github.com/ramabana/ramabana-mcp/plugins/legacy"
	"github.com/ramabana/ramabana-mcp/sdk"
	"github.com/ramabana/ramabana-mcp/sdk/sdktest"
)

// Each 0.1 name answers exactly what the tool that replaced it answers for
// the same request, and says in its description what replaces it and when
// it goes.
func TestEachOldNameAnswersAsItsReplacement(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "pkg"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{
		"pkg/sizes.py": "RESERVE = 16_384\n\ndef threshold(ctx):\n    return ctx - RESERVE\n",
		"notes.txt":    "one\ntwo\nthree\n",
	} {
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	host := sdk.Host{Roots: []string{root}}
	old, desc := sdktest.Connect(t, legacy.New(), host)
	filesG, _ := sdktest.Connect(t, files.New(), host)
	codeG, _ := sdktest.Connect(t, code.New(), host)

	g := desc.Groups[0]
	if g.Name != "legacy" || g.Mode != sdk.ModeLegacy || g.ReplacedBy == "" {
		t.Fatalf("group %+v; want legacy, mode legacy, with what replaces it", g)
	}
	for _, tl := range g.Tools {
		if !strings.HasPrefix(tl.Description, "Deprecated: use ") || !strings.Contains(tl.Description, legacy.Until) {
			t.Errorf("%s: description %q does not say what replaces it and when it goes", tl.Name, tl.Description)
		}
	}

	cases := []struct {
		old     string
		oldArgs map[string]any
		now     sdk.Group
		tool    string
		args    map[string]any
	}{
		{"read_file", map[string]any{"path": "notes.txt", "offset": 1, "limit": 1}, filesG, "view_file", map[string]any{"path": "notes.txt", "start": 2, "limit": 1}},
		{"read_file", map[string]any{"path": "missing.txt"}, filesG, "view_file", map[string]any{"path": "missing.txt"}},
		{"list_dir", map[string]any{"path": "."}, filesG, "list_files", map[string]any{"path": ".", "depth": 1}},
		{"grep", map[string]any{"pattern": "reserve", "ignore_case": true}, codeG, "search_code", map[string]any{"pattern": "reserve", "case_sensitive": false}},
		{"grep", map[string]any{"pattern": "reserve"}, codeG, "search_code", map[string]any{"pattern": "reserve", "case_sensitive": true}},
	}
	if _, err := exec.LookPath("python3"); err == nil {
		cases = append(cases, struct {
			old     string
			oldArgs map[string]any
			now     sdk.Group
			tool    string
			args    map[string]any
		}{"list_vars", map[string]any{"module": "json"}, codeG, "inspect_python", map[string]any{"target": "json"}})
	}
	for _, tc := range cases {
		got := sdktest.Call(t, old, tc.old, tc.oldArgs)
		want := sdktest.Call(t, tc.now, tc.tool, tc.args)
		if got.Text() != want.Text() || got.IsError != want.IsError {
			t.Errorf("%s %v = %q (error %v)\nwant what %s %v answers: %q (error %v)", tc.old, tc.oldArgs, got.Text(), got.IsError, tc.tool, tc.args, want.Text(), want.IsError)
		}
		if got.Text() == "" {
			t.Errorf("%s answered nothing", tc.old)
		}
	}
	// A 0.1 argument it never had is refused, as the host's schema check would.
	if res := sdktest.Call(t, old, "read_file", map[string]any{"path": "notes.txt", "start": 2}); !res.IsError {
		t.Errorf("read_file with today's start = %q; want a refusal", res.Text())
	}
}

func TestReadFileRefusesANegativeOffsetInItsOwnWords(t *testing.T) {
	old, _ := sdktest.Connect(t, legacy.New(), sdk.Host{Roots: []string{t.TempDir()}})
	res := sdktest.Call(t, old, "read_file", map[string]any{"path": "x", "offset": -3})
	if !res.IsError || !strings.Contains(res.Text(), "offset and limit must be 0 or more") || strings.Contains(res.Text(), "start") {
		t.Errorf("read_file offset -3 = %q (error %v); want a refusal naming offset, not view_file's start", res.Text(), res.IsError)
	}
}

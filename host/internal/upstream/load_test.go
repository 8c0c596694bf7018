package upstream

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func writeConfigFile(t *testing.T, path, content string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestLoad(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	global := writeConfigFile(t, filepath.Join(dir, "home", "mcp.json"), `{"mcpServers": {
		"keep":    {"command": "keep"},
		"replace": {"command": "old"},
		"disable": {"command": "on"},
		"break":   {"command": "fine"},
		"off":     {"command": "x", "disabled": true},
		"enable":  {"command": "x", "disabled": true}
	}}`)
	broken := writeConfigFile(t, filepath.Join(dir, "broken.json"), "{\n  \"mcpServers\": {\n    \"lost\": {\"command\": \"x\"},\n  }\n}\n")
	project := writeConfigFile(t, filepath.Join(dir, "project", "mcp.json"), `{
		"mcpServers": {
			"replace": {"command": "new", "cwd": "work"},
			"disable": {"command": "on", "disabled": true},
			"break":   {"url": "ftp://x"},
			"enable":  {"command": "x"}
		},
		"servers": {"vscode": {"type": "http", "url": "https://h/mcp"}}
	}`)
	missing := filepath.Join(dir, "missing.json")
	required := filepath.Join(dir, "required.json")

	cfg, errs := Load([]File{
		{Path: global},
		{Path: missing},
		{Path: broken, Required: true},
		{Path: required, Required: true},
		{Path: project},
	})

	want := []Server{
		{ID: "enable", Type: TypeStdio, Command: "x", Source: project + ": mcpServers.enable"},
		{ID: "keep", Type: TypeStdio, Command: "keep", Source: global + ": mcpServers.keep"},
		{ID: "replace", Type: TypeStdio, Command: "new", Cwd: filepath.Join(dir, "project", "work"), Source: project + ": mcpServers.replace"},
		{ID: "vscode", Type: TypeHTTP, URL: "https://h/mcp", Source: project + ": servers.vscode"},
	}
	if diff := cmp.Diff(want, cfg.Servers()); diff != "" {
		t.Errorf("Servers (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"disable", "off"}, cfg.Disabled()); diff != "" {
		t.Errorf("Disabled (-want +got):\n%s", diff)
	}

	if len(errs) != 3 {
		t.Fatalf("%d errors, want 3: %v", len(errs), errs)
	}
	if got, want := errs[0].Error(), "MCP config "+broken+`: line 4, column 3: invalid character '}' looking for beginning of object key string`; got != want {
		t.Errorf("malformed file:\n got %s\nwant %s", got, want)
	}
	var ce *ConfigError
	if !errors.Is(errs[1], fs.ErrNotExist) || !errors.As(errs[1], &ce) || ce.File != required || ce.Key != "" {
		t.Errorf("required missing file: %v", errs[1])
	}
	if got, want := errs[2].Error(), "MCP config "+project+`: mcpServers.break: "url" "ftp://x" must start with http:// or https://`; got != want {
		t.Errorf("invalid entry:\n got %s\nwant %s", got, want)
	}

	replaced := func(id string) string {
		return "MCP config " + project + ": mcpServers." + id + " replaces " + global + ": mcpServers." + id
	}
	wantWarnings := []string{replaced("break"), replaced("disable"), replaced("enable"), replaced("replace")}
	if diff := cmp.Diff(wantWarnings, cfg.Warnings()); diff != "" {
		t.Errorf("Warnings (-want +got):\n%s", diff)
	}
}

func TestLoadMissingFiles(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "mcp.json")
	tests := map[string]struct {
		required bool
		wantErr  bool
	}{
		"optional": {required: false, wantErr: false},
		"required": {required: true, wantErr: true},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			cfg, errs := Load([]File{{Path: path, Required: tt.required}})
			if cfg == nil || len(cfg.Servers()) != 0 {
				t.Errorf("config %v, want empty", cfg)
			}
			if (len(errs) > 0) != tt.wantErr {
				t.Errorf("errors %v, want error: %v", errs, tt.wantErr)
			}
			for _, err := range errs {
				if !errors.Is(err, fs.ErrNotExist) {
					t.Errorf("%v: not fs.ErrNotExist", err)
				}
			}
		})
	}
	if cfg, errs := Load(nil); cfg == nil || len(errs) != 0 {
		t.Errorf("no files: %v, %v", cfg, errs)
	}
}

func TestPosition(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		data      string
		offset    int64
		line, col int
	}{
		"first byte":                  {data: "x", offset: 1, line: 1, col: 1},
		"zero offset":                 {data: "", offset: 0, line: 1, col: 1},
		"second line":                 {data: "{\n  }", offset: 5, line: 2, col: 3},
		"columns count characters":    {data: `{"é": x}`, offset: 8, line: 1, col: 7},
		"end after a newline":         {data: "{\"a\":\n\n", offset: 7, line: 1, col: 6},
		"end on the last character":   {data: `{"a":}`, offset: 6, line: 1, col: 6},
		"offset past the end clamped": {data: "ab", offset: 10, line: 1, col: 3},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			line, col := position([]byte(tt.data), tt.offset)
			if line != tt.line || col != tt.col {
				t.Errorf("position(%q, %d) = %d, %d; want %d, %d", tt.data, tt.offset, line, col, tt.line, tt.col)
			}
		})
	}
}

package upstream

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseConfig(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		json string
		want []Server
	}{
		"empty input":   {json: "  \n", want: []Server{}},
		"no mcpServers": {json: `{"other": 1}`, want: []Server{}},
		"stdio and urls, sorted by id": {
			json: `{"mcpServers": {
				"web": {"url": "https://example.com/mcp", "headers": {"Authorization": "Bearer ${TOKEN}"}, "description": " Web tools. "},
				"everything": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-everything"],
					"env": {"KEY": "${KEY:-none}"}, "cwd": "sub", "description": "All features.", "autoApprove": []},
				"legacy": {"type": "sse", "url": "http://127.0.0.1:8080/sse"},
				"typed": {"type": "stdio", "command": "/bin/srv"},
				"streamed": {"type": "streamable-http", "url": "${BASE}/mcp"},
				"off": {"command": "srv", "disabled": true}
			}}`,
			want: []Server{
				{ID: "everything", Description: "All features.", Type: TypeStdio, Command: "npx",
					Args: []string{"-y", "@modelcontextprotocol/server-everything"},
					Env:  map[string]string{"KEY": "${KEY:-none}"}, Cwd: "/cfg/sub"},
				{ID: "legacy", Type: TypeSSE, URL: "http://127.0.0.1:8080/sse"},
				{ID: "streamed", Type: TypeHTTP, URL: "${BASE}/mcp"},
				{ID: "typed", Type: TypeStdio, Command: "/bin/srv"},
				{ID: "web", Description: "Web tools.", Type: TypeHTTP, URL: "https://example.com/mcp",
					Headers: map[string]string{"Authorization": "Bearer ${TOKEN}"}},
			},
		},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			cfg, err := ParseConfig([]byte(tt.json), "/cfg")
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, cfg.Servers()); diff != "" {
				t.Errorf("Servers (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseConfigErrors(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		json string
		want []string // each must appear in the error
	}{
		"not json":              {`{"mcpServers": [}`, []string{"parse:"}},
		"servers not an object": {`{"mcpServers": []}`, []string{"parse:"}},
		"upper-case id":         {`{"mcpServers": {"Files": {"command": "x"}}}`, []string{`MCP server "Files": id must match [a-z0-9][a-z0-9_-]*`}},
		"leading dash":          {`{"mcpServers": {"-x": {"command": "x"}}}`, []string{`MCP server "-x": id must match`}},
		"double underscore":     {`{"mcpServers": {"a__b": {"command": "x"}}}`, []string{`MCP server "a__b": id must not contain "__"`}},
		"id too long":           {`{"mcpServers": {"` + strings.Repeat("a", 33) + `": {"command": "x"}}}`, []string{"id is 33 characters; at most 32"}},
		"both":                  {`{"mcpServers": {"two": {"command": "x", "url": "http://h/"}}}`, []string{`MCP server "two": set either "command" (stdio) or "url" (http, sse), not both`}},
		"neither":               {`{"mcpServers": {"none": {"description": "?"}}}`, []string{`MCP server "none": set "command" (a stdio server) or "url" (an http or sse server)`}},
		"ftp url":               {`{"mcpServers": {"f": {"url": "ftp://h/x"}}}`, []string{`MCP server "f": "url" "ftp://h/x" must start with http:// or https://`}},
		"no host":               {`{"mcpServers": {"f": {"url": "http:///x"}}}`, []string{`"url" "http:///x" has no host`}},
		"bad type":              {`{"mcpServers": {"f": {"url": "http://h/", "type": "websocket"}}}`, []string{`"type" "websocket" is not one of "http"`}},
		"url type on command":   {`{"mcpServers": {"f": {"command": "x", "type": "sse"}}}`, []string{`"type" "sse" does not fit a "command" server`}},
		"headers on command":    {`{"mcpServers": {"f": {"command": "x", "headers": {"A": "b"}}}}`, []string{`"headers" apply only to "url" servers`}},
		"env on url":            {`{"mcpServers": {"f": {"url": "http://h/", "env": {"A": "b"}}}}`, []string{`"args", "env" and "cwd" apply only to "command" servers`}},
		"wrong field type":      {`{"mcpServers": {"f": {"command": "x", "args": "-v"}}}`, []string{`MCP server "f": json: cannot unmarshal`}},
		"bad reference":         {`{"mcpServers": {"f": {"command": "x", "env": {"A": "${1X}"}}}}`, []string{`MCP server "f": "env" A: "${1X}" is not a variable reference`}},
		"unclosed reference":    {`{"mcpServers": {"f": {"command": "x", "args": ["${HOME"]}}}`, []string{`"args"[0]: unclosed "${HOME"`}},
		"bad header name":       {`{"mcpServers": {"f": {"url": "http://h/", "headers": {"Bad Name": "x"}}}}`, []string{`"headers" name "Bad Name" is not a valid HTTP header name`}},
		"every error reported": {`{"mcpServers": {"ok": {"command": "x"}, "B": {"command": "x"}, "c": {}}}`,
			[]string{`MCP server "B"`, `MCP server "c"`}},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			cfg, err := ParseConfig([]byte(tt.json), "/cfg")
			if err == nil {
				t.Fatalf("no error; servers %v", cfg.Servers())
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q\ndoes not contain %q", err, w)
				}
			}
		})
	}
}

func TestLoadConfig(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()

	cfg, err := LoadConfig(filepath.Join(dir, "missing.json"))
	if err != nil || len(cfg.Servers()) != 0 {
		t.Errorf("missing file: %v, %v", cfg.Servers(), err)
	}

	path := filepath.Join(dir, "mcp.json")
	if err := os.WriteFile(path, []byte(`{"mcpServers": {"local": {"command": "srv", "cwd": "work"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err = LoadConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	s, ok := cfg.Lookup("local")
	if !ok || s.Cwd != filepath.Join(dir, "work") {
		t.Errorf("Lookup(local) = %+v, %v", s, ok)
	}
	if _, ok := cfg.Lookup("other"); ok {
		t.Error("Lookup(other) found a server")
	}

	if err := os.WriteFile(path, []byte(`{"mcpServers": {"X": {"command": "srv"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadConfig(path); err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), `MCP server "X"`) {
		t.Errorf("invalid file: %v", err)
	}

	if _, err := LoadConfig(dir); err == nil {
		t.Error("a directory: no error")
	}
}

func TestExpand(t *testing.T) {
	t.Parallel()
	env := map[string]string{"A": "1", "EMPTY": ""}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	tests := map[string]struct {
		in, want, err string
	}{
		"plain":                 {in: "no refs $HOME", want: "no refs $HOME"},
		"one":                   {in: "x${A}y", want: "x1y"},
		"several":               {in: "${A}${A}-${A}", want: "11-1"},
		"default unused":        {in: "${A:-d}", want: "1"},
		"default when unset":    {in: "${B:-d e}", want: "d e"},
		"default when empty":    {in: "${EMPTY:-d}", want: "d"},
		"empty without default": {in: "[${EMPTY}]", want: "[]"},
		"unset":                 {in: "${B}", err: "environment variable B is not set"},
		"unclosed":              {in: "a ${A", err: `unclosed "${A"`},
		"not a name":            {in: "${A-B}", err: `"${A-B}" is not a variable reference (want ${NAME} or ${NAME:-default})`},
		"VS Code input":         {in: "Bearer ${input:api-key}", err: `"${input:api-key}": VS Code input variables are not supported; use a ${VAR} environment reference instead`},
		"VS Code env":           {in: "${env:A}", err: `"${env:A}" is VS Code's form of an environment reference; write ${A}`},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, err := expand(tt.in, lookup)
			if tt.err != "" {
				if err == nil || err.Error() != tt.err {
					t.Errorf("expand(%q) error = %v, want %s", tt.in, err, tt.err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("expand(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
			}
		})
	}
}

func TestServerExpandedURL(t *testing.T) {
	t.Parallel()
	s := Server{ID: "w", Type: TypeHTTP, URL: "${BASE}/mcp"}
	for base, wantErr := range map[string]bool{"https://h": false, "ftp://h": true} {
		_, err := s.expanded(func(string) (string, bool) { return base, true })
		if (err != nil) != wantErr {
			t.Errorf("BASE=%s: error %v", base, err)
		}
	}
}

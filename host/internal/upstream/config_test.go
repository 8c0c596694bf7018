package upstream

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestParseConfig(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		json         string
		want         []Server
		wantDisabled []string
		wantWarnings []string
	}{
		"empty input":   {json: "  \n", want: []Server{}},
		"no mcpServers": {json: `{"other": 1}`, want: []Server{}},
		"null sections": {json: `{"mcpServers": null, "servers": null}`, want: []Server{}},
		"byte order mark": {json: "\xef\xbb\xbf" + `{"mcpServers": {"a": {"command": "x"}}}`,
			want: []Server{{ID: "a", Type: TypeStdio, Command: "x", Source: "mcpServers.a"}}},
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
					Env:  map[string]string{"KEY": "${KEY:-none}"}, Cwd: "/cfg/sub", Source: "mcpServers.everything"},
				{ID: "legacy", Type: TypeSSE, URL: "http://127.0.0.1:8080/sse", Source: "mcpServers.legacy"},
				{ID: "streamed", Type: TypeHTTP, URL: "${BASE}/mcp", Source: "mcpServers.streamed"},
				{ID: "typed", Type: TypeStdio, Command: "/bin/srv", Source: "mcpServers.typed"},
				{ID: "web", Description: "Web tools.", Type: TypeHTTP, URL: "https://example.com/mcp",
					Headers: map[string]string{"Authorization": "Bearer ${TOKEN}"}, Source: "mcpServers.web"},
			},
			wantDisabled: []string{"off"},
		},
		"timeouts in seconds and as durations": {
			json: `{"mcpServers": {
				"a": {"command": "x", "timeout": 60},
				"b": {"command": "x", "timeout": 2.5},
				"c": {"command": "x", "timeout": "90s"},
				"d": {"command": "x", "timeout": "500ms"},
				"e": {"command": "x", "timeout": "2m"},
				"f": {"command": "x", "timeout": null},
				"g": {"command": "x", "timeout": 0.001}
			}}`,
			want: []Server{
				{ID: "a", Type: TypeStdio, Command: "x", Timeout: time.Minute, Source: "mcpServers.a"},
				{ID: "b", Type: TypeStdio, Command: "x", Timeout: 2500 * time.Millisecond, Source: "mcpServers.b"},
				{ID: "c", Type: TypeStdio, Command: "x", Timeout: 90 * time.Second, Source: "mcpServers.c"},
				{ID: "d", Type: TypeStdio, Command: "x", Timeout: 500 * time.Millisecond, Source: "mcpServers.d"},
				{ID: "e", Type: TypeStdio, Command: "x", Timeout: 2 * time.Minute, Source: "mcpServers.e"},
				{ID: "f", Type: TypeStdio, Command: "x", Source: "mcpServers.f"},
				{ID: "g", Type: TypeStdio, Command: "x", Timeout: time.Millisecond, Source: "mcpServers.g"},
			},
		},
		"a timeout that looks like Gemini CLI's milliseconds": {
			json:         `{"mcpServers": {"g": {"command": "x", "timeout": 600000}}}`,
			want:         []Server{{ID: "g", Type: TypeStdio, Command: "x", Timeout: 600000 * time.Second, Source: "mcpServers.g"}},
			wantWarnings: []string{`mcpServers.g: "timeout" 600000 is read as seconds (166h40m0s); if it means milliseconds (Gemini CLI), write "10m0s"`},
		},
		"lazy, readonly and tool filters": {
			json: `{"mcpServers": {
				"a": {"command": "x", "lazy": true, "readonly": true, "allow": ["read_*", "list"], "deny": ["read_secret"]},
				"b": {"command": "x", "readOnly": true, "includeTools": ["get_*"], "excludeTools": ["get_token"]},
				"c": {"command": "x", "lazy": false, "readonly": false, "allow": [], "deny": null}
			}}`,
			want: []Server{
				{ID: "a", Type: TypeStdio, Command: "x", Lazy: true, ReadOnly: true,
					Allow: []string{"read_*", "list"}, Deny: []string{"read_secret"}, Source: "mcpServers.a"},
				{ID: "b", Type: TypeStdio, Command: "x", ReadOnly: true,
					Allow: []string{"get_*"}, Deny: []string{"get_token"}, Source: "mcpServers.b"},
				{ID: "c", Type: TypeStdio, Command: "x", Source: "mcpServers.c"},
			},
		},
		"VS Code servers key": {
			json: `{"inputs": [{"type": "promptString", "id": "key"}], "servers": {
				"fetch": {"type": "stdio", "command": "uvx", "args": ["mcp-server-fetch"]},
				"remote": {"type": "http", "url": "https://api.example.com/mcp"},
				"old": {"type": "sse", "url": "https://old.example.com/sse", "disabled": true}
			}}`,
			want: []Server{
				{ID: "fetch", Type: TypeStdio, Command: "uvx", Args: []string{"mcp-server-fetch"}, Source: "servers.fetch"},
				{ID: "remote", Type: TypeHTTP, URL: "https://api.example.com/mcp", Source: "servers.remote"},
			},
			wantDisabled: []string{"old"},
		},
		"both keys: mcpServers wins an id": {
			json: `{"servers": {"a": {"command": "from-servers"}, "b": {"command": "b"}},
				"mcpServers": {"a": {"command": "from-mcpServers"}}}`,
			want: []Server{
				{ID: "a", Type: TypeStdio, Command: "from-mcpServers", Source: "mcpServers.a"},
				{ID: "b", Type: TypeStdio, Command: "b", Source: "servers.b"},
			},
			wantWarnings: []string{"servers.a is ignored: mcpServers.a in the same file configures the server"},
		},
		"both keys: an invalid servers entry under a taken id is not checked": {
			json:         `{"servers": {"a": {"url": "ftp://x"}}, "mcpServers": {"a": {"command": "x"}}}`,
			want:         []Server{{ID: "a", Type: TypeStdio, Command: "x", Source: "mcpServers.a"}},
			wantWarnings: []string{"servers.a is ignored: mcpServers.a in the same file configures the server"},
		},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			cfg, errs := ParseConfig([]byte(tt.json), "/cfg")
			if len(errs) > 0 {
				t.Fatal(errs)
			}
			if diff := cmp.Diff(tt.want, cfg.Servers()); diff != "" {
				t.Errorf("Servers (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantDisabled, cfg.Disabled(), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("Disabled (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantWarnings, cfg.Warnings(), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("Warnings (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseConfigErrors(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		json string
		// want has one entry per error, in order; each must appear in its
		// error.
		want []string
		// loaded are the ids that still load beside the errors.
		loaded []string
	}{
		"not json":              {`{"mcpServers": [}`, []string{`line 1, column 17: invalid character '}' looking for beginning of value`}, nil},
		"not an object":         {`["a"]`, []string{`line 1, column 1: the file must be a JSON object with "mcpServers" or "servers", not a JSON array`}, nil},
		"servers not an object": {`{"mcpServers": []}`, []string{`mcpServers: must be an object of servers by id, not a JSON array`}, nil},
		"VS Code servers not an object": {`{"servers": "x", "mcpServers": {"a": {"command": "x"}}}`,
			[]string{`servers: must be an object of servers by id, not a JSON string`}, []string{"a"}},
		"upper-case id":       {`{"mcpServers": {"Files": {"command": "x"}}}`, []string{`mcpServers.Files: id must match [a-z0-9][a-z0-9_-]*`}, nil},
		"leading dash":        {`{"mcpServers": {"-x": {"command": "x"}}}`, []string{`mcpServers.-x: id must match`}, nil},
		"id with a space":     {`{"mcpServers": {"a b": {"command": "x"}}}`, []string{`mcpServers["a b"]: id must match`}, nil},
		"double underscore":   {`{"mcpServers": {"a__b": {"command": "x"}}}`, []string{`mcpServers.a__b: id must not contain "__"`}, nil},
		"trailing underscore": {`{"mcpServers": {"lz_": {"command": "x"}}}`, []string{`mcpServers.lz_: id must not contain "__" or end in "_"`}, nil},
		"id too long":         {`{"mcpServers": {"` + strings.Repeat("a", 33) + `": {"command": "x"}}}`, []string{"id is 33 characters; at most 32"}, nil},
		"VS Code key named":   {`{"servers": {"F": {"command": "x"}}}`, []string{`servers.F: id must match`}, nil},
		"both":                {`{"mcpServers": {"two": {"command": "x", "url": "http://h/"}}}`, []string{`mcpServers.two: set either "command" (stdio) or "url" (http, sse), not both`}, nil},
		"neither":             {`{"mcpServers": {"none": {"description": "?"}}}`, []string{`mcpServers.none: set "command" (a stdio server) or "url" (an http or sse server)`}, nil},
		"ftp url":             {`{"mcpServers": {"f": {"url": "ftp://h/x"}}}`, []string{`mcpServers.f: "url" "ftp://h/x" must start with http:// or https://`}, nil},
		"no host":             {`{"mcpServers": {"f": {"url": "http:///x"}}}`, []string{`"url" "http:///x" has no host`}, nil},
		"bad type":            {`{"mcpServers": {"f": {"url": "http://h/", "type": "websocket"}}}`, []string{`"type" "websocket" is not one of "http"`}, nil},
		"url type on command": {`{"mcpServers": {"f": {"command": "x", "type": "sse"}}}`,
			[]string{`"type" "sse" does not fit a "command" server`}, nil},
		"headers on command": {`{"mcpServers": {"f": {"command": "x", "headers": {"A": "b"}}}}`, []string{`"headers" apply only to "url" servers`}, nil},
		"env on url":         {`{"mcpServers": {"f": {"url": "http://h/", "env": {"A": "b"}}}}`, []string{`"args", "env" and "cwd" apply only to "command" servers`}, nil},
		"entry not an object": {`{"mcpServers": {"f": "npx srv"}}`,
			[]string{`mcpServers.f: the server must be an object, not a JSON string`}, nil},
		"args not a list": {`{"mcpServers": {"f": {"command": "x", "args": "-v"}}}`,
			[]string{`mcpServers.f: "args": a JSON string where a list of strings belongs`}, nil},
		"env value not a string": {`{"mcpServers": {"f": {"command": "x", "env": {"A": 1}}}}`,
			[]string{`mcpServers.f: "env": a JSON number where a string belongs`}, nil},
		"lazy not a bool": {`{"mcpServers": {"f": {"command": "x", "lazy": "yes"}}}`,
			[]string{`mcpServers.f: "lazy": a JSON string where true or false belongs`}, nil},
		"bad reference":      {`{"mcpServers": {"f": {"command": "x", "env": {"A": "${1X}"}}}}`, []string{`mcpServers.f: "env" A: "${1X}" is not a variable reference`}, nil},
		"unclosed reference": {`{"mcpServers": {"f": {"command": "x", "args": ["${HOME"]}}}`, []string{`"args"[0]: unclosed "${HOME"`}, nil},
		"VS Code input variable": {`{"servers": {"gh": {"url": "https://h/", "headers": {"Authorization": "Bearer ${input:gh-token}"}}}}`,
			[]string{`servers.gh: "headers" Authorization: "${input:gh-token}": VS Code input variables are not supported; use a ${VAR} environment reference instead`}, nil},
		"VS Code env reference": {`{"servers": {"f": {"command": "x", "env": {"HOME": "${env:HOME}"}}}}`,
			[]string{`servers.f: "env" HOME: "${env:HOME}" is VS Code's form of an environment reference; write ${HOME}`}, nil},
		"bad header name": {`{"mcpServers": {"f": {"url": "http://h/", "headers": {"Bad Name": "x"}}}}`, []string{`"headers" name "Bad Name" is not a valid HTTP header name`}, nil},

		"negative timeout":        {`{"mcpServers": {"t": {"command": "x", "timeout": -1}}}`, []string{`mcpServers.t: "timeout" -1 must be positive`}, nil},
		"zero timeout":            {`{"mcpServers": {"t": {"command": "x", "timeout": 0}}}`, []string{`mcpServers.t: "timeout" 0 must be positive`}, nil},
		"zero duration":           {`{"mcpServers": {"t": {"command": "x", "timeout": "0s"}}}`, []string{`mcpServers.t: "timeout" "0s" must be positive`}, nil},
		"negative duration":       {`{"mcpServers": {"t": {"command": "x", "timeout": "-5s"}}}`, []string{`mcpServers.t: "timeout" "-5s" must be positive`}, nil},
		"under a nanosecond":      {`{"mcpServers": {"t": {"command": "x", "timeout": 1e-12}}}`, []string{`mcpServers.t: "timeout" 1e-12 is less than a nanosecond`}, nil},
		"timeout too long":        {`{"mcpServers": {"t": {"command": "x", "timeout": 1e300}}}`, []string{`mcpServers.t: "timeout" 1e300 is too long`}, nil},
		"timeout not a duration":  {`{"mcpServers": {"t": {"command": "x", "timeout": "fast"}}}`, []string{`mcpServers.t: "timeout" "fast" is not a duration (a number of seconds, or a string such as "90s", "500ms" or "2m")`}, nil},
		"timeout string no unit":  {`{"mcpServers": {"t": {"command": "x", "timeout": "60"}}}`, []string{`"timeout" "60" is not a duration`}, nil},
		"timeout not a number":    {`{"mcpServers": {"t": {"command": "x", "timeout": true}}}`, []string{`mcpServers.t: "timeout" true is not a number of seconds or a duration string such as "90s"`}, nil},
		"readonly and readOnly":   {`{"mcpServers": {"r": {"command": "x", "readonly": true, "readOnly": true}}}`, []string{`mcpServers.r: set "readonly" or "readOnly", not both`}, nil},
		"allow and includeTools":  {`{"mcpServers": {"r": {"command": "x", "allow": ["a"], "includeTools": []}}}`, []string{`mcpServers.r: set "allow" or "includeTools", not both`}, nil},
		"deny and excludeTools":   {`{"mcpServers": {"r": {"command": "x", "deny": [], "excludeTools": ["b"]}}}`, []string{`mcpServers.r: set "deny" or "excludeTools", not both`}, nil},
		"unknown pin":             {`{"mcpServers": {"r": {"command": "x", "pin": "sometimes"}}}`, []string{`mcpServers.r: "pin" "sometimes": use "strict", "new-tools" or "off"`}, nil},
		"empty allow entry":       {`{"mcpServers": {"r": {"command": "x", "allow": ["a", ""]}}}`, []string{`mcpServers.r: "allow"[1] is empty`}, nil},
		"bad deny pattern":        {`{"mcpServers": {"r": {"command": "x", "deny": ["read_[a"]}}}`, []string{`mcpServers.r: "deny"[0] "read_[a" is not a valid pattern (an exact name or a glob such as "read_*")`}, nil},
		"bad pattern under alias": {`{"mcpServers": {"r": {"command": "x", "excludeTools": ["ok", "x["]}}}`, []string{`mcpServers.r: "excludeTools"[1] "x[" is not a valid pattern`}, nil},
		"allow not a list":        {`{"mcpServers": {"r": {"command": "x", "allow": "read_*"}}}`, []string{`mcpServers.r: "allow": a JSON string where a list of strings belongs`}, nil},

		"every problem of an entry in one error": {`{"mcpServers": {"f": {"url": "ftp://h/", "timeout": -1, "allow": [""]}}}`,
			[]string{`mcpServers.f: "url" "ftp://h/" must start with http:// or https://; "timeout" -1 must be positive; "allow"[0] is empty`}, nil},
		"every error reported, the rest loaded": {`{"mcpServers": {"ok": {"command": "x"}, "B": {"command": "x"}, "c": {}}, "servers": {"d": {"url": "x"}, "e": {"url": "http://h/"}}}`,
			[]string{`mcpServers.B: `, `mcpServers.c: `, `servers.d: `}, []string{"e", "ok"}},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			cfg, errs := ParseConfig([]byte(tt.json), "/cfg")
			if len(errs) != len(tt.want) {
				t.Fatalf("%d errors, want %d: %v", len(errs), len(tt.want), errs)
			}
			for i, w := range tt.want {
				if !strings.Contains(errs[i].Error(), w) {
					t.Errorf("error %q\ndoes not contain %q", errs[i], w)
				}
			}
			var loaded []string
			for _, s := range cfg.Servers() {
				loaded = append(loaded, s.ID)
			}
			if diff := cmp.Diff(tt.loaded, loaded); diff != "" {
				t.Errorf("loaded (-want +got):\n%s", diff)
			}
		})
	}
}

func TestConfigErrorNamesTheEntry(t *testing.T) {
	t.Parallel()
	_, errs := ParseConfig([]byte(`{"servers": {"gh": {"url": "ftp://x"}}}`), "")
	var ce *ConfigError
	if len(errs) != 1 || !errors.As(errs[0], &ce) {
		t.Fatalf("errors %v, want one *ConfigError", errs)
	}
	if ce.File != "" || ce.Key != "servers.gh" || ce.ID != "gh" {
		t.Errorf("ConfigError{File: %q, Key: %q, ID: %q}", ce.File, ce.Key, ce.ID)
	}
}

func TestServerAllows(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		allow, deny []string
		yes, no     []string
	}{
		"no filters":                       {yes: []string{"anything", ""}},
		"exact allow":                      {allow: []string{"read", "list"}, yes: []string{"read", "list"}, no: []string{"reader", "write"}},
		"glob allow":                       {allow: []string{"read_*"}, yes: []string{"read_", "read_file"}, no: []string{"read", "unread_file"}},
		"deny only":                        {deny: []string{"delete_*", "drop"}, yes: []string{"read", "dropped"}, no: []string{"delete_file", "drop"}},
		"deny beats allow":                 {allow: []string{"*"}, deny: []string{"*_secret"}, yes: []string{"read"}, no: []string{"read_secret"}},
		"character classes":                {allow: []string{"get_[ab]?"}, yes: []string{"get_ax", "get_b1"}, no: []string{"get_c1", "get_a"}},
		"malformed pattern matches itself": {deny: []string{"x["}, yes: []string{"x"}, no: []string{"x["}},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := Server{ID: "s", Allow: tt.allow, Deny: tt.deny}
			for _, tool := range tt.yes {
				if !s.Allows(tool) {
					t.Errorf("Allows(%q) = false", tool)
				}
			}
			for _, tool := range tt.no {
				if s.Allows(tool) {
					t.Errorf("Allows(%q) = true", tool)
				}
			}
		})
	}
}

func TestServerCallTimeout(t *testing.T) {
	t.Parallel()
	if got := (Server{}).CallTimeout(); got != DefaultCallTimeout {
		t.Errorf("unset: %v, want %v", got, DefaultCallTimeout)
	}
	if got := (Server{Timeout: 5 * time.Second}).CallTimeout(); got != 5*time.Second {
		t.Errorf("5s: %v", got)
	}
}

func TestNewConfig(t *testing.T) {
	t.Parallel()
	cfg := NewConfig(
		Server{ID: "b", Command: "first"},
		Server{ID: "a", URL: "http://h/"},
		Server{ID: "b", Command: "second"},
	)
	want := []Server{{ID: "a", URL: "http://h/"}, {ID: "b", Command: "second"}}
	if diff := cmp.Diff(want, cfg.Servers()); diff != "" {
		t.Errorf("Servers (-want +got):\n%s", diff)
	}
	if s, ok := cfg.Lookup("b"); !ok || s.Command != "second" {
		t.Errorf("Lookup(b) = %+v, %v", s, ok)
	}
	if d, w := cfg.Disabled(), cfg.Warnings(); len(d) != 0 || len(w) != 0 {
		t.Errorf("Disabled %v, Warnings %v", d, w)
	}
	if got := NewConfig().Servers(); len(got) != 0 {
		t.Errorf("empty: %v", got)
	}
}

// loadOne loads one optional file, every problem joined.
func loadOne(path string) (*Config, error) {
	c, errs := Load([]File{{Path: path}})
	return c, errors.Join(errs...)
}

func TestLoadOneFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()

	cfg, err := loadOne(filepath.Join(dir, "missing.json"))
	if err != nil || len(cfg.Servers()) != 0 {
		t.Errorf("missing file: %v, %v", cfg.Servers(), err)
	}

	path := filepath.Join(dir, "mcp.json")
	if err := os.WriteFile(path, []byte(`{"mcpServers": {"local": {"command": "srv", "cwd": "work"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err = loadOne(path)
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

	if err := os.WriteFile(path, []byte(`{"mcpServers": {"X": {"command": "srv"}, "ok": {"command": "srv"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err = loadOne(path)
	if err == nil || !strings.Contains(err.Error(), "MCP config "+path+": mcpServers.X: id must match") {
		t.Errorf("invalid entry: %v", err)
	}
	if _, ok := cfg.Lookup("ok"); !ok {
		t.Error("the valid entry beside an invalid one was not loaded")
	}

	if _, err := loadOne(dir); err == nil {
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

package upstream

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// Transport types of a [Server].
const (
	TypeStdio = "stdio" // a command spoken to over stdin/stdout
	TypeHTTP  = "http"  // streamable HTTP
	TypeSSE   = "sse"   // the older HTTP+SSE transport
)

// Server is one upstream MCP server from the config. Strings may hold
// ${VAR} or ${VAR:-default} references to the host environment; they are
// expanded by [Connect], not by [LoadConfig].
type Server struct {
	ID          string
	Description string

	// Stdio servers (Type "stdio").
	Command string
	Args    []string
	// Env is added to the host environment of the command.
	Env map[string]string
	// Cwd is the working directory; a relative Cwd has been resolved against
	// the config file's directory. Empty means the host's.
	Cwd string

	// URL servers (Type "http" or "sse").
	URL     string
	Type    string
	Headers map[string]string
}

// Config is a loaded mcpServers file: its enabled servers by id.
type Config struct {
	servers map[string]Server
}

// Servers returns the enabled servers sorted by id.
func (c *Config) Servers() []Server {
	if c == nil {
		return nil
	}
	out := make([]Server, 0, len(c.servers))
	for _, s := range c.servers {
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b Server) int { return strings.Compare(a.ID, b.ID) })
	return out
}

// Lookup returns the enabled server with the id.
func (c *Config) Lookup(id string) (Server, bool) {
	if c == nil {
		return Server{}, false
	}
	s, ok := c.servers[id]
	return s, ok
}

// rawServer is one entry of mcpServers as written. Unknown fields (such as
// other clients' "autoApprove" or "timeout") are ignored.
type rawServer struct {
	Command     string            `json:"command"`
	Args        []string          `json:"args"`
	Env         map[string]string `json:"env"`
	Cwd         string            `json:"cwd"`
	URL         string            `json:"url"`
	Type        string            `json:"type"`
	Headers     map[string]string `json:"headers"`
	Description string            `json:"description"`
	Disabled    bool              `json:"disabled"`
}

// LoadConfig reads an mcpServers JSON file. A missing file is an empty
// config; every invalid entry is reported, each error naming its id.
func LoadConfig(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &Config{servers: map[string]Server{}}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("load MCP config: %w", err)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("load MCP config: %w", err)
	}
	cfg, err := ParseConfig(data, filepath.Dir(abs))
	if err != nil {
		return nil, fmt.Errorf("MCP config %s: %w", path, err)
	}
	return cfg, nil
}

// ParseConfig parses mcpServers JSON; dir is the directory relative cwd
// values are resolved against. Empty input or a missing mcpServers key is an
// empty config.
func ParseConfig(data []byte, dir string) (*Config, error) {
	cfg := &Config{servers: map[string]Server{}}
	if len(bytes.TrimSpace(data)) == 0 {
		return cfg, nil
	}
	var file struct {
		MCPServers map[string]json.RawMessage `json:"mcpServers"`
	}
	if err := json.Unmarshal(data, &file); err != nil {
		return nil, fmt.Errorf("parse: %w", err)
	}
	ids := make([]string, 0, len(file.MCPServers))
	for id := range file.MCPServers {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	var errs []error
	for _, id := range ids {
		s, disabled, err := parseServer(id, file.MCPServers[id], dir)
		if err != nil {
			errs = append(errs, fmt.Errorf("MCP server %q: %w", id, err))
			continue
		}
		if !disabled {
			cfg.servers[id] = s
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return cfg, nil
}

var (
	idPattern     = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]*$`)
	headerPattern = regexp.MustCompile("^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")
)

// ValidID reports whether id can name a server: [a-z0-9][a-z0-9_-]* without
// "__", so that the first "__" of a namespaced tool name ends the id, and
// at most MaxIDLength characters.
func ValidID(id string) bool {
	return idPattern.MatchString(id) && !strings.Contains(id, "__") && len(id) <= MaxIDLength
}

func parseServer(id string, data json.RawMessage, dir string) (Server, bool, error) {
	if !idPattern.MatchString(id) {
		return Server{}, false, errors.New(`id must match [a-z0-9][a-z0-9_-]* (lower-case letters, digits, "_" and "-", not starting with "_" or "-")`)
	}
	if len(id) > MaxIDLength {
		return Server{}, false, fmt.Errorf("id is %d characters; at most %d (the id prefixes every tool name, which is at most %d)", len(id), MaxIDLength, MaxName)
	}
	if strings.Contains(id, "__") {
		return Server{}, false, errors.New(`id must not contain "__" (it separates the id from the tool name)`)
	}
	var raw rawServer
	if err := json.Unmarshal(data, &raw); err != nil {
		return Server{}, false, err
	}
	s := Server{
		ID:          id,
		Description: strings.TrimSpace(raw.Description),
		Command:     raw.Command,
		Args:        raw.Args,
		Env:         raw.Env,
		Cwd:         raw.Cwd,
		URL:         raw.URL,
		Headers:     raw.Headers,
	}
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	switch {
	case raw.Command != "" && raw.URL != "":
		bad(`set either "command" (stdio) or "url" (http, sse), not both`)
	case raw.Command == "" && raw.URL == "":
		bad(`set "command" (a stdio server) or "url" (an http or sse server)`)
	case raw.Command != "":
		s.Type = TypeStdio
		if raw.Type != "" && raw.Type != TypeStdio {
			bad(`"type" %q does not fit a "command" server (use "stdio" or leave it out)`, raw.Type)
		}
		if len(raw.Headers) > 0 {
			bad(`"headers" apply only to "url" servers`)
		}
	default:
		switch raw.Type {
		case "", TypeHTTP, "streamable-http", "streamable_http", "streamableHttp":
			s.Type = TypeHTTP
		case TypeSSE:
			s.Type = TypeSSE
		default:
			bad(`"type" %q is not one of "http" (streamable HTTP, the default) and "sse"`, raw.Type)
		}
		if len(raw.Args) > 0 || len(raw.Env) > 0 || raw.Cwd != "" {
			bad(`"args", "env" and "cwd" apply only to "command" servers`)
		}
		if !strings.Contains(raw.URL, "${") {
			if err := checkURL(raw.URL); err != nil {
				bad("%w", err)
			}
		}
	}
	check := func(what, v string) {
		if err := checkRefs(v); err != nil {
			bad("%s: %w", what, err)
		}
	}
	check(`"command"`, raw.Command)
	check(`"url"`, raw.URL)
	check(`"cwd"`, raw.Cwd)
	for i, a := range raw.Args {
		check(fmt.Sprintf(`"args"[%d]`, i), a)
	}
	for _, k := range sortedKeys(raw.Env) {
		if k == "" || strings.ContainsAny(k, "=\x00") {
			bad(`"env" name %q is not a valid environment variable name`, k)
		}
		check(fmt.Sprintf(`"env" %s`, k), raw.Env[k])
	}
	for _, k := range sortedKeys(raw.Headers) {
		if !headerPattern.MatchString(k) {
			bad(`"headers" name %q is not a valid HTTP header name`, k)
		}
		check(fmt.Sprintf(`"headers" %s`, k), raw.Headers[k])
	}
	if s.Cwd != "" && !filepath.IsAbs(s.Cwd) && !strings.HasPrefix(s.Cwd, "${") && dir != "" {
		s.Cwd = filepath.Join(dir, s.Cwd)
	}
	if err := errors.Join(errs...); err != nil {
		return Server{}, false, err
	}
	return s, raw.Disabled, nil
}

func checkURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf(`"url": %w`, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf(`"url" %q must start with http:// or https://`, raw)
	}
	if u.Host == "" {
		return fmt.Errorf(`"url" %q has no host`, raw)
	}
	return nil
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

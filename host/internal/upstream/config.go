package upstream

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"net"
	"net/url"
	"path"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"time"
)

// Transport types of a [Server].
const (
	TypeStdio = "stdio" // a command spoken to over stdin/stdout
	TypeHTTP  = "http"  // streamable HTTP
	TypeSSE   = "sse"   // the older HTTP+SSE transport
)

// Server is one upstream MCP server from the config. Strings may hold
// ${VAR} or ${VAR:-default} references to the host environment; they are
// expanded by [Connect], not by [Load].
type Server struct {
	ID          string
	Description string

	// Stdio servers (Type "stdio").
	Command string
	Args    []string
	// Env is set on top of the base environment the command gets (the
	// allow-list of launch.BaseEnviron, never the host's whole): it may set
	// any variable, one of the host's passed on purpose with ${NAME}.
	Env map[string]string
	// Cwd is the working directory; a relative Cwd has been resolved against
	// the config file's directory. Empty means the host's.
	Cwd string

	// URL servers (Type "http" or "sse").
	URL     string
	Type    string
	Headers map[string]string

	// Lazy servers are connected on first use (a call or mcp_connect)
	// instead of at start.
	Lazy bool
	// Timeout bounds one tool call; zero means unset, see [Server.CallTimeout].
	Timeout time.Duration
	// ReadOnly makes every tool of the server a read tool.
	ReadOnly bool
	// Allow and Deny filter the server's tools by their upstream (not
	// namespaced) names, each entry an exact name or a [path.Match] pattern
	// such as "read_*"; see [Server.Allows]. Load rejects empty entries and
	// malformed patterns.
	Allow, Deny []string
	// Pin is how the server's tools are pinned; empty means PinNewTools.
	// See [Pins].
	Pin PinMode

	// Source says where the server was configured, for messages:
	// "<file>: mcpServers.<id>" or "<file>: servers.<id>" from [Load],
	// without the file from [ParseConfig], empty from [NewConfig].
	Source string
}

// DefaultCallTimeout bounds a tool call of a server that sets no timeout.
const DefaultCallTimeout = 60 * time.Second

// CallTimeout returns the server's Timeout, or DefaultCallTimeout when it
// is unset.
func (s Server) CallTimeout() time.Duration {
	if s.Timeout > 0 {
		return s.Timeout
	}
	return DefaultCallTimeout
}

// Allows reports whether the server's tool (its upstream name) passes the
// filters: it matches an Allow entry, when there are any, and no Deny
// entry. A malformed pattern, which only a Server built in code can hold,
// matches just the identical name.
func (s Server) Allows(tool string) bool {
	if len(s.Allow) > 0 && !matchAny(s.Allow, tool) {
		return false
	}
	return !matchAny(s.Deny, tool)
}

func matchAny(patterns []string, name string) bool {
	for _, p := range patterns {
		if ok, err := path.Match(p, name); ok || (err != nil && p == name) {
			return true
		}
	}
	return false
}

// Config is a loaded set of servers: the enabled ones by id, the ids of the
// disabled ones, and warnings about entries that were ignored or replaced.
// It is not changed after loading, so it may be shared.
type Config struct {
	servers  map[string]Server
	disabled map[string]bool
	// sources holds the entry in effect for each id, valid or not, so that a
	// later file can say what it replaces.
	sources  map[string]string
	warnings []string
}

func newConfig() *Config {
	return &Config{servers: map[string]Server{}, disabled: map[string]bool{}, sources: map[string]string{}}
}

// NewConfig returns a config of the servers, indexed by ID (a later server
// replaces an earlier one with its ID). It does not validate them; it is
// for configs built in code.
func NewConfig(servers ...Server) *Config {
	c := newConfig()
	for _, s := range servers {
		c.servers[s.ID] = s
	}
	return c
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

// Disabled returns the sorted ids of the servers set "disabled": true.
// They are not in Servers.
func (c *Config) Disabled() []string {
	if c == nil {
		return nil
	}
	return slices.Sorted(maps.Keys(c.disabled))
}

// Warnings returns what loading ignored or replaced without an error, in
// the order met: a server id under both "mcpServers" and "servers" of one
// file, a server a later file replaces, a timeout that looks like
// milliseconds.
func (c *Config) Warnings() []string {
	if c == nil {
		return nil
	}
	return slices.Clone(c.warnings)
}

// set makes an entry the one in effect for id: s is nil for an invalid
// entry, which takes out what an earlier file configured for the id just as
// a valid entry would replace it.
func (c *Config) set(id, source string, s *Server, disabled bool) {
	if prev, ok := c.sources[id]; ok {
		c.warnings = append(c.warnings, fmt.Sprintf("MCP config %s replaces %s", source, prev))
	}
	c.sources[id] = source
	delete(c.servers, id)
	delete(c.disabled, id)
	switch {
	case s == nil:
	case disabled:
		c.disabled[id] = true
	default:
		c.servers[id] = *s
	}
}

// rawServer is one server entry as written. Unknown fields (such as other
// clients' "autoApprove" or "trust") are ignored.
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

	Lazy    bool            `json:"lazy"`
	Timeout json.RawMessage `json:"timeout"`
	// Pointers and nil slices tell an absent key from a false or empty one,
	// so that a key and its alias are not both set.
	ReadOnly      *bool    `json:"readonly"`
	ReadOnlyCamel *bool    `json:"readOnly"`
	Allow         []string `json:"allow"`
	IncludeTools  []string `json:"includeTools"` // Gemini CLI's name for allow
	Deny          []string `json:"deny"`
	ExcludeTools  []string `json:"excludeTools"` // Gemini CLI's name for deny
	Pin           string   `json:"pin"`
}

var (
	idPattern     = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]*$`)
	headerPattern = regexp.MustCompile("^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")
)

// Remote says whether the server is reached over the network: a url
// server whose host is not this machine's loopback (a url that takes its
// host from a ${VAR} counts as remote).
func (s Server) Remote() bool {
	if s.URL == "" {
		return false
	}
	u, err := url.Parse(s.URL)
	if err != nil || strings.Contains(u.Host, "${") {
		return true
	}
	h := u.Hostname()
	if h == "localhost" {
		return false
	}
	ip := net.ParseIP(h)
	return ip == nil || !ip.IsLoopback()
}

// ValidID reports whether id can name a server: [a-z0-9][a-z0-9_-]* without
// "__" and not ending in "_", so that the first "__" of a namespaced tool
// name ends the id (an id "a_" would make "a___x" read as "a" and "_x"), and
// at most MaxIDLength characters.
func ValidID(id string) bool {
	return idPattern.MatchString(id) && !strings.Contains(id, "__") && !strings.HasSuffix(id, "_") && len(id) <= MaxIDLength
}

// parseServer validates one entry and reports every problem of it. It
// returns whether the entry is disabled, and warnings about values that
// are valid but likely not meant.
func parseServer(id string, data json.RawMessage, dir string) (Server, bool, []string, error) {
	if !idPattern.MatchString(id) {
		return Server{}, false, nil, errors.New(`id must match [a-z0-9][a-z0-9_-]* (lower-case letters, digits, "_" and "-", not starting with "_" or "-")`)
	}
	if len(id) > MaxIDLength {
		return Server{}, false, nil, fmt.Errorf("id is %d characters; at most %d (the id prefixes every tool name, which is at most %d)", len(id), MaxIDLength, MaxName)
	}
	if strings.Contains(id, "__") || strings.HasSuffix(id, "_") {
		return Server{}, false, nil, errors.New(`id must not contain "__" or end in "_" (a "__" after the id separates it from the tool name)`)
	}
	var raw rawServer
	if err := json.Unmarshal(data, &raw); err != nil {
		return Server{}, false, nil, entryJSONError(err)
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
		Lazy:        raw.Lazy,
	}
	var errs []error
	var warnings []string
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

	timeout, warning, err := parseTimeout(raw.Timeout)
	if err != nil {
		errs = append(errs, err)
	}
	if warning != "" {
		warnings = append(warnings, warning)
	}
	s.Timeout = timeout
	switch {
	case raw.ReadOnly != nil && raw.ReadOnlyCamel != nil:
		bad(`set "readonly" or "readOnly", not both`)
	case raw.ReadOnly != nil:
		s.ReadOnly = *raw.ReadOnly
	case raw.ReadOnlyCamel != nil:
		s.ReadOnly = *raw.ReadOnlyCamel
	}
	switch PinMode(raw.Pin) {
	case "": // PinNewTools
	case PinStrict, PinNewTools, PinOff:
		s.Pin = PinMode(raw.Pin)
	default:
		bad(`"pin" %q: use "strict", "new-tools" or "off"`, raw.Pin)
	}
	var perrs []error
	s.Allow, perrs = toolPatterns("allow", raw.Allow, "includeTools", raw.IncludeTools)
	errs = append(errs, perrs...)
	s.Deny, perrs = toolPatterns("deny", raw.Deny, "excludeTools", raw.ExcludeTools)
	errs = append(errs, perrs...)

	if len(errs) > 0 {
		return Server{}, false, warnings, problems(errs)
	}
	return s, raw.Disabled, warnings, nil
}

// problems is every problem of one entry, as one line.
type problems []error

func (p problems) Error() string {
	msgs := make([]string, len(p))
	for i, err := range p {
		msgs[i] = err.Error()
	}
	return strings.Join(msgs, "; ")
}

func (p problems) Unwrap() []error { return p }

// entryJSONError says which field of an entry has the wrong JSON type, in
// the config's words rather than Go's.
func entryJSONError(err error) error {
	var typ *json.UnmarshalTypeError
	if !errors.As(err, &typ) || typ.Type == nil {
		return err
	}
	want := map[reflect.Kind]string{
		reflect.String: "a string",
		reflect.Bool:   "true or false",
		reflect.Slice:  "a list of strings",
		reflect.Map:    "an object with string values",
		reflect.Struct: "an object",
	}[typ.Type.Kind()]
	if want == "" {
		return err
	}
	if typ.Field == "" {
		return fmt.Errorf("the server must be %s, not a JSON %s", want, typ.Value)
	}
	field, _, _ := strings.Cut(typ.Field, ".")
	return fmt.Errorf("%q: a JSON %s where %s belongs", field, typ.Value, want)
}

// parseTimeout reads "timeout": a JSON number of seconds (Cline's
// convention) or a Go duration string. Absent or null is zero. The string
// is a warning about a valid value that was likely meant otherwise.
func parseTimeout(raw json.RawMessage) (time.Duration, string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return 0, "", nil
	}
	var str string
	if json.Unmarshal(raw, &str) == nil {
		d, err := time.ParseDuration(str)
		switch {
		case err != nil:
			return 0, "", fmt.Errorf(`"timeout" %q is not a duration (a number of seconds, or a string such as "90s", "500ms" or "2m")`, str)
		case d <= 0:
			return 0, "", fmt.Errorf(`"timeout" %q must be positive`, str)
		}
		return d, "", nil
	}
	var secs float64
	if err := json.Unmarshal(raw, &secs); err != nil {
		return 0, "", fmt.Errorf(`"timeout" %s is not a number of seconds or a duration string such as "90s"`, raw)
	}
	ns := math.Round(secs * float64(time.Second))
	switch {
	case secs <= 0:
		return 0, "", fmt.Errorf(`"timeout" %s must be positive`, raw)
	case ns < 1:
		return 0, "", fmt.Errorf(`"timeout" %s is less than a nanosecond`, raw)
	case ns >= math.MaxInt64:
		return 0, "", fmt.Errorf(`"timeout" %s is too long`, raw)
	}
	d := time.Duration(ns)
	var warning string
	// Gemini CLI's "timeout" is in milliseconds; a config copied from it
	// would wait hours for a hung call.
	if d > time.Hour {
		warning = fmt.Sprintf(`"timeout" %s is read as seconds (%v); if it means milliseconds (Gemini CLI), write %q`, raw, d, time.Duration(math.Round(secs*float64(time.Millisecond))).String())
	}
	return d, warning, nil
}

// toolPatterns reads a tool filter given under its key or its alias (not
// both). An empty list is nil: no filter.
func toolPatterns(key string, list []string, alias string, aliased []string) ([]string, []error) {
	if list != nil && aliased != nil {
		return nil, []error{fmt.Errorf("set %q or %q, not both", key, alias)}
	}
	if aliased != nil {
		key, list = alias, aliased
	}
	var errs []error
	for i, p := range list {
		if p == "" {
			errs = append(errs, fmt.Errorf("%q[%d] is empty", key, i))
		} else if _, err := path.Match(p, ""); err != nil {
			errs = append(errs, fmt.Errorf("%q[%d] %q is not a valid pattern (an exact name or a glob such as \"read_*\")", key, i, p))
		}
	}
	if len(list) == 0 {
		return nil, errs
	}
	return list, errs
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

func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}

package upstream

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"unicode/utf8"
)

// File is one config file to load.
type File struct {
	Path string
	// Required makes a missing file an error (a file named by a flag);
	// otherwise a missing file is an empty config (a default location).
	Required bool
}

// ConfigError is one problem of a config: a file that cannot be read or
// parsed, a section that is not an object, or an invalid server entry with
// every problem it has.
type ConfigError struct {
	File string // empty from ParseConfig
	// Key is the entry, "mcpServers.<id>" or "servers.<id>", or the section
	// "mcpServers" or "servers"; empty for the whole file.
	Key string
	ID  string // the server id when Key is an entry
	Err error
}

func (e *ConfigError) Error() string {
	msg := e.Err.Error()
	if e.Key != "" {
		msg = e.Key + ": " + msg
	}
	if e.File != "" {
		msg = "MCP config " + e.File + ": " + msg
	}
	return msg
}

func (e *ConfigError) Unwrap() error { return e.Err }

// Load reads files in order into one Config. A later file's server replaces
// an earlier one with the same id (with a warning naming both places), even
// when the later entry is disabled or invalid: the last file that names an
// id decides it. A disabled entry is checked like any other; an invalid one
// is neither in Servers nor in Disabled. Relative "cwd" values are resolved
// against the directory of their file.
//
// It never fails as a whole: every problem is one [*ConfigError] in the
// returned slice, naming the file and the key, such as
//
//	MCP config /home/u/.config/ramabana/mcp.json: mcpServers.github: "url" "ftp://x" must start with http:// or https://
//	MCP config ./extra.json: line 4, column 12: invalid character '}' looking for beginning of object key string
//
// and the servers that are fine are loaded. The Config is never nil; what
// was ignored without an error is in [Config.Warnings].
func Load(files []File) (*Config, []error) {
	c := newConfig()
	var errs []error
	for _, f := range files {
		data, err := os.ReadFile(f.Path)
		if errors.Is(err, fs.ErrNotExist) && !f.Required {
			continue
		}
		if err != nil {
			// The file is named already; keep only the cause.
			var pe *fs.PathError
			if errors.As(err, &pe) && pe.Path == f.Path {
				err = pe.Err
			}
			errs = append(errs, &ConfigError{File: f.Path, Err: err})
			continue
		}
		dir := filepath.Dir(f.Path)
		if abs, err := filepath.Abs(f.Path); err == nil {
			dir = filepath.Dir(abs)
		}
		errs = append(errs, c.parse(data, dir, f.Path)...)
	}
	return c, errs
}

// ParseConfig parses one config file's content the way [Load] does, without
// a file name in the errors; dir is the directory relative cwd values are
// resolved against. Empty input or a file without servers is an empty
// config. The Config is never nil.
func ParseConfig(data []byte, dir string) (*Config, []error) {
	c := newConfig()
	return c, c.parse(data, dir, "")
}

// sections are the top-level keys that hold servers, the first winning an
// id both hold: VS Code's mcp.json names its "servers". Other top-level
// keys (VS Code's "inputs") are ignored.
var sections = []string{"mcpServers", "servers"}

// parse adds one file's servers to c; file is "" for ParseConfig.
func (c *Config) parse(data []byte, dir, file string) []error {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")) // a BOM, as Windows editors write
	if len(bytes.TrimSpace(data)) == 0 {
		return nil
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return []error{&ConfigError{File: file, Err: fileJSONError(data, err)}}
	}
	var errs []error
	seen := map[string]string{} // id → the key that holds it in this file
	for _, section := range sections {
		raw, ok := top[section]
		if !ok {
			continue
		}
		var entries map[string]json.RawMessage
		if err := json.Unmarshal(raw, &entries); err != nil {
			errs = append(errs, &ConfigError{File: file, Key: section, Err: fmt.Errorf("must be an object of servers by id, not %s", jsonKind(err))})
			continue
		}
		for _, id := range sortedKeys(entries) {
			key := entryKey(section, id)
			if first, ok := seen[id]; ok {
				c.warn(file, fmt.Sprintf("%s is ignored: %s in the same file configures the server", key, first))
				continue
			}
			seen[id] = key
			source := key
			if file != "" {
				source = file + ": " + key
			}
			s, disabled, warnings, err := parseServer(id, entries[id], dir)
			for _, w := range warnings {
				c.warn(file, key+": "+w)
			}
			if err != nil {
				errs = append(errs, &ConfigError{File: file, Key: key, ID: id, Err: err})
				c.set(id, source, nil, false)
				continue
			}
			s.Source = source
			c.set(id, source, &s, disabled)
		}
	}
	return errs
}

func (c *Config) warn(file, msg string) {
	if file != "" {
		msg = "MCP config " + file + ": " + msg
	}
	c.warnings = append(c.warnings, msg)
}

var plainKey = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// entryKey names an entry as section.id, quoting an id (only ever an
// invalid one) that would not read as one word.
func entryKey(section, id string) string {
	if plainKey.MatchString(id) {
		return section + "." + id
	}
	return section + "[" + strconv.Quote(id) + "]"
}

// fileJSONError places a JSON error of a whole file by line and column.
func fileJSONError(data []byte, err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		line, col := position(data, syn.Offset)
		return fmt.Errorf("line %d, column %d: %w", line, col, err)
	case errors.As(err, &typ):
		line, col := position(data, typ.Offset)
		return fmt.Errorf(`line %d, column %d: the file must be a JSON object with "mcpServers" or "servers", not %s`, line, col, jsonKind(err))
	}
	return err
}

// position returns the 1-based line and column (in characters) of the byte
// an encoding/json error offset points at: the offset counts the bytes read
// up to and including it. An error at the end of the input is placed after
// the last character that is not white space.
func position(data []byte, offset int64) (line, col int) {
	i := min(int(max(offset-1, 0)), len(bytes.TrimRight(data, " \t\r\n")))
	before := data[:i]
	line = 1 + bytes.Count(before, []byte("\n"))
	col = 1 + utf8.RuneCount(before[bytes.LastIndexByte(before, '\n')+1:])
	return line, col
}

// jsonKind names the JSON value a type error met: "a JSON array".
func jsonKind(err error) string {
	var typ *json.UnmarshalTypeError
	if errors.As(err, &typ) {
		return "a JSON " + typ.Value
	}
	return "valid JSON"
}

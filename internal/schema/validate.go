// Package schema checks what a tool declares and what it is called with:
// the names of plugins, groups and tools, a tool's input schema, and a
// call's arguments against it, with errors in words a model can act on.
// The sdk (a plugin's side: its Toolbox and Description.Validate) and the
// host (before a call reaches the plugin) use it alike, so that one rule
// judges a tool wherever it is checked.
package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
)

var nameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)

// ValidName reports whether name is a valid plugin or group name: lower-case
// letters, digits and '-', not starting with '-'. A plugin binary is named
// ramabana-plugin-<name>.
func ValidName(name string) bool { return nameRE.MatchString(name) }

// MaxToolName is the longest tool name a description may declare.
const MaxToolName = 128

// ValidToolName reports whether name is a valid tool name: 1 to
// MaxToolName letters, digits, '_' and '-'.
func ValidToolName(name string) bool {
	if name == "" || len(name) > MaxToolName {
		return false
	}
	return strings.IndexFunc(name, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-')
	}) < 0
}

// Validator checks call arguments against a tool's input schema: the host
// before a call reaches the plugin, the sdk's Toolbox when it does. It is
// safe for concurrent use.
type Validator struct {
	tool     string
	schema   *jsonschema.Schema // with its PropertyOrder set, for messages
	resolved *jsonschema.Resolved
}

// NewValidator compiles the input schema of the tool called tool, which
// must be a JSON object schema (root "type": "object") that resolves. The
// error names the tool.
//
// A process compiles the same schema several times (a Toolbox checks a
// tool as it is added, the host checks the description, then compiles the
// validator for the first call): the outcome is kept for the same name
// and bytes, so each compiles once.
func NewValidator(tool string, inputSchema json.RawMessage) (*Validator, error) {
	key := tool + "\x00" + string(inputSchema)
	compiled.Lock()
	c, ok := compiled.m[key]
	compiled.Unlock()
	if ok {
		return c.v, c.err
	}
	v, err := newValidator(tool, inputSchema)
	compiled.Lock()
	if len(compiled.m) >= maxCompiled {
		clear(compiled.m) // plugins reloaded many times: start again
	}
	compiled.m[key] = compiledSchema{v, err}
	compiled.Unlock()
	return v, err
}

// compiled keeps NewValidator's outcomes by tool name and schema.
var compiled = struct {
	sync.Mutex
	m map[string]compiledSchema
}{m: map[string]compiledSchema{}}

// maxCompiled bounds compiled: a few hundred tools is a large catalog.
const maxCompiled = 4096

type compiledSchema struct {
	v   *Validator
	err error
}

func newValidator(tool string, inputSchema json.RawMessage) (*Validator, error) {
	if len(inputSchema) == 0 {
		return nil, fmt.Errorf("tool %q: no input schema", tool)
	}
	s, err := Object(inputSchema)
	if err != nil {
		return nil, fmt.Errorf("tool %q: input schema: %w", tool, err)
	}
	setPropertyOrder(s, inputSchema)
	resolved, err := s.Resolve(nil)
	if err != nil {
		return nil, fmt.Errorf("tool %q: input schema: %w", tool, err)
	}
	return &Validator{tool: tool, schema: s, resolved: resolved}, nil
}

// Validate checks args (a JSON object; empty or null means {}). The error
// names the tool and says what is wrong in words a model can act on, one
// clause per problem (at most a few): which argument, what was wrong and
// what was expected (`"start" must be at least 1 (got 0)`), and for an
// unknown or missing argument the names the tool takes, with the closest
// to a misspelt one. A failure it cannot place keeps the schema
// validator's own message.
func (v *Validator) Validate(args json.RawMessage) error {
	if err := v.validate(args); err != nil {
		return fmt.Errorf("invalid arguments for %s: %w", v.tool, err)
	}
	return nil
}

func (v *Validator) validate(args json.RawMessage) error {
	args = Arguments(args)
	var value any
	if err := json.Unmarshal(args, &value); err != nil {
		return fmt.Errorf("arguments are not valid JSON: %w", err)
	}
	if _, ok := value.(map[string]any); !ok {
		return fmt.Errorf("the arguments must be a JSON object, got %s", show(value))
	}
	err := v.resolved.Validate(value)
	if err == nil {
		return nil
	}
	problems := describe(v.tool, v.schema, value)
	if len(problems) == 0 {
		return err
	}
	return errors.New(joinProblems(problems))
}

// DropNullOptionals returns args without the top-level arguments that are
// null where the schema does not allow null and does not require them:
// models often send null for an optional argument they mean to leave
// out, and the schemas say optional, not null-able (sdk.PlainSchema).
// args as it is when there is none such, or when it is not an object.
func (v *Validator) DropNullOptionals(args json.RawMessage) json.RawMessage {
	if !bytes.Contains(args, []byte("null")) {
		return args
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(args, &obj) != nil {
		return args
	}
	dropped := false
	for name, val := range obj {
		if !bytes.Equal(bytes.TrimSpace(val), []byte("null")) || slices.Contains(v.schema.Required, name) {
			continue
		}
		p := v.schema.Properties[name]
		if p == nil || p.Type == "null" || slices.Contains(p.Types, "null") {
			continue
		}
		delete(obj, name)
		dropped = true
	}
	if !dropped {
		return args
	}
	b, err := json.Marshal(obj)
	if err != nil {
		return args
	}
	return b
}

// Arguments is what the host sends a plugin for call arguments args:
// absent arguments (empty or JSON null) are the empty object, anything else
// is args as it is.
func Arguments(args json.RawMessage) json.RawMessage {
	if t := bytes.TrimSpace(args); len(t) == 0 || bytes.Equal(t, []byte("null")) {
		return json.RawMessage("{}")
	}
	return args
}

// IsObject checks, without parsing it as a schema, that raw is a JSON
// object whose "type" is "object": the light check of a schema that is
// compiled later (Object's condition, but not its keywords' types).
func IsObject(raw json.RawMessage) error {
	var root struct {
		Type any `json:"type"`
	}
	if err := json.Unmarshal(raw, &root); err != nil {
		return err
	}
	if root.Type != "object" {
		return errors.New(`the root must have "type": "object"`)
	}
	return nil
}

// Object parses a JSON Schema whose root must have type "object": a
// tool's input or output schema.
func Object(raw json.RawMessage) (*jsonschema.Schema, error) {
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, err
	}
	if s.Type != "object" {
		return nil, errors.New(`the root must have "type": "object"`)
	}
	return &s, nil
}

package sdk

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
)

// MustSchemaFor infers the JSON Schema of In; it panics if In cannot be
// described, which is a programming error found at start-up.
func MustSchemaFor[In any]() json.RawMessage {
	return SchemaFor[In](nil)
}

// SchemaFor infers the JSON Schema of In, as MustSchemaFor does, and lets
// fix, unless nil, add what struct tags cannot say (defaults, bounds,
// enums) to the top-level properties. It panics if In cannot be described.
//
// Two things are then made plain for every client (PlainSchema): a
// property that may be null (a Go slice or map) is just optional, of its
// one type; and each top-level property's default and bounds are said in
// its description too, since some clients (Codex) strip those keywords
// before the model sees the schema, and a model that never learns that
// view_file reads 2000 lines at a time cannot plan for it.
func SchemaFor[In any](fix func(props map[string]*jsonschema.Schema)) json.RawMessage {
	s, err := jsonschema.For[In](nil)
	if err != nil {
		panic(fmt.Sprintf("sdk: schema for %T: %v", *new(In), err))
	}
	if fix != nil {
		fix(s.Properties)
	}
	PlainSchema(s)
	b, err := json.Marshal(s)
	if err != nil {
		panic(fmt.Sprintf("sdk: schema for %T: %v", *new(In), err))
	}
	return b
}

// LazySchemaFor is SchemaFor put off until it is needed: it returns a
// function that infers the schema on its first call and returns the same
// bytes on every call (and panics on each, if In cannot be described).
// SchemaFor reflects over In and marshals the result: a schema declared at
// package level with it is paid for at the start of every process that
// links the package, one that describes no tool included, while one
// declared with LazySchemaFor is paid for only by the first toolbox that
// declares its tool.
func LazySchemaFor[In any](fix func(props map[string]*jsonschema.Schema)) func() json.RawMessage {
	return sync.OnceValue(func() json.RawMessage { return SchemaFor[In](fix) })
}

// IntDefault gives the integer property p a default and a minimum, and a
// maximum unless maximum is 0 or less.
func IntDefault(p *jsonschema.Schema, def int, minimum, maximum float64) {
	p.Default = json.RawMessage(fmt.Sprint(def))
	p.Minimum = &minimum
	if maximum > 0 {
		p.Maximum = &maximum
	}
}

// Enum restricts a string property to values.
func Enum(p *jsonschema.Schema, values ...string) {
	p.Enum = nil
	for _, v := range values {
		p.Enum = append(p.Enum, v)
	}
}

// PlainSchema makes s plain for every client, in place: a property typed
// ["null", T] (what Go's slices and maps are inferred as) becomes of type
// T, optional as it was, at every depth; and each top-level property's
// description says its default and bounds (SaysBounds).
func PlainSchema(s *jsonschema.Schema) {
	unnull(s)
	for _, p := range s.Properties {
		SaysBounds(p)
	}
}

// unnull turns every ["null", T] type in s into T.
func unnull(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	if len(s.Types) == 2 && (s.Types[0] == "null" || s.Types[1] == "null") {
		t := s.Types[0]
		if t == "null" {
			t = s.Types[1]
		}
		s.Type, s.Types = t, nil
	}
	for _, p := range s.Properties {
		unnull(p)
	}
	unnull(s.Items)
	unnull(s.AdditionalProperties)
	for _, d := range s.Defs {
		unnull(d)
	}
}

// SaysBounds appends to p's description what its keywords say of a call
// that leaves it out or goes beyond it: "(default 2000, at least 1)". A
// description that already says "default" keeps it said once; a false
// default and a minimum length of 1 go unsaid.
func SaysBounds(p *jsonschema.Schema) {
	if p == nil {
		return
	}
	var parts []string
	// A flag that is off unless set says nothing a model does not assume.
	if len(p.Default) > 0 && string(p.Default) != "false" && !strings.Contains(strings.ToLower(p.Description), "default") {
		parts = append(parts, "default "+string(p.Default))
	}
	switch {
	case p.Minimum != nil && p.Maximum != nil:
		parts = append(parts, fmt.Sprintf("%g to %g", *p.Minimum, *p.Maximum))
	case p.Minimum != nil:
		parts = append(parts, fmt.Sprintf("at least %g", *p.Minimum))
	case p.Maximum != nil:
		parts = append(parts, fmt.Sprintf("at most %g", *p.Maximum))
	}
	if p.MinLength != nil && *p.MinLength > 1 { // 1: not empty, which a model assumes too
		parts = append(parts, fmt.Sprintf("at least %d characters", *p.MinLength))
	}
	if p.MaxLength != nil {
		parts = append(parts, fmt.Sprintf("at most %d characters", *p.MaxLength))
	}
	if p.Format != "" {
		parts = append(parts, "format "+p.Format)
	}
	if len(parts) == 0 {
		return
	}
	said := "(" + strings.Join(parts, ", ") + ")"
	if strings.Contains(p.Description, said) {
		return
	}
	if p.Description == "" {
		p.Description = said
		return
	}
	p.Description += " " + said
}

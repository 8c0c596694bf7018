package sdk

import (
	"encoding/json"
	"fmt"
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
func SchemaFor[In any](fix func(props map[string]*jsonschema.Schema)) json.RawMessage {
	s, err := jsonschema.For[In](nil)
	if err != nil {
		panic(fmt.Sprintf("sdk: schema for %T: %v", *new(In), err))
	}
	if fix != nil {
		fix(s.Properties)
	}
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

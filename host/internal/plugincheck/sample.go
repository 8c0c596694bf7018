package plugincheck

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// SampleArguments makes the smallest arguments a tool's input schema
// accepts: every required property and no optional one, each value the
// schema's const, first enum value, default or first example when it has
// one, and otherwise the least value of its type within its bounds (the
// empty string, or "a" repeated to minLength; zero, or the bound; false;
// minItems items). It follows local $refs and takes the first branch of
// anyOf and oneOf. The result is not checked: the caller validates it
// against the schema, which is what says whether a sample is good.
func SampleArguments(inputSchema json.RawMessage) (json.RawMessage, error) {
	var root jsonschema.Schema
	if err := json.Unmarshal(inputSchema, &root); err != nil {
		return nil, fmt.Errorf("input schema: %w", err)
	}
	s := sampler{root: &root}
	v, err := s.value(&root, 0)
	if err != nil {
		return nil, err
	}
	return json.Marshal(v)
}

// maxDepth bounds a schema that refers to itself.
const maxDepth = 16

type sampler struct{ root *jsonschema.Schema }

func (s sampler) value(sch *jsonschema.Schema, depth int) (any, error) {
	if depth > maxDepth {
		return nil, errors.New("the schema nests deeper than 16 levels (a recursive $ref?)")
	}
	if sch.Ref != "" {
		target, err := s.resolve(sch.Ref)
		if err != nil {
			return nil, err
		}
		return s.value(target, depth+1)
	}
	switch {
	case sch.Const != nil:
		return *sch.Const, nil
	case len(sch.Enum) > 0:
		return sch.Enum[0], nil
	case len(sch.Default) > 0:
		var v any
		if err := json.Unmarshal(sch.Default, &v); err == nil {
			return v, nil
		}
	case len(sch.Examples) > 0:
		return sch.Examples[0], nil
	case len(sch.AnyOf) > 0:
		return s.value(sch.AnyOf[0], depth+1)
	case len(sch.OneOf) > 0:
		return s.value(sch.OneOf[0], depth+1)
	}
	typ := sch.Type
	if typ == "" && len(sch.Types) > 0 {
		typ = sch.Types[0]
		for _, t := range sch.Types {
			if t != "null" { // a real value says more about the tool than null
				typ = t
				break
			}
		}
	}
	switch typ {
	case "object":
		return s.object(sch, depth)
	case "array":
		return s.array(sch, depth)
	case "string":
		return sampleString(sch), nil
	case "integer":
		return math.Ceil(sampleNumber(sch)), nil
	case "number":
		return sampleNumber(sch), nil
	case "boolean":
		return false, nil
	case "null":
		return nil, nil
	case "":
		if len(sch.Properties) > 0 || len(sch.Required) > 0 {
			return s.object(sch, depth)
		}
		return "", nil // any value will do; a string is the likeliest to be meant
	}
	return nil, fmt.Errorf("type %q is not a JSON Schema type", typ)
}

func (s sampler) object(sch *jsonschema.Schema, depth int) (any, error) {
	out := map[string]any{}
	for _, name := range sch.Required {
		prop, ok := sch.Properties[name]
		if !ok {
			prop = &jsonschema.Schema{} // required but undescribed: any value
		}
		v, err := s.value(prop, depth+1)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		out[name] = v
	}
	return out, nil
}

func (s sampler) array(sch *jsonschema.Schema, depth int) (any, error) {
	n := 0
	if sch.MinItems != nil {
		n = *sch.MinItems
	}
	out := make([]any, 0, n)
	for i := range n {
		item := sch.Items
		if i < len(sch.PrefixItems) {
			item = sch.PrefixItems[i]
		}
		if item == nil {
			item = &jsonschema.Schema{}
		}
		v, err := s.value(item, depth+1)
		if err != nil {
			return nil, fmt.Errorf("item %d: %w", i, err)
		}
		out = append(out, v)
	}
	return out, nil
}

// resolve follows a local reference: #/$defs/NAME or #/definitions/NAME.
func (s sampler) resolve(ref string) (*jsonschema.Schema, error) {
	for _, p := range []struct {
		prefix string
		defs   map[string]*jsonschema.Schema
	}{{"#/$defs/", s.root.Defs}, {"#/definitions/", s.root.Definitions}} {
		if name, ok := strings.CutPrefix(ref, p.prefix); ok {
			if d, ok := p.defs[name]; ok {
				return d, nil
			}
		}
	}
	if ref == "#" {
		return s.root, nil
	}
	return nil, fmt.Errorf("$ref %q: only local references (#/$defs/NAME) are followed", ref)
}

// sampleString is the shortest string of the schema's length and format.
func sampleString(sch *jsonschema.Schema) string {
	switch sch.Format {
	case "uri", "url":
		return "http://127.0.0.1/"
	case "email":
		return "a@example.com"
	case "date-time":
		return "2026-01-01T00:00:00Z"
	case "date":
		return "2026-01-01"
	case "uuid":
		return "00000000-0000-4000-8000-000000000000"
	}
	n := 0
	if sch.MinLength != nil {
		n = *sch.MinLength
	}
	return strings.Repeat("a", n)
}

// sampleNumber is zero moved into the schema's bounds.
func sampleNumber(sch *jsonschema.Schema) float64 {
	v := 0.0
	if sch.Minimum != nil && v < *sch.Minimum {
		v = *sch.Minimum
	}
	if sch.ExclusiveMinimum != nil && v <= *sch.ExclusiveMinimum {
		v = *sch.ExclusiveMinimum + 1
	}
	if sch.Maximum != nil && v > *sch.Maximum {
		v = *sch.Maximum
	}
	if sch.ExclusiveMaximum != nil && v >= *sch.ExclusiveMaximum {
		v = *sch.ExclusiveMaximum - 1
	}
	if m := sch.MultipleOf; m != nil && *m > 0 {
		v = math.Ceil(v / *m) * *m
	}
	return v
}

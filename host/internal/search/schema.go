package search

import (
	"encoding/json"
	"slices"
	"strings"
)

// schemaNode is the part of a JSON Schema the index reads.
type schemaNode struct {
	Type        json.RawMessage            `json:"type"`
	Title       string                     `json:"title"`
	Description string                     `json:"description"`
	Properties  map[string]json.RawMessage `json:"properties"`
}

// ParamsFromSchema returns the properties of a JSON Schema object (top
// level, and one level into object-typed properties, named "outer.inner"),
// in a stable order (sorted by name). A property without a description is
// described by its title. Malformed input, or a schema that is not an
// object, gives nil.
func ParamsFromSchema(schema json.RawMessage) []Param {
	var root schemaNode
	if err := json.Unmarshal(schema, &root); err != nil {
		return nil
	}
	var ps []Param
	for name, raw := range root.Properties {
		// A property that is not an object (true, a boolean schema)
		// is still a parameter, with nothing to describe it.
		var p schemaNode
		_ = json.Unmarshal(raw, &p)
		ps = append(ps, Param{Name: name, Description: p.describe()})
		if !p.isObject() {
			continue
		}
		for inner, raw := range p.Properties {
			var q schemaNode
			_ = json.Unmarshal(raw, &q)
			ps = append(ps, Param{Name: name + "." + inner, Description: q.describe()})
		}
	}
	slices.SortFunc(ps, func(a, b Param) int { return strings.Compare(a.Name, b.Name) })
	return ps
}

func (n *schemaNode) describe() string {
	if n.Description != "" {
		return n.Description
	}
	return n.Title
}

// isObject reports whether the node is typed object ("object" or a list
// holding it), or untyped with properties.
func (n *schemaNode) isObject() bool {
	var one string
	if json.Unmarshal(n.Type, &one) == nil {
		return one == "object"
	}
	var many []string
	if json.Unmarshal(n.Type, &many) == nil {
		return slices.Contains(many, "object")
	}
	return len(n.Properties) > 0
}

package sdk

import (
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/google/jsonschema-go/jsonschema"
)

// outputOf returns how TypedTool turns the value a handler of tool spec
// returns into its result. A *Result is the result. Any other Out is sent
// as structured content, and also as a text block of the same JSON for
// clients that read only text, as go-sdk does; unless spec has an output
// schema, outputOf sets the one inferred from Out. It panics if that
// schema's root is not an object (Out is not a struct or map), which MCP
// requires: a programming error found at start-up.
func outputOf[Out any](spec *ToolSpec) func(Out) (*Result, error) {
	if reflect.TypeFor[Out]() == reflect.TypeFor[*Result]() {
		return func(out Out) (*Result, error) { return any(out).(*Result), nil }
	}
	if len(spec.OutputSchema) == 0 {
		spec.OutputSchema = outputSchema[Out](spec.Name)
	}
	name := spec.Name
	return func(out Out) (*Result, error) {
		b, err := json.Marshal(objectValue(reflect.ValueOf(&out).Elem()))
		if err != nil {
			return nil, fmt.Errorf("%s: output: %w", name, err)
		}
		return &Result{Content: []Content{{Text: string(b)}}, Structured: b}, nil
	}
}

// outputSchema infers the output schema of tool from Out; a pointer is
// described by its element, as go-sdk does, since a nil one is sent as
// its element's zero value.
func outputSchema[Out any](tool string) json.RawMessage {
	t := reflect.TypeFor[Out]()
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	s, err := jsonschema.ForType(t, nil)
	if err != nil {
		panic(fmt.Sprintf("sdk: tool %q: output schema: %v", tool, err))
	}
	if s.Type != "object" {
		panic(fmt.Sprintf("sdk: tool %q: output type %v is not a struct or map; the output schema's root must be an object", tool, reflect.TypeFor[Out]()))
	}
	b, err := json.Marshal(s)
	if err != nil {
		panic(fmt.Sprintf("sdk: tool %q: output schema: %v", tool, err))
	}
	return b
}

// objectValue is v with a nil pointer or map replaced by its zero object,
// which the output schema allows where JSON null is refused.
func objectValue(v reflect.Value) any {
	switch {
	case v.Kind() == reflect.Pointer && v.IsNil():
		return objectValue(reflect.New(v.Type().Elem()).Elem())
	case v.Kind() == reflect.Map && v.IsNil():
		return reflect.MakeMap(v.Type()).Interface()
	}
	return v.Interface()
}

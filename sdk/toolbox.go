package sdk

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
)

// Tool is a spec and the handler that runs it.
type Tool struct {
	Spec    ToolSpec
	Handler Handler
}

// Handler runs one call of a tool.
type Handler func(ctx context.Context, req *Request) (*Result, error)

// Request is what a handler gets: the call, the host context from the last
// Describe, and the call's event stream.
type Request struct {
	Call
	Host   Host
	Events Events
}

// Bind decodes the arguments into v, refusing unknown fields.
func (r *Request) Bind(v any) error {
	args := r.Arguments
	if len(args) == 0 {
		args = []byte("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("arguments of %s: %w", r.Tool, err)
	}
	return nil
}

// TypedTool declares a tool whose arguments decode into In and whose
// handler returns an Out. Unless spec has an input schema already, it is
// inferred from In: exported fields by their json names, required unless
// tagged omitempty or omitzero, described by a `jsonschema:"..."` tag.
// Arguments that do not decode give the model an error result naming the
// problem.
//
// A handler whose Out is *Result builds the result itself. Any other Out
// is sent as the result's Structured JSON and as one text block of the
// same JSON. Unless spec has an output schema, it is inferred from Out as
// the input schema is from In; Out must then be a struct or map, or a
// pointer to one, since an output schema's root is an object, and
// TypedTool panics naming the tool otherwise.
//
// A handler returns sdk.Failf for failures the model can act on: they
// become error results, whatever Out is; any other error is a fault.
//
// TypedTool declares a completion tool (or a none tool): a context,
// evaluation, post or skill tool, whose result its task fixes, is declared
// with its helper (ContextTool...), and TypedTool panics, naming the tool
// and the helper.
func TypedTool[In, Out any](spec ToolSpec, fn func(ctx context.Context, req *Request, args In) (Out, error)) Tool {
	if helper, ok := typedTasks[spec.Task]; ok {
		panic(fmt.Sprintf("sdk: tool %q: its task is %s: declare it with sdk.%s, which checks what it returns", spec.Name, spec.Task, helper))
	}
	return typedTool(spec, fn)
}

// typedTool is TypedTool for any task.
func typedTool[In, Out any](spec ToolSpec, fn func(ctx context.Context, req *Request, args In) (Out, error)) Tool {
	if len(spec.InputSchema) == 0 {
		spec.InputSchema = MustSchemaFor[In]()
	}
	result := outputOf[Out](&spec)
	return Tool{Spec: spec, Handler: func(ctx context.Context, req *Request) (*Result, error) {
		var args In
		if err := req.Bind(&args); err != nil {
			return errorResult(err.Error()), nil
		}
		out, err := fn(ctx, req, args)
		if err != nil {
			return failure(nil, err)
		}
		return result(out)
	}}
}

// Toolbox is a [Group] built from declared tools. Its zero value is not
// usable; make one with NewToolbox. Add groups before serving.
type Toolbox struct {
	desc     Description
	tools    map[string]Tool
	describe func(ctx context.Context, host Host) error

	mu   sync.RWMutex
	host Host
}

var _ Group = (*Toolbox)(nil)

// ToolboxOption sets an optional part of what a Toolbox describes; see
// WithVersion and WithDescription.
type ToolboxOption func(*Toolbox)

// WithVersion sets the plugin version the toolbox describes, which the
// host records when the plugin is installed. Without it the version is
// empty.
func WithVersion(version string) ToolboxOption {
	return func(b *Toolbox) { b.desc.Version = version }
}

// WithDescription sets the one-line description of the plugin the toolbox
// describes; each group and tool has its own besides. Without it the
// description is empty.
func WithDescription(description string) ToolboxOption {
	return func(b *Toolbox) { b.desc.Description = description }
}

// NewToolbox makes an empty toolbox for the named plugin; name is
// lower-case letters, digits and '-'. Later options win over earlier ones.
func NewToolbox(name string, opts ...ToolboxOption) *Toolbox {
	b := &Toolbox{desc: Description{Name: name}, tools: map[string]Tool{}}
	for _, opt := range opts {
		opt(b)
	}
	return b
}

// AddGroup adds a group and its tools. It panics, at start-up, on what the
// host would refuse (Description.ValidateUncompiled: a bad plugin or group
// name, a duplicate tool name, a tool with no kind or an input schema that
// is not an object schema; ToolSpec.ValidateTask: a mode on a tool that is
// not a skill...), with a message naming the tool: a programming error is
// found before the plugin is served.
//
// It does not compile the input schemas: the host does, when it launches
// the plugin (and sdktest.Connect in the plugin's tests, and `plugin
// check`), and refuses a plugin with one that does not resolve, naming the
// tool. Compiling them here too cost a plugin's process more than the rest
// of its start, on the way to every first call.
func (b *Toolbox) AddGroup(g GroupSpec, tools ...Tool) {
	for _, t := range tools {
		g.Tools = append(g.Tools, t.Spec)
	}
	// The groups added before were checked then: only the new one is
	// (its tools compiled once, not every group's again at every add).
	if err := validatePluginName(b.desc.Name); err != nil {
		panic("sdk: " + err.Error())
	}
	seen := map[string]string{}
	for _, earlier := range b.desc.Groups {
		for _, t := range earlier.Tools {
			seen[t.Name] = earlier.Name
		}
	}
	if err := g.validate(seen, false); err != nil {
		panic("sdk: " + err.Error())
	}
	next := b.desc
	next.Groups = append(slices.Clone(b.desc.Groups), g)
	for _, t := range tools {
		if err := t.Spec.ValidateTask(); err != nil {
			panic("sdk: " + err.Error())
		}
		b.tools[t.Spec.Name] = t
	}
	b.desc = next
}

// OnDescribe sets a hook run on every Describe with the new host context,
// before the description is returned; an error fails the Describe.
func (b *Toolbox) OnDescribe(fn func(ctx context.Context, host Host) error) {
	b.describe = fn
}

// Describe keeps the host context and returns the declared groups.
func (b *Toolbox) Describe(ctx context.Context, host Host) (*Description, error) {
	if b.describe != nil {
		if err := b.describe(ctx, host); err != nil {
			return nil, err
		}
	}
	b.mu.Lock()
	b.host = host
	b.mu.Unlock()
	d := b.desc
	return &d, nil
}

// Host returns the host context of the last Describe.
func (b *Toolbox) Host() Host {
	b.mu.RLock()
	defer b.mu.RUnlock()
	return b.host
}

// Call runs the named tool's handler. A *ToolError it returns, wrapped or
// not, becomes an error result (see Failf).
func (b *Toolbox) Call(ctx context.Context, call *Call, events Events) (*Result, error) {
	t, ok := b.tools[call.Tool]
	if !ok {
		return nil, UnknownTool(call.Tool)
	}
	if events == nil {
		events = NoEvents
	}
	res, err := failure(t.Handler(ctx, &Request{Call: *call, Host: b.Host(), Events: events}))
	if err == nil && res == nil {
		res = &Result{}
	}
	return res, err
}

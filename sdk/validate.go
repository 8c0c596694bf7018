package sdk

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/ramabana/ramabana-mcp/internal/schema"
)

// The one description validator. The host runs it on every plugin it
// launches (and so do `plugin install` and `plugin list`, through the same
// launcher), Toolbox runs it when a group is added, and sdktest runs it on
// what a test serves: a description is accepted or refused by the same
// rules wherever it is checked.
//
// Two kinds of problem: what makes the whole plugin unusable (Validate: a
// bad name, a tool without a kind, a schema that is not an object schema)
// refuses the plugin; a tool declared for the wrong task (ValidateTask: an
// unknown task or mode, a mode or as_user_message where it does not apply)
// refuses that tool, and the launcher serves the rest (DropMisdeclared).
// The author's side refuses both at start-up: sdktest wholly, Toolbox all
// but a schema that does not resolve, which it leaves to the host (see
// Toolbox.AddGroup).

// Validate reports the first reason the host would refuse d: a bad plugin
// or group name, no groups, a tool declared twice, or a tool that fails
// ToolSpec.Validate. The error names the group and tool.
func (d *Description) Validate() error { return d.validate(true) }

// ValidateUncompiled is Validate without compiling the input schemas: it
// checks that each schema is a JSON object schema, and leaves whether it
// resolves to the tool's first call. It is for a description the binary
// describing itself made, whose schemas its own tests compile: a bundled
// group's, kept from an earlier start or given by its process. Compiling
// every schema of every group at each start costs more than listing the
// tools. Toolbox.AddGroup checks this much too.
func (d *Description) ValidateUncompiled() error { return d.validate(false) }

func (d *Description) validate(compile bool) error {
	if err := validatePluginName(d.Name); err != nil {
		return err
	}
	if len(d.Groups) == 0 {
		return errors.New("it describes no tool groups")
	}
	seen := map[string]string{}
	for _, g := range d.Groups {
		if err := g.validate(seen, compile); err != nil {
			return err
		}
	}
	return nil
}

// validatePluginName says what is wrong with a plugin's name, if anything.
func validatePluginName(name string) error {
	if !schema.ValidName(name) {
		return fmt.Errorf("plugin name %q: use lower-case letters, digits and '-'", name)
	}
	return nil
}

// validate checks one group of a description, its tools' names against
// seen (tool name → group, of the groups before it), which it extends;
// its tools' input schemas are compiled only when compile is set.
func (g GroupSpec) validate(seen map[string]string, compile bool) error {
	if !schema.ValidName(g.Name) {
		return fmt.Errorf("group name %q: use lower-case letters, digits and '-'", g.Name)
	}
	for _, t := range g.Tools {
		if other, dup := seen[t.Name]; dup {
			return fmt.Errorf("tool %q is declared twice (groups %q and %q)", t.Name, other, g.Name)
		}
		seen[t.Name] = g.Name
		if err := t.validate(compile); err != nil {
			return fmt.Errorf("group %q: %w", g.Name, err)
		}
	}
	return nil
}

// Validate reports the first reason the host would refuse the plugin for
// this tool: a bad name, no kind, an input schema that is missing, not an
// object schema or does not resolve, or an output schema that is not an
// object schema (MCP requires one). The error names the tool.
func (s ToolSpec) Validate() error { return s.validate(true) }

func (s ToolSpec) validate(compile bool) error {
	if !schema.ValidToolName(s.Name) {
		return fmt.Errorf("tool name %q: use letters, digits, '_' and '-' (1 to %d)", s.Name, schema.MaxToolName)
	}
	switch s.Kind {
	case KindRead, KindWrite, KindAct:
	case KindUnspecified:
		return fmt.Errorf("tool %q: declares no kind: read, write or act", s.Name)
	default:
		return fmt.Errorf("tool %q: unknown kind %d: read, write or act", s.Name, s.Kind)
	}
	if compile {
		if _, err := schema.NewValidator(s.Name, s.InputSchema); err != nil {
			return err
		}
	} else if len(s.InputSchema) == 0 {
		return fmt.Errorf("tool %q: no input schema", s.Name)
	} else if err := schema.IsObject(s.InputSchema); err != nil {
		return fmt.Errorf("tool %q: input schema: %w", s.Name, err)
	}
	if len(s.OutputSchema) > 0 {
		check := schema.IsObject
		if compile {
			check = func(raw json.RawMessage) error { _, err := schema.Object(raw); return err }
		}
		if err := check(s.OutputSchema); err != nil {
			return fmt.Errorf("tool %q: output schema: %w", s.Name, err)
		}
	}
	return nil
}

// ValidateTask reports why the host would refuse this one tool, serving
// the plugin's others: an unknown task (one of a newer contract, say) or
// skill mode, a mode on a tool that is not a skill, or as_user_message on
// a tool that is not a context tool. The error names the tool.
func (s ToolSpec) ValidateTask() error {
	task := s.EffectiveTask()
	var err error
	switch {
	case !slices.Contains([]Task{TaskCompletion, TaskContext, TaskEvaluation, TaskPostTool, TaskSkill, TaskNone}, task):
		err = fmt.Errorf("unknown task %q: completion, context, evaluation, post_tool, skill or none", task)
	case s.Mode != "" && task != TaskSkill:
		err = fmt.Errorf("mode %q is for skill tools only, and the task is %s", s.Mode, task)
	case s.Mode != "" && s.Mode != SkillAlwaysOn && s.Mode != SkillAuto:
		err = fmt.Errorf("unknown skill mode %q: always-on or auto", s.Mode)
	case s.AsUserMessage && task != TaskContext:
		err = fmt.Errorf("as_user_message is for context tools only, and the task is %s", task)
	}
	if err != nil {
		return fmt.Errorf("tool %q: %w", s.Name, err)
	}
	return nil
}

// DropMisdeclared returns d without the tools that fail ValidateTask, and
// why each was refused; d is returned as is when none does. A group left
// with no tools stays, empty.
func (d *Description) DropMisdeclared() (*Description, []error) {
	var refused []error
	out := *d
	out.Groups = make([]GroupSpec, len(d.Groups))
	for i, g := range d.Groups {
		out.Groups[i] = g
		out.Groups[i].Tools = nil
		for _, t := range g.Tools {
			if err := t.ValidateTask(); err != nil {
				refused = append(refused, fmt.Errorf("group %q: %w", g.Name, err))
				continue
			}
			out.Groups[i].Tools = append(out.Groups[i].Tools, t)
		}
	}
	if refused == nil {
		return d, nil
	}
	return &out, refused
}

// Arguments is what the host sends a plugin for call arguments args:
// absent arguments (empty or JSON null) are the empty object, anything else
// is args as it is.
func Arguments(args json.RawMessage) json.RawMessage { return schema.Arguments(args) }

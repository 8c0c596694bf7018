package sdk

import (
	"context"
	"fmt"
	"strings"

	"github.com/ramabana/ramabana-mcp/internal/skills"
)

// The task helpers are the Go form of the agent tasks' decorators
// (docs/agent-tasks.md): each declares a
// tool of one agent task, sets the task itself, and takes a handler whose
// Go type is what that task returns, so a context tool that returns a
// struct, or an evaluation tool that returns text, does not compile. What
// the type cannot say they check when the tool is declared, panicking at
// start-up with a message naming the tool: a spec declared for another
// task, a mode on a tool that is not a skill or as_user_message on one
// that is not a context tool (ToolSpec.ValidateTask, which Toolbox.AddGroup
// runs too), an output schema on a tool whose result is text.
//
//	helper          task        handler returns    on the wire
//	TypedTool       completion  any Out            Out's JSON, structured and as text
//	ContextTool     context     string             one text block
//	EvaluationTool  evaluation  Evaluation         {"is_valid": ..., "score": ..., "feedback": ...}
//	PostTool        post_tool   error only         one empty text block
//	SkillTool       skill       string (SKILL.md)  one text block, front matter checked
//	NoneTool        none        any Out            as TypedTool
//
// Every helper's In is decoded and its input schema inferred as TypedTool
// does; a skill tool takes no arguments.

// ContextTool declares a context tool: an agent puts the text it returns
// in its system prompt, or, with spec.AsUserMessage, in a user message.
func ContextTool[In any](spec ToolSpec, fn func(ctx context.Context, req *Request, args In) (string, error)) Tool {
	spec = taskSpec(spec, TaskContext, "ContextTool")
	return typedTool(spec, func(ctx context.Context, req *Request, args In) (*Result, error) {
		text, err := fn(ctx, req, args)
		if err != nil {
			return nil, err
		}
		return TextResult(text), nil
	})
}

// EvaluationTool declares an evaluation tool: an agent calls it on its
// final answer, and a verdict that is not valid sends the feedback back
// for another try. The verdict is sent as the JSON of Evaluation, as
// structured content (with its output schema) and as one text block.
func EvaluationTool[In any](spec ToolSpec, fn func(ctx context.Context, req *Request, args In) (Evaluation, error)) Tool {
	spec = taskSpec(spec, TaskEvaluation, "EvaluationTool")
	spec.OutputSchema = evaluationSchema
	name := spec.Name
	return typedTool(spec, func(ctx context.Context, req *Request, args In) (*Result, error) {
		ev, err := fn(ctx, req, args)
		if err != nil {
			return nil, err
		}
		b, err := ev.MarshalJSON()
		if err != nil {
			return nil, fmt.Errorf("tool %q: %w", name, err)
		}
		return &Result{Content: []Content{{Text: string(b)}}, Structured: b}, nil
	})
}

// PostTool declares a post tool: an agent runs it for its side effects
// after the final result, before evaluating it. It returns nothing; the
// wire carries one empty text block.
func PostTool[In any](spec ToolSpec, fn func(ctx context.Context, req *Request, args In) error) Tool {
	spec = taskSpec(spec, TaskPostTool, "PostTool")
	return typedTool(spec, func(ctx context.Context, req *Request, args In) (*Result, error) {
		if err := fn(ctx, req, args); err != nil {
			return nil, err
		}
		return TextResult(""), nil
	})
}

// SkillTool declares a skill tool: fn returns the text of a SKILL.md,
// front matter included, whose name is the tool's in lower case with '_' as '-' (house_style serves house-style). An agent
// injects an always-on skill with its context and loads an auto one by
// name. mode is SkillAlwaysOn or SkillAuto, and spec.Description is
// required: the host lists the skill by it before any call. Each text is
// checked; one that fails is a fault naming the tool. A skill
// whose text is fixed is better declared with SkillText, which checks it
// at start-up.
func SkillTool(spec ToolSpec, mode SkillMode, fn func(ctx context.Context, req *Request) (string, error)) Tool {
	spec = skillSpec(spec, mode, "SkillTool")
	if strings.TrimSpace(spec.Description) == "" {
		panic(fmt.Sprintf("sdk: tool %q: a skill tool needs a description: the host lists the skill by it", spec.Name))
	}
	name := spec.Name
	return typedTool(spec, func(ctx context.Context, req *Request, _ struct{}) (*Result, error) {
		text, err := fn(ctx, req)
		if err != nil {
			return nil, err
		}
		if err := skills.CheckToolText(name, text); err != nil {
			return nil, err
		}
		return TextResult(text), nil
	})
}

// SkillText declares a skill tool that returns text, a SKILL.md checked
// now. Without a description, spec takes the front matter's.
func SkillText(spec ToolSpec, mode SkillMode, text string) Tool {
	if err := skills.CheckToolText(spec.Name, text); err != nil {
		panic("sdk: " + err.Error())
	}
	if strings.TrimSpace(spec.Description) == "" {
		sk, _ := skills.Parse(text) // CheckToolText parsed it
		spec.Description = sk.Description
	}
	return SkillTool(spec, mode, func(context.Context, *Request) (string, error) { return text, nil })
}

// NoneTool declares a tool that agents leave alone: generic MCP clients
// see it and call it as TypedTool's.
func NoneTool[In, Out any](spec ToolSpec, fn func(ctx context.Context, req *Request, args In) (Out, error)) Tool {
	spec = taskSpec(spec, TaskNone, "NoneTool")
	return typedTool(spec, fn)
}

// taskSpec is spec declared for task by helper: it panics, naming the
// tool, when spec says another task, has an output schema where the
// helper sets or allows none, or fails ValidateTask.
func taskSpec(spec ToolSpec, task Task, helper string) ToolSpec {
	if spec.Task != "" && spec.Task != task {
		panic(fmt.Sprintf("sdk: tool %q: sdk.%s declares a %s tool, and the spec says %s", spec.Name, helper, task, spec.Task))
	}
	if len(spec.OutputSchema) > 0 && task != TaskNone {
		panic(fmt.Sprintf("sdk: tool %q: a %s tool's result is fixed by sdk.%s; drop the output schema", spec.Name, task, helper))
	}
	spec.Task = task
	if err := spec.ValidateTask(); err != nil {
		panic("sdk: " + err.Error())
	}
	return spec
}

// skillSpec is taskSpec for a skill of mode, which must be given.
func skillSpec(spec ToolSpec, mode SkillMode, helper string) ToolSpec {
	if mode == "" {
		panic(fmt.Sprintf("sdk: tool %q: sdk.%s needs a mode: sdk.SkillAlwaysOn or sdk.SkillAuto", spec.Name, helper))
	}
	if spec.Mode != "" && spec.Mode != mode {
		panic(fmt.Sprintf("sdk: tool %q: sdk.%s is given mode %s, and the spec says %s", spec.Name, helper, mode, spec.Mode))
	}
	spec.Mode = mode
	return taskSpec(spec, TaskSkill, helper)
}

// typedTasks are the tasks whose results a helper fixes, by the helper.
var typedTasks = map[Task]string{
	TaskContext:    "ContextTool",
	TaskEvaluation: "EvaluationTool",
	TaskPostTool:   "PostTool",
	TaskSkill:      "SkillTool",
}

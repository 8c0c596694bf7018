package sdk_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ramabana/ramabana-mcp/sdk"
	"github.com/ramabana/ramabana-mcp/sdk/sdktest"
	"github.com/ramabana/ramabana-mcp/tasks"
)

type answer struct {
	Answer string `json:"answer"`
}

const skillMD = "---\nname: house-style\ndescription: Prefer short sentences.\n---\n# House style\n"

func spec(name string) sdk.ToolSpec { return sdk.ToolSpec{Name: name, Kind: sdk.KindRead} }

func text(string) func(context.Context, *sdk.Request, answer) (string, error) {
	return func(context.Context, *sdk.Request, answer) (string, error) { return "", nil }
}

func verdict(context.Context, *sdk.Request, answer) (sdk.Evaluation, error) { return sdk.Valid(1), nil }

func post(context.Context, *sdk.Request, answer) error { return nil }

func skill(context.Context, *sdk.Request) (string, error) { return skillMD, nil }

func result(context.Context, *sdk.Request, answer) (*sdk.Result, error) {
	return sdk.TextResult(""), nil
}

// TestTaskHelpersRefuseMisuseAtStartUp: each misuse panics when the tool
// is declared (or its group added), with a message naming the tool. A
// handler of the wrong type for its task does not compile.
func TestTaskHelpersRefuseMisuseAtStartUp(t *testing.T) {
	t.Parallel()
	with := func(s sdk.ToolSpec, f func(*sdk.ToolSpec)) sdk.ToolSpec { f(&s); return s }
	for name, tc := range map[string]struct {
		declare func() sdk.Tool
		want    string
	}{
		"context tool declared for another task": {func() sdk.Tool {
			return sdk.ContextTool(with(spec("c"), func(s *sdk.ToolSpec) { s.Task = sdk.TaskEvaluation }), text(""))
		}, `tool "c": sdk.ContextTool declares a context tool, and the spec says evaluation`},
		"unknown task": {func() sdk.Tool {
			return sdk.ContextTool(with(spec("r"), func(s *sdk.ToolSpec) { s.Task = "router" }), text(""))
		}, `tool "r": sdk.ContextTool declares a context tool, and the spec says router`},
		"unknown task on a typed tool": {func() sdk.Tool {
			return sdk.TypedTool(with(spec("r"), func(s *sdk.ToolSpec) { s.Task = "router" }), result)
		}, `tool "r": unknown task "router"`},
		"mode on a context tool": {func() sdk.Tool {
			return sdk.ContextTool(with(spec("c"), func(s *sdk.ToolSpec) { s.Mode = sdk.SkillAuto }), text(""))
		}, `tool "c": mode "auto" is for skill tools only, and the task is context`},
		"mode on a none tool": {func() sdk.Tool {
			return sdk.NoneTool(with(spec("n"), func(s *sdk.ToolSpec) { s.Mode = sdk.SkillAlwaysOn }), result)
		}, `tool "n": mode "always-on" is for skill tools only, and the task is none`},
		"as_user_message on an evaluation tool": {func() sdk.Tool {
			return sdk.EvaluationTool(with(spec("e"), func(s *sdk.ToolSpec) { s.AsUserMessage = true }), verdict)
		}, `tool "e": as_user_message is for context tools only, and the task is evaluation`},
		"as_user_message on a post tool": {func() sdk.Tool {
			return sdk.PostTool(with(spec("p"), func(s *sdk.ToolSpec) { s.AsUserMessage = true }), post)
		}, `tool "p": as_user_message is for context tools only, and the task is post_tool`},
		"as_user_message on a completion tool": {func() sdk.Tool {
			return sdk.TypedTool(with(spec("u"), func(s *sdk.ToolSpec) { s.AsUserMessage = true }), result)
		}, `tool "u": as_user_message is for context tools only, and the task is completion`},
		"output schema on a context tool": {func() sdk.Tool {
			return sdk.ContextTool(with(spec("c"), func(s *sdk.ToolSpec) { s.OutputSchema = json.RawMessage(`{"type":"object"}`) }), text(""))
		}, `tool "c": a context tool's result is fixed by sdk.ContextTool; drop the output schema`},
		"evaluation declared with TypedTool": {func() sdk.Tool {
			return sdk.TypedTool(with(spec("e"), func(s *sdk.ToolSpec) { s.Task = sdk.TaskEvaluation }), result)
		}, `tool "e": its task is evaluation: declare it with sdk.EvaluationTool`},
		"context declared with TypedTool": {func() sdk.Tool {
			return sdk.TypedTool(with(spec("c"), func(s *sdk.ToolSpec) { s.Task = sdk.TaskContext }), result)
		}, `tool "c": its task is context: declare it with sdk.ContextTool`},
		"post declared with TypedTool": {func() sdk.Tool {
			return sdk.TypedTool(with(spec("p"), func(s *sdk.ToolSpec) { s.Task = sdk.TaskPostTool }), result)
		}, `tool "p": its task is post_tool: declare it with sdk.PostTool`},
		"skill declared with TypedTool": {func() sdk.Tool {
			return sdk.TypedTool(with(spec("s"), func(s *sdk.ToolSpec) { s.Task = sdk.TaskSkill; s.Mode = sdk.SkillAuto }), result)
		}, `tool "s": its task is skill: declare it with sdk.SkillTool`},
		"skill without a mode": {func() sdk.Tool {
			return sdk.SkillTool(with(spec("house_style"), func(s *sdk.ToolSpec) { s.Description = "d" }), "", skill)
		}, `tool "house_style": sdk.SkillTool needs a mode`},
		"skill of an unknown mode": {func() sdk.Tool {
			return sdk.SkillTool(with(spec("house_style"), func(s *sdk.ToolSpec) { s.Description = "d" }), "sometimes", skill)
		}, `tool "house_style": unknown skill mode "sometimes"`},
		"skill whose spec says another mode": {func() sdk.Tool {
			return sdk.SkillTool(with(spec("house_style"), func(s *sdk.ToolSpec) { s.Description = "d"; s.Mode = sdk.SkillAuto }), sdk.SkillAlwaysOn, skill)
		}, `tool "house_style": sdk.SkillTool is given mode always-on, and the spec says auto`},
		"skill without a description": {func() sdk.Tool {
			return sdk.SkillTool(spec("house_style"), sdk.SkillAuto, skill)
		}, `tool "house_style": a skill tool needs a description`},
		"skill text without front matter": {func() sdk.Tool {
			return sdk.SkillText(spec("house_style"), sdk.SkillAuto, "# House style\n")
		}, `tool "house_style": its SKILL.md text: no front matter`},
		"skill text without a description": {func() sdk.Tool {
			return sdk.SkillText(spec("house_style"), sdk.SkillAuto, "---\nname: house-style\n---\nbody\n")
		}, `tool "house_style": its SKILL.md text: description is missing`},
		"skill text of another skill": {func() sdk.Tool {
			return sdk.SkillText(spec("style"), sdk.SkillAuto, skillMD)
		}, `tool "style": its SKILL.md names the skill "house-style"; the tool serves the skill "style"`},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			defer func() {
				r := recover()
				if msg, _ := r.(string); !strings.HasPrefix(msg, "sdk: ") || !strings.Contains(msg, tc.want) {
					t.Errorf("panicked with %v, want a message containing %q", r, tc.want)
				}
			}()
			sdk.NewToolbox("p").AddGroup(sdk.GroupSpec{Name: "g"}, tc.declare())
		})
	}
}

// taskTools declares a tool of each task with its helper.
func taskTools() *sdk.Toolbox {
	box := sdk.NewToolbox("p")
	box.AddGroup(sdk.GroupSpec{Name: "g"},
		sdk.ContextTool(sdk.ToolSpec{Name: "ticket", Kind: sdk.KindRead, AsUserMessage: true},
			func(context.Context, *sdk.Request, struct{}) (string, error) {
				return "Ticket #123 is still open.", nil
			}),
		sdk.EvaluationTool(spec("grounded"), func(_ context.Context, _ *sdk.Request, a answer) (sdk.Evaluation, error) {
			switch a.Answer {
			case "":
				return sdk.Invalid(0, "Answer is empty."), nil
			case "NaN":
				return sdk.Evaluation{Score: nan()}, nil
			case "fail":
				return sdk.Evaluation{}, sdk.Failf("cannot judge")
			}
			return sdk.Valid(0.75), nil
		}),
		sdk.PostTool(spec("audit"), post),
		sdk.SkillText(spec("house_style"), sdk.SkillAlwaysOn, skillMD),
		sdk.SkillTool(sdk.ToolSpec{Name: "broken_skill", Description: "Returns no front matter.", Kind: sdk.KindRead}, sdk.SkillAuto,
			func(context.Context, *sdk.Request) (string, error) { return "# no front matter\n", nil }),
		sdk.NoneTool(spec("ping"), func(context.Context, *sdk.Request, struct{}) (*sdk.Result, error) { return sdk.TextResult("pong"), nil }),
		sdk.TypedTool(spec("search"), result),
	)
	return box
}

func nan() float64 { zero := 0.0; return zero / zero }

// TestTaskHelpersDeclare: each helper sets its task (and the skill's mode
// and description), as the host sees it over gRPC.
func TestTaskHelpersDeclare(t *testing.T) {
	t.Parallel()
	_, desc := sdktest.Connect(t, taskTools(), sdk.Host{})
	got := map[string]sdk.ToolSpec{}
	for _, s := range desc.Groups[0].Tools {
		got[s.Name] = sdk.ToolSpec{Task: s.Task, AsUserMessage: s.AsUserMessage, Mode: s.Mode, Description: s.Description}
		if s.Name == "grounded" && len(s.OutputSchema) == 0 {
			t.Error("grounded has no output schema")
		}
	}
	want := map[string]sdk.ToolSpec{
		"ticket":       {Task: sdk.TaskContext, AsUserMessage: true},
		"grounded":     {Task: sdk.TaskEvaluation},
		"audit":        {Task: sdk.TaskPostTool},
		"house_style":  {Task: sdk.TaskSkill, Mode: sdk.SkillAlwaysOn, Description: "Prefer short sentences."},
		"broken_skill": {Task: sdk.TaskSkill, Mode: sdk.SkillAuto, Description: "Returns no front matter."},
		"ping":         {Task: sdk.TaskNone},
		"search":       {Task: sdk.TaskCompletion},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("declared (-want +got):\n%s", diff)
	}
}

// TestTaskHelpersResults: each task's result, as the host gets it.
func TestTaskHelpersResults(t *testing.T) {
	t.Parallel()
	g, _ := sdktest.Connect(t, taskTools(), sdk.Host{})
	for name, tc := range map[string]struct {
		tool, args string
		want       *sdk.Result
		fault      string
	}{
		"context":           {tool: "ticket", want: sdk.TextResult("Ticket #123 is still open.")},
		"evaluation passes": {tool: "grounded", args: `{"answer":"42"}`, want: evaluationResult(`{"is_valid":true,"score":0.75,"feedback":null}`)},
		"evaluation fails":  {tool: "grounded", args: `{"answer":""}`, want: evaluationResult(`{"is_valid":false,"score":0,"feedback":"Answer is empty."}`)},
		"evaluation Failf":  {tool: "grounded", args: `{"answer":"fail"}`, want: &sdk.Result{IsError: true, Content: []sdk.Content{{Text: "cannot judge"}}}},
		"evaluation NaN":    {tool: "grounded", args: `{"answer":"NaN"}`, fault: `tool "grounded": evaluation score NaN is not a finite number`},
		"post: empty text":  {tool: "audit", args: `{"answer":"42"}`, want: &sdk.Result{Content: []sdk.Content{{Text: ""}}}},
		"skill":             {tool: "house_style", want: sdk.TextResult(skillMD)},
		"skill, broken":     {tool: "broken_skill", fault: `tool "broken_skill": its SKILL.md text: no front matter`},
		"none":              {tool: "ping", want: sdk.TextResult("pong")},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			res, err := g.Call(context.Background(), &sdk.Call{Tool: tc.tool, Arguments: json.RawMessage(tc.args)}, sdk.NoEvents)
			if tc.fault != "" {
				if err == nil || !strings.Contains(err.Error(), tc.fault) {
					t.Errorf("err = %v, want a fault containing %q", err, tc.fault)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, res); diff != "" {
				t.Errorf("result (-want +got):\n%s", diff)
			}
		})
	}
}

func evaluationResult(j string) *sdk.Result {
	return &sdk.Result{Content: []sdk.Content{{Text: j}}, Structured: json.RawMessage(j)}
}

// TestTasksMatchTheWire: the SDK's tasks and modes are the wire's.
func TestTasksMatchTheWire(t *testing.T) {
	t.Parallel()
	sdkTasks := []sdk.Task{sdk.TaskContext, sdk.TaskSkill, sdk.TaskCompletion, sdk.TaskPostTool, sdk.TaskEvaluation, sdk.TaskNone}
	var got []tasks.Task
	for _, task := range sdkTasks {
		got = append(got, tasks.Task(task))
	}
	if diff := cmp.Diff(tasks.All, got); diff != "" {
		t.Errorf("tasks (-wire +sdk):\n%s", diff)
	}
	if tasks.SkillMode(sdk.SkillAlwaysOn) != tasks.AlwaysOn || tasks.SkillMode(sdk.SkillAuto) != tasks.Auto {
		t.Error("skill modes differ from the wire's")
	}
}

func TestParseEvaluation(t *testing.T) {
	t.Parallel()
	feedback := "Cite a source."
	for name, tc := range map[string]struct {
		res  *sdk.Result
		want sdk.Evaluation
		err  string
	}{
		"text":                 {res: sdk.TextResult(`{"is_valid": true, "score": 1.0, "feedback": null}`), want: sdk.Valid(1)},
		"feedback":             {res: sdk.TextResult(`{"is_valid": false, "score": 0.25, "feedback": "Cite a source."}`), want: sdk.Evaluation{Score: 0.25, Feedback: &feedback}},
		"feedback absent":      {res: sdk.TextResult(`{"is_valid": true, "score": 0.5}`), want: sdk.Valid(0.5)},
		"other members":        {res: sdk.TextResult(`{"is_valid": true, "score": 1, "feedback": null, "details": [1]}`), want: sdk.Valid(1)},
		"structured preferred": {res: &sdk.Result{Content: []sdk.Content{{Text: "not JSON"}}, Structured: json.RawMessage(`{"is_valid":true,"score":1,"feedback":null}`)}, want: sdk.Valid(1)},
		"no result":            {err: "evaluation result: no result"},
		"tool error":           {res: &sdk.Result{IsError: true, Content: []sdk.Content{{Text: "cannot judge"}}}, err: "evaluation tool failed: cannot judge"},
		"not JSON":             {res: sdk.TextResult("looks fine"), err: `evaluation result: not a JSON object {"is_valid": bool, "score": number, "feedback": string|null}`},
		"an array":             {res: sdk.TextResult(`[true, 1, null]`), err: "not a JSON object"},
		"null":                 {res: sdk.TextResult(`null`), err: "not a JSON object"},
		"empty text":           {res: sdk.TextResult(""), err: "not a JSON object"},
		"is_valid missing":     {res: sdk.TextResult(`{"score": 1}`), err: `evaluation result: "is_valid" is missing`},
		"is_valid a string":    {res: sdk.TextResult(`{"is_valid": "yes", "score": 1}`), err: `"is_valid" is "yes", want true or false`},
		"is_valid null":        {res: sdk.TextResult(`{"is_valid": null, "score": 1}`), err: `"is_valid" is null, want true or false`},
		"score missing":        {res: sdk.TextResult(`{"is_valid": true}`), err: `"score" is missing`},
		"score a string":       {res: sdk.TextResult(`{"is_valid": true, "score": "high"}`), err: `"score" is "high", want a number`},
		"score null":           {res: sdk.TextResult(`{"is_valid": true, "score": null}`), err: `"score" is null, want a number`},
		"feedback a number":    {res: sdk.TextResult(`{"is_valid": true, "score": 1, "feedback": 3}`), err: `"feedback" is 3, want a string or null`},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, err := sdk.ParseEvaluation(tc.res)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Errorf("err = %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("evaluation (-want +got):\n%s", diff)
			}
		})
	}
}

// TestEvaluationJSON: the exact wire form, and back.
func TestEvaluationJSON(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		ev   sdk.Evaluation
		want string
	}{
		{sdk.Valid(1), `{"is_valid":true,"score":1,"feedback":null}`},
		{sdk.Invalid(0.5, "Answer is empty."), `{"is_valid":false,"score":0.5,"feedback":"Answer is empty."}`},
	} {
		b, err := json.Marshal(tc.ev)
		if err != nil || string(b) != tc.want {
			t.Errorf("Marshal(%+v) = %s, %v; want %s", tc.ev, b, err, tc.want)
		}
		var back sdk.Evaluation
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tc.ev, back); diff != "" {
			t.Errorf("round trip (-want +got):\n%s", diff)
		}
	}
	if _, err := json.Marshal(sdk.Evaluation{Score: nan()}); err == nil || !strings.Contains(err.Error(), "not a finite number") {
		t.Errorf("Marshal of a NaN score: %v", err)
	}
}

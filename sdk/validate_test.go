package sdk_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ramabana/ramabana-mcp/sdk"
)

var objSchema = json.RawMessage(`{"type":"object"}`)

func readTool(name string) sdk.ToolSpec {
	return sdk.ToolSpec{Name: name, Kind: sdk.KindRead, InputSchema: objSchema}
}

func TestDescriptionValidate(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		d    sdk.Description
		want string // "" means valid
	}{
		"valid":               {sdk.Description{Name: "p", Groups: []sdk.GroupSpec{{Name: "g", Tools: []sdk.ToolSpec{readTool("a")}}}}, ""},
		"bad plugin name":     {sdk.Description{Name: "P!", Groups: []sdk.GroupSpec{{Name: "g"}}}, `plugin name "P!"`},
		"no groups":           {sdk.Description{Name: "p"}, "no tool groups"},
		"bad group name":      {sdk.Description{Name: "p", Groups: []sdk.GroupSpec{{Name: "a/b"}}}, `group name "a/b"`},
		"twice across groups": {sdk.Description{Name: "p", Groups: []sdk.GroupSpec{{Name: "g", Tools: []sdk.ToolSpec{readTool("a")}}, {Name: "h", Tools: []sdk.ToolSpec{readTool("a")}}}}, `tool "a" is declared twice (groups "g" and "h")`},
		"bad tool name":       {sdk.Description{Name: "p", Groups: []sdk.GroupSpec{{Name: "g", Tools: []sdk.ToolSpec{readTool("a b")}}}}, `tool name "a b"`},
		"name too long":       {sdk.Description{Name: "p", Groups: []sdk.GroupSpec{{Name: "g", Tools: []sdk.ToolSpec{readTool(strings.Repeat("a", 129))}}}}, "1 to 128"},
		"no kind":             {sdk.Description{Name: "p", Groups: []sdk.GroupSpec{{Name: "g", Tools: []sdk.ToolSpec{{Name: "a", InputSchema: objSchema}}}}}, `tool "a": declares no kind`},
		"no input schema":     {sdk.Description{Name: "p", Groups: []sdk.GroupSpec{{Name: "g", Tools: []sdk.ToolSpec{{Name: "a", Kind: sdk.KindRead}}}}}, `tool "a": no input schema`},
		"output not object":   {sdk.Description{Name: "p", Groups: []sdk.GroupSpec{{Name: "g", Tools: []sdk.ToolSpec{{Name: "a", Kind: sdk.KindRead, InputSchema: objSchema, OutputSchema: json.RawMessage(`{"type":"string"}`)}}}}}, `tool "a": output schema`},
		"task problems pass":  {sdk.Description{Name: "p", Groups: []sdk.GroupSpec{{Name: "g", Tools: []sdk.ToolSpec{{Name: "a", Kind: sdk.KindRead, InputSchema: objSchema, Task: "router"}}}}}, ""},
		"input not object":    {sdk.Description{Name: "p", Groups: []sdk.GroupSpec{{Name: "g", Tools: []sdk.ToolSpec{{Name: "a", Kind: sdk.KindRead, InputSchema: json.RawMessage(`{"type":"array"}`)}}}}}, `tool "a": input schema`},
		"input not JSON":      {sdk.Description{Name: "p", Groups: []sdk.GroupSpec{{Name: "g", Tools: []sdk.ToolSpec{{Name: "a", Kind: sdk.KindRead, InputSchema: json.RawMessage(`{"type":`)}}}}}, `tool "a": input schema`},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			// ValidateUncompiled refuses what Validate does, but for
			// schemas that do not resolve (TestValidateUncompiledLeaves...).
			for check, err := range map[string]error{"Validate": tc.d.Validate(), "ValidateUncompiled": tc.d.ValidateUncompiled()} {
				if (tc.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.want)) {
					t.Errorf("%s = %v, want %q", check, err, tc.want)
				}
			}
		})
	}
}

// TestValidateUncompiledLeavesTheSchemasToTheFirstCall: an input schema
// that is an object schema but does not resolve (a $ref to nothing) is
// refused by Validate and left by ValidateUncompiled, which checks only
// what it can without compiling it.
func TestValidateUncompiledLeavesTheSchemasToTheFirstCall(t *testing.T) {
	t.Parallel()
	dangling := json.RawMessage(`{"type":"object","properties":{"x":{"$ref":"#/$defs/nothing"}}}`)
	d := sdk.Description{Name: "p", Groups: []sdk.GroupSpec{{Name: "g", Tools: []sdk.ToolSpec{{Name: "a", Kind: sdk.KindRead, InputSchema: dangling}}}}}
	if err := d.Validate(); err == nil || !strings.Contains(err.Error(), `tool "a"`) {
		t.Errorf("Validate = %v, want the dangling $ref refused", err)
	}
	if err := d.ValidateUncompiled(); err != nil {
		t.Errorf("ValidateUncompiled = %v, want nil", err)
	}
}

// TestDropMisdeclared: a tool declared for the wrong task is left out with
// a reason naming it; the plugin's other tools stay.
func TestDropMisdeclared(t *testing.T) {
	t.Parallel()
	bad := []sdk.ToolSpec{
		{Name: "router", Kind: sdk.KindRead, InputSchema: objSchema, Task: "router"},
		{Name: "moded", Kind: sdk.KindRead, InputSchema: objSchema, Mode: sdk.SkillAuto},
		{Name: "odd_mode", Kind: sdk.KindRead, InputSchema: objSchema, Task: sdk.TaskSkill, Mode: "sometimes"},
		{Name: "as_user", Kind: sdk.KindRead, InputSchema: objSchema, AsUserMessage: true},
	}
	good := []sdk.ToolSpec{readTool("fine"), {Name: "skill", Kind: sdk.KindRead, InputSchema: objSchema, Task: sdk.TaskSkill, Mode: sdk.SkillAlwaysOn}}
	d := &sdk.Description{Name: "p", Groups: []sdk.GroupSpec{{Name: "g", Tools: append(append([]sdk.ToolSpec{}, bad...), good...)}}}
	kept, refused := d.DropMisdeclared()
	if diff := cmp.Diff(good, kept.Groups[0].Tools); diff != "" {
		t.Errorf("kept tools (-want +got):\n%s", diff)
	}
	var got []string
	for _, err := range refused {
		got = append(got, err.Error())
	}
	want := []string{
		`group "g": tool "router": unknown task "router": completion, context, evaluation, post_tool, skill or none`,
		`group "g": tool "moded": mode "auto" is for skill tools only, and the task is completion`,
		`group "g": tool "odd_mode": unknown skill mode "sometimes": always-on or auto`,
		`group "g": tool "as_user": as_user_message is for context tools only, and the task is completion`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("refused (-want +got):\n%s", diff)
	}
	if len(d.Groups[0].Tools) != 6 {
		t.Error("DropMisdeclared changed its receiver")
	}
	if same, none := kept.DropMisdeclared(); same != kept || none != nil {
		t.Error("a clean description is not returned as is")
	}
}

package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
)

// readSkillName is the built-in tool that loads an auto skill.
const readSkillName = "read_skill"

var readSkillSchema = json.RawMessage(`{"type":"object","properties":{"name":{"type":"string","description":"the skill's name, as listed under <skills>"}},"required":["name"],"additionalProperties":false}`)

// readSkillTool is read_skill, offered when the library has auto skills.
func readSkillTool() Tool {
	return Tool{
		Name:        readSkillName,
		Description: "Load a skill by name: its full instructions (a SKILL.md). The skills are listed in your system prompt under <skills>; load the one that fits before doing the task it describes.",
		InputSchema: readSkillSchema,
	}
}

// skillsPrompt lists the auto skills in the system prompt.
func skillsPrompt(auto []Skill) string {
	var b strings.Builder
	b.WriteString("\n\nSkills are instructions for particular kinds of task. When one below fits the task, load it with read_skill first.\n<skills>\n")
	for _, s := range auto {
		fmt.Fprintf(&b, "- %s: %s\n", s.Name, strings.Join(strings.Fields(s.Description), " "))
	}
	b.WriteString("</skills>")
	return b.String()
}

// readSkill runs read_skill: the skill's text, the same as skill://{name},
// or an error the model can act on; err is ctx's or a fault.
func (t *turn) readSkill(ctx context.Context, args json.RawMessage) (text string, isError bool, err error) {
	var a struct {
		Name string `json:"name"`
	}
	_ = json.Unmarshal(args, &a)
	names := make([]string, len(t.skills))
	for i, s := range t.skills {
		names[i] = s.Name
	}
	if a.Name == "" {
		return fmt.Sprintf("Error: say which skill to load: {\"name\": ...}, one of %s.", strings.Join(names, ", ")), true, nil
	}
	text, ok, err := t.a.skills.Read(ctx, a.Name)
	switch {
	case ctx.Err() != nil:
		return "", true, ctx.Err()
	case err != nil:
		return fmt.Sprintf("Error: the skill %q could not be read: %v", a.Name, err), true, nil
	case !ok:
		return fmt.Sprintf("Error: there is no skill %q. The skills are: %s.", a.Name, strings.Join(names, ", ")), true, nil
	}
	return text, false, nil
}

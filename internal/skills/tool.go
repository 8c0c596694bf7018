package skills

import (
	"fmt"
	"strings"
)

// ToolSkillName is the name of the skill a skill tool serves: the tool's
// name in lower case with '_' as '-' (house_style serves house-style).
func ToolSkillName(tool string) string {
	return strings.ReplaceAll(strings.ToLower(tool), "_", "-")
}

// CheckToolText reports why text is not what the skill tool of that name
// must return: a SKILL.md whose front matter (Agent Skills format) has a
// valid name and a description, the name being ToolSkillName(tool). The
// error names the tool. The sdk checks a skill tool's text with it when
// the tool is declared, and the host every skill tool's answer.
func CheckToolText(tool, text string) error {
	sk, err := Parse(text)
	if err != nil {
		return fmt.Errorf("tool %q: its SKILL.md text: %w", tool, err)
	}
	if want := ToolSkillName(tool); sk.Name != want {
		return fmt.Errorf("tool %q: its SKILL.md names the skill %q; the tool serves the skill %q", tool, sk.Name, want)
	}
	return nil
}

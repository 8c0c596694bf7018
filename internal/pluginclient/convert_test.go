package pluginclient

import (
	"strings"
	"testing"

	pluginv1 "github.com/ramabana/ramabana-mcp/internal/gen/ramabana/plugin/v1"
	"github.com/ramabana/ramabana-mcp/sdk"
)

// TestToolFromProtoKeepsWhatItDoesNotKnow: an enum value of a newer
// contract is kept for the validator to name, never served as a default.
func TestToolFromProtoKeepsWhatItDoesNotKnow(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		in   *pluginv1.ToolSpec
		want string // "" means ValidateTask passes
	}{
		"unspecified task is completion": {&pluginv1.ToolSpec{Name: "a"}, ""},
		"unknown task":                   {&pluginv1.ToolSpec{Name: "a", Task: pluginv1.ToolTask(99)}, `unknown task "99"`},
		"unknown skill mode":             {&pluginv1.ToolSpec{Name: "a", Task: pluginv1.ToolTask_TOOL_TASK_SKILL, Mode: pluginv1.SkillMode(7)}, `unknown skill mode "7"`},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			spec := toolFromProto(tc.in)
			err := spec.ValidateTask()
			if (tc.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.want)) {
				t.Errorf("ValidateTask = %v, want %q", err, tc.want)
			}
			if tc.want == "" && spec.Task != sdk.TaskCompletion {
				t.Errorf("task %q, want completion", spec.Task)
			}
		})
	}
}

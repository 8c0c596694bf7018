package e2e

import (
	"strings"
	"testing"
)

// TestAToolLeftOutByAFlagSaysWhich: a call of a tool the server leaves out
// by configuration is refused naming the flag, not "no tool has that
// name": the web group's tools under --web=false (its plugin is not even
// running) and under --groups -web (never started), ask under
// --delegate=false and without --model.
func TestAToolLeftOutByAFlagSaysWhich(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args       []string
		tool, want string
	}{
		{[]string{"--web=false"}, "fetch_url", "--web=false"},
		{[]string{"--groups", "-web"}, "web_search", "--groups -web"},
		{[]string{"--model", "m", "--model-url", "http://127.0.0.1:1/v1", "--delegate=false"}, "ask", "--delegate=false"},
		{nil, "ask", "--model"},
	} {
		t.Run(strings.Join(append([]string{tc.tool}, tc.args...), " "), func(t *testing.T) {
			t.Parallel()
			s := startStdio(t, project(t), tc.args...)
			_, err := call(t, s.session, tc.tool, map[string]any{"url": "http://127.0.0.1:1/", "task": "t", "query": "q"})
			if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "no tool has that name") {
				t.Errorf("%s with %v: %v, want it refused naming %s", tc.tool, tc.args, err, tc.want)
			}
		})
	}
}

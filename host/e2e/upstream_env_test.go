package e2e

import (
	"maps"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/ramabana/ramabana-mcp/internal/launch"
)

// A stdio upstream server gets the base allow-list of the host's
// environment (launch.BaseEnviron, the one plugins get too, less their
// Go and RAMABANA_* settings) and what its config's "env" sets: a
// variable passed on purpose with ${NAME} reaches it; ramabana's bearer
// token and model key, the OpenAI key and any other secret of the host's
// do not.
func TestUpstreamServerGetsOnlyTheBaseEnvironmentAndItsConfig(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	secrets := map[string]string{
		"OPENAI_API_KEY":     "sk-e2e-openai-secret",
		"RAMABANA_TOKEN":     "e2e-bearer-secret",
		"RAMABANA_MODEL_KEY": "e2e-model-secret",
		"RAMABANA_EMBED_KEY": "e2e-embed-secret",
		"SECRET_X":           "e2e-made-up-secret",
	}
	env := []string{"HOME=" + home, "E2E_PASSED_ON_PURPOSE=passed-on-purpose"}
	for _, k := range slices.Sorted(maps.Keys(secrets)) {
		env = append(env, k+"="+secrets[k])
	}
	configured := map[string]string{"E2E_PASSED_ON_PURPOSE": "${E2E_PASSED_ON_PURPOSE}", "E2E_LITERAL": "literal", "GORACE": "atexit_sleep_ms=0"}
	cfg := mcpConfig(t, map[string]any{"envy": upstreamServer("env", map[string]any{"env": configured})})
	s := startStdioEnv(t, env, project(t), "--mcp-config", cfg, "--upstream-wait", "2m")

	res, err := call(t, s.session, "envy__environ", map[string]any{})
	if err != nil || res.IsError {
		t.Fatalf("envy__environ = %v, %v; stderr:\n%s", res, err, s.stderr)
	}
	got := map[string]string{}
	for line := range strings.Lines(text(res)) {
		k, v, _ := strings.Cut(strings.TrimSuffix(line, "\n"), "=")
		got[k] = v
	}
	for k, v := range secrets {
		if _, ok := got[k]; ok {
			t.Errorf("the upstream server got %s", k)
		}
		if strings.Contains(text(res), v) {
			t.Errorf("the upstream server's environment holds %s's value", k)
		}
	}
	for k, want := range map[string]string{"E2E_PASSED_ON_PURPOSE": "passed-on-purpose", "E2E_LITERAL": "literal", "HOME": home, "PATH": os.Getenv("PATH")} {
		if got[k] != want {
			t.Errorf("the upstream server's %s = %q, want %q", k, got[k], want)
		}
	}
	// Nothing else: every variable is the base's or the config's.
	base := map[string]bool{}
	for _, kv := range launch.BaseEnviron(append(os.Environ(), env...)) {
		k, _, _ := strings.Cut(kv, "=")
		base[k] = true
	}
	for k := range got {
		if _, ok := configured[k]; !ok && !base[k] {
			t.Errorf("the upstream server got %s, which neither the base allow-list nor its config passes", k)
		}
	}
}

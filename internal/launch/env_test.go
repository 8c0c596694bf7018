package launch

import (
	"slices"
	"testing"
)

// hostEnv is a host environment with a secret or two beside what programs
// need.
var hostEnv = []string{
	"PATH=/bin", "HOME=/home/u", "LC_ALL=C", "HTTPS_PROXY=http://proxy:3128", "XDG_CONFIG_HOME=/home/u/.config",
	"OPENAI_API_KEY=sk-1", "RAMABANA_TOKEN=t", "RAMABANA_MODEL_KEY=m", "RAMABANA_EMBED_KEY=e", "GITHUB_TOKEN=g",
	"GOMAXPROCS=2", "GORACE=halt_on_error=1", "RAMABANA_LOG_LEVEL=DEBUG", "RAMABANA_SEARCH_URL=http://s",
	"EXTRA=1", "junk", "=C:=C:\\",
}

// Plugins and upstream servers share the base; plugins alone get the Go
// runtime's settings and ramabana's own settings for plugins; neither gets
// a key or a token.
func TestBaseEnvironAndEnviron(t *testing.T) {
	t.Parallel()
	base := []string{"PATH=/bin", "HOME=/home/u", "LC_ALL=C", "HTTPS_PROXY=http://proxy:3128", "XDG_CONFIG_HOME=/home/u/.config"}
	if got := BaseEnviron(hostEnv); !slices.Equal(got, base) {
		t.Errorf("BaseEnviron = %q, want %q", got, base)
	}
	plugin := []string{"PATH=/bin", "HOME=/home/u", "LC_ALL=C", "HTTPS_PROXY=http://proxy:3128", "XDG_CONFIG_HOME=/home/u/.config",
		"GOMAXPROCS=2", "GORACE=halt_on_error=1", "RAMABANA_LOG_LEVEL=DEBUG", "RAMABANA_SEARCH_URL=http://s", "EXTRA=1"}
	if got := Environ(hostEnv, []string{"EXTRA"}); !slices.Equal(got, plugin) {
		t.Errorf("Environ = %q, want %q", got, plugin)
	}
}

// On Windows names are matched as Windows has them, case-insensitively:
// its "Path" is PATH.
func TestFilterEnvFoldsCaseForWindows(t *testing.T) {
	t.Parallel()
	env := []string{"Path=C:\\Windows", "SystemRoot=C:\\Windows", "APPDATA=C:\\Users\\u\\AppData\\Roaming", "lc_all=C", "OpenAI_Api_Key=sk-1"}
	want := []string{"Path=C:\\Windows", "SystemRoot=C:\\Windows", "APPDATA=C:\\Users\\u\\AppData\\Roaming", "lc_all=C"}
	if got := filterEnv(env, true); !slices.Equal(got, want) {
		t.Errorf("folded = %q, want %q", got, want)
	}
	if got := filterEnv(env, false); !slices.Equal(got, want[1:3]) {
		t.Errorf("not folded = %q, want %q", got, want[1:3])
	}
}

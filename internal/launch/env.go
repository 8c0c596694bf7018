package launch

import (
	"context"
	"log/slog"
	"runtime"
	"strings"
)

// The host environment may hold secrets: ramabana's own (its bearer token,
// the ask agent's model key, the embeddings key) and whatever else the user
// exported. No program ramabana starts gets it whole: each gets the base
// allow-list below, what it needs to run, and only what is named on top.

// baseAllowed are the host environment variables every program ramabana
// starts gets (BaseEnviron): where its programs, home, temporary and
// config folders are, the locale and time zone, the terminal, the
// certificates and the proxies. None holds a secret.
var baseAllowed = []string{
	"PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "TZ", "TMPDIR", "TERM",
	"XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_RUNTIME_DIR",
	"SSL_CERT_FILE", "SSL_CERT_DIR", "NODE_EXTRA_CA_CERTS", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE",
	"HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "no_proxy",
	// Windows' own: without them Node, npm and much else fail there (no
	// home, no AppData, no cmd.exe). Matched case-insensitively there.
	"SystemRoot", "SystemDrive", "windir", "ComSpec", "PATHEXT", "TEMP", "TMP",
	"USERPROFILE", "USERNAME", "USERDOMAIN", "HOMEDRIVE", "HOMEPATH", "APPDATA", "LOCALAPPDATA",
	"ProgramData", "ProgramFiles", "ProgramFiles(x86)", "ProgramW6432",
	"CommonProgramFiles", "CommonProgramFiles(x86)", "CommonProgramW6432",
	"NUMBER_OF_PROCESSORS", "PROCESSOR_ARCHITECTURE", "OS",
}

// baseAllowedPrefixes pass whole families: locale settings.
var baseAllowedPrefixes = []string{"LC_"}

// pluginAllowed are what plugins get beyond the base: the Go runtime's
// settings (plugins are mostly Go programs, and the tests' coverage and
// race settings must reach them) and ramabana's own settings for plugins.
var pluginAllowed = []string{
	"GOCOVERDIR", "GORACE", "GOTRACEBACK", "GOMAXPROCS", "RAMABANA_LOG_LEVEL",
	"RAMABANA_SEARCH_URL", "RAMABANA_SEARCH_PROVIDER",
}

// Environ filters environ (KEY=VALUE entries, os.Environ's form) down to
// the environment a plugin gets: the base (BaseEnviron), the plugin
// settings above and the extra names (the server's --plugin-env).
func Environ(environ []string, extra []string) []string {
	return filterEnv(environ, runtime.GOOS == "windows", pluginAllowed, extra)
}

// BaseEnviron filters environ down to the base allow-list alone, nothing of
// ramabana's own (no RAMABANA_* variable, no Go runtime setting): the
// environment of a program that is not ramabana's, an upstream MCP server,
// before what its config sets.
func BaseEnviron(environ []string) []string {
	return filterEnv(environ, runtime.GOOS == "windows")
}

// filterEnv keeps the entries of environ that the base allows or that the
// lists name; fold matches names case-insensitively, as Windows has them
// ("Path" is PATH there).
func filterEnv(environ []string, fold bool, lists ...[]string) []string {
	key := func(k string) string { return k }
	if fold {
		key = strings.ToUpper
	}
	allowed := map[string]bool{}
	for _, list := range append([][]string{baseAllowed}, lists...) {
		for _, k := range list {
			allowed[key(k)] = true
		}
	}
	var out []string
	for _, kv := range environ {
		k, _, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			continue
		}
		if allowed[key(k)] || hasAnyPrefix(key(k), baseAllowedPrefixes) {
			out = append(out, kv)
		}
	}
	return out
}

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// LogLevelVar names the variable a plugin reads its log level from.
const LogLevelVar = "RAMABANA_LOG_LEVEL"

// WithLogLevel adds LogLevelVar to env, set to the lowest level logger
// records, unless env already sets it: a plugin then logs what the host
// would keep (the host's --log-level), and an explicit setting wins.
func WithLogLevel(env []string, logger *slog.Logger) []string {
	for _, kv := range env {
		if strings.HasPrefix(kv, LogLevelVar+"=") {
			return env
		}
	}
	level := slog.LevelError
	for _, l := range []slog.Level{slog.LevelDebug, slog.LevelInfo, slog.LevelWarn} {
		if logger.Enabled(context.Background(), l) {
			level = l
			break
		}
	}
	return append(env, LogLevelVar+"="+level.String())
}

package launch

import (
	"context"
	"log/slog"
	"strings"
)

// envAllowed are the host environment variables passed to plugins. The host
// environment may hold secrets (API keys, tokens) that plugins have no need
// of, so everything else is left out unless named as an extra (the server's --plugin-env).
var envAllowed = []string{
	"PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "TZ", "TMPDIR", "TERM",
	"XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_RUNTIME_DIR",
	"SSL_CERT_FILE", "SSL_CERT_DIR",
	"HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "no_proxy",
	"GOCOVERDIR", "GORACE", "GOTRACEBACK", "GOMAXPROCS", "RAMABANA_LOG_LEVEL",
	"RAMABANA_SEARCH_URL", "RAMABANA_SEARCH_PROVIDER",
}

// envAllowedPrefixes pass whole families: locale settings.
var envAllowedPrefixes = []string{"LC_"}

// Environ filters environ (KEY=VALUE entries, os.Environ's form) down to
// the allow-list plus the extra names: the environment a plugin gets.
func Environ(environ []string, extra []string) []string {
	allowed := map[string]bool{}
	for _, k := range envAllowed {
		allowed[k] = true
	}
	for _, k := range extra {
		allowed[k] = true
	}
	var out []string
	for _, kv := range environ {
		k, _, ok := strings.Cut(kv, "=")
		if !ok {
			continue
		}
		if allowed[k] || hasAnyPrefix(k, envAllowedPrefixes) {
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
